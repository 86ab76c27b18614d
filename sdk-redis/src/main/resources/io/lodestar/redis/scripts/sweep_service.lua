-- sweep_service: removes the instances of one service whose deadline (Redis time) has passed. Idempotent: any
-- client may run it at any time; two sweepers racing remove each instance once.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] digest (see announce in common.lua)
-- ARGV[1] most instances to expire in one call (bounds the script's run time)
-- Returns {revision, instance count, expired count}. Publishes one "expired" event per removed instance.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', KEYS[5], 'string')
local now = now_ms()

local due = redis.call('ZRANGEBYSCORE', deadlines, '-inf', '(' .. now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, id in ipairs(due) do
  expire(instances, deadlines, rev_key, channel, id)
end
return {current_revision(rev_key), redis.call('HLEN', instances), #due}
