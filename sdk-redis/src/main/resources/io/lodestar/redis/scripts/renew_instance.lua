-- renew_instance: moves an ephemeral instance's deadline to now + its stored TTL (whoever renews it: its owner, or
-- any client or operator keeping it alive). Publishes nothing (heartbeats would flood every view), so a view keeps
-- an instance until an "expired" or "deregistered" event says otherwise. An instance past its deadline that the
-- sweep has not removed yet is renewed too: no view dropped it (views drop an instance on its event only), and
-- after an outage this is how owners keep what the sweep's grace spared (see sweep_service.lua).
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] tombstones zset, KEYS[6] digest, KEYS[7] incarnation (see announce in common.lua),
-- KEYS[8] the bucket's due set (see file_due in common.lua)
-- ARGV[1] instance id, ARGV[2] the owner token of the lease renewing it (see with_owner in common.lua), or '' for
-- an explicit renewal, which renews whichever registration the id holds
-- Returns 1 when renewed (or persistent and present); 0 when the instance is gone (it expired, or Redis lost it:
-- its owner registers it again); -1 when it is gone because it was deregistered or evicted (its owner stops); -2
-- when another owner's registration holds the id (nothing renewed: the lease stops, that registration is its
-- owner's to renew).
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[5]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', tombstones, 'zset', KEYS[6], 'string',
  KEYS[7], 'string', KEYS[8], 'zset')
local id = ARGV[1]
local now = now_ms()

local stored = redis.call('HGET', instances, id)
if not stored then
  if redis.call('ZREM', deadlines, id) == 1 then
    file_due(deadlines, now, false)
  end
  return tombstoned(tombstones, id, now) and -1 or 0
end
if ARGV[2] ~= '' and not string.find(stored, ',"owner":"' .. ARGV[2] .. '"}', 1, true) then
  return -2
end
local instance = decoded(stored)
local ttl = instance and tonumber(instance.ttl) or 0
if ttl > 0 then
  redis.call('ZADD', deadlines, now + ttl, id)
  file_due(deadlines, now, false)
end
return 1
