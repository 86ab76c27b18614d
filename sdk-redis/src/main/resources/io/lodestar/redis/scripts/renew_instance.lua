-- renew_instance: moves an ephemeral instance's deadline to now + TTL. Publishes nothing (heartbeats would flood
-- every view), so a view keeps an instance until an "expired" or "deregistered" event says otherwise.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] digest (see announce in common.lua)
-- ARGV[1] instance id, ARGV[2] TTL in ms
-- Returns 1 when renewed (or persistent and present), 0 when the instance is gone. An overdue instance is expired
-- (and announced) instead of renewed, so every view agrees that it left; the owner registers it again.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', KEYS[5], 'string')
local id, ttl = ARGV[1], tonumber(ARGV[2])
local now = now_ms()

if redis.call('HEXISTS', instances, id) == 0 then
  redis.call('ZREM', deadlines, id)
  return 0
end
if overdue(deadlines, id, now) then
  expire(instances, deadlines, rev_key, channel, id)
  return 0
end
if ttl > 0 then
  redis.call('ZADD', deadlines, now + ttl, id)
end
return 1
