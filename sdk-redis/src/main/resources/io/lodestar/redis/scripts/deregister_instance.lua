-- deregister_instance: removes an instance on request.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] digest (see announce in common.lua)
-- ARGV[1] instance id
-- Returns {revision, removed (1/0), instance count}. Publishes "deregistered" when something was removed.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', KEYS[5], 'string')
local id = ARGV[1]

redis.call('ZREM', deadlines, id)
local rev
local removed = redis.call('HDEL', instances, id)
if removed == 1 then
  rev = announce(rev_key, channel, 'deregistered', id, '')
else
  rev = current_revision(rev_key)
end
return {rev, removed, redis.call('HLEN', instances)}
