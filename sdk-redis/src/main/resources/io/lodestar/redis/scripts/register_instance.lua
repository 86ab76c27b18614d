-- register_instance: adds an instance to a service, or replaces it.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] digest (see announce in common.lua)
-- ARGV[1] instance id, ARGV[2] instance JSON (without registeredAt), ARGV[3] TTL in ms (0 = persistent)
-- Returns {revision, kind, registeredAt ms, instance count}; kind is registered, updated or unchanged.
-- Publishes "registered" (new, or back after expiry) or "updated" (fields changed); nothing when unchanged,
-- in which case only the deadline moves. An overdue old copy is expired first, so views see it leave and come back.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', KEYS[5], 'string')
local id, ttl = ARGV[1], tonumber(ARGV[3])
local now = now_ms()

if overdue(deadlines, id, now) then
  expire(instances, deadlines, rev_key, channel, id)
end

local instance = cjson.decode(ARGV[2])
local existing = redis.call('HGET', instances, id)
local kind = 'registered'
if existing then
  local old = cjson.decode(existing)
  instance.registeredAt = old.registeredAt
  kind = 'updated'
else
  instance.registeredAt = now
end
local stored = cjson.encode(instance)

if ttl > 0 then
  redis.call('ZADD', deadlines, now + ttl, id)
else
  redis.call('ZREM', deadlines, id)
end

local rev
if existing == stored then
  kind = 'unchanged'
  rev = current_revision(rev_key)
else
  redis.call('HSET', instances, id, stored)
  rev = announce(rev_key, channel, kind, id, ',"instance":' .. stored)
end
return {rev, kind, instance.registeredAt, redis.call('HLEN', instances)}
