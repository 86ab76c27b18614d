-- deregister_instance: removes an instance on request (its owner's deregister, or another client's or an
-- operator's deregister or evict) and leaves a tombstone, so its owner's next renewal stops instead of registering
-- it again. The tombstone outlives the instance's own lease several times over (its owner renews every third of
-- it), and is written even when nothing was registered, so a removal racing a re-registration after expiry sticks.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] tombstones zset, KEYS[6] digest, KEYS[7] incarnation (see announce in common.lua),
-- KEYS[8] the bucket's due set (see file_due in common.lua)
-- ARGV[1] instance id, ARGV[2] shortest time to keep the tombstone, in ms
-- Returns {revision, removed (1/0), instance count}. Publishes "deregistered" when something was removed.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', tombstones, 'zset', KEYS[6], 'string',
  KEYS[7], 'string', KEYS[8], 'zset')
local id, keep = ARGV[1], tonumber(ARGV[2])
local now = now_ms()

local keep_until = now + math.max(keep, 3 * stored_ttl(instances, id))
redis.call('ZADD', tombstones, keep_until, id)
local ttl = redis.call('PTTL', tombstones) -- a purge (purge_service.lua) leaves the key to expire with its last one
if ttl > 0 and ttl < keep_until - now then
  redis.call('PEXPIRE', tombstones, keep_until - now + 1)
end
redis.call('ZREM', deadlines, id)
local rev
local removed = redis.call('HDEL', instances, id)
if removed == 1 then
  rev = announce(rev_key, channel, 'deregistered', id, '')
  file_due(deadlines, now, redis.call('HLEN', instances) == 0)
else
  file_due(deadlines, now, false)
  rev = current_revision(rev_key)
end
return {rev, removed, redis.call('HLEN', instances)}
