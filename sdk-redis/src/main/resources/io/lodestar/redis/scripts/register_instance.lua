-- register_instance: adds an instance to a service, or replaces it.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] tombstones zset, KEYS[6] digest, KEYS[7] incarnation (see announce in common.lua),
-- KEYS[8] the bucket's due set (see file_due in common.lua)
-- ARGV[1] instance id, ARGV[2] instance JSON (without registeredAt), ARGV[3] TTL in ms (0 = persistent),
-- ARGV[4] "register": a registration, which clears a tombstone of the instance (whoever registers wants it back);
--         "renewal": an owner registering again an instance its renewal found gone, refused while a tombstone says
--         it was deregistered or evicted,
-- ARGV[5] the registering client's owner token (hex), stored with the instance for its lease (see with_owner)
-- Returns {revision, kind, registeredAt ms, instance count}; kind is registered, updated or unchanged, or
-- deregistered (only for a refused "renewal": nothing written, registeredAt 0).
-- Publishes "registered" (new, or back after expiry) or "updated" (fields changed); nothing when unchanged,
-- in which case only the deadline moves. An overdue old copy is expired first, so views see it leave and come back.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', tombstones, 'zset', KEYS[6], 'string',
  KEYS[7], 'string', KEYS[8], 'zset')
local id, ttl, mode = ARGV[1], tonumber(ARGV[3]), ARGV[4]
local now = now_ms()

if mode == 'renewal' and redis.call('HEXISTS', instances, id) == 0 and tombstoned(tombstones, id, now) then
  return {current_revision(rev_key), 'deregistered', 0, redis.call('HLEN', instances)}
end
redis.call('ZREM', tombstones, id)

if overdue(deadlines, id, now) then
  expire(instances, deadlines, rev_key, channel, id)
end

local instance = cjson.decode(ARGV[2])
local existing = redis.call('HGET', instances, id)
local kind = 'registered'
if existing then
  -- an entry another program wrote (not JSON, or without registeredAt) is replaced as registered now
  local old = decoded(existing)
  instance.registeredAt = old and tonumber(old.registeredAt) or now
  kind = 'updated'
else
  instance.registeredAt = now
end
local public = cjson.encode(instance)
local stored = with_owner(public, ARGV[5])

if ttl > 0 then
  redis.call('ZADD', deadlines, now + ttl, id)
else
  redis.call('ZREM', deadlines, id)
end

file_due(deadlines, now, not existing and redis.call('HLEN', instances) == 0)

local rev
if existing and without_owner(existing) == public then
  kind = 'unchanged' -- for readers: a new owner only is stored, not announced
  if existing ~= stored then
    redis.call('HSET', instances, id, stored)
  end
  rev = current_revision(rev_key)
else
  redis.call('HSET', instances, id, stored)
  rev = announce(rev_key, channel, kind, id, ',"instance":' .. public)
end
return {rev, kind, instance.registeredAt, redis.call('HLEN', instances)}
