-- due_services: the services of one bucket whose time in the bucket's due set has come (Redis time): the sweeper
-- sweeps only these, so a round costs one call per bucket plus one per service that may need something done.
-- It also notes the Redis master it runs on in the bucket's master key (a write only when that master is new, see
-- new_master_since in sweep_state.lua): every round runs this for every bucket, so a failover is seen by the first round
-- after it, whether or not a sweep of the bucket ran before.
-- A key of another type in either place (another program wrote it) is deleted (see replace_corrupt in sweep_state.lua);
-- the sweeper then sweeps the bucket's services it knows of, which files them in the due set again.
-- KEYS[1] the bucket's due set (instances key of a service -> when the sweep should look at it, see common.lua),
-- KEYS[2] the bucket's master key
-- ARGV[1] how many due entries to pass over first (those the round looked at that stay due), ARGV[2] page size
-- Returns {the type the due set held if it was replaced, else '', the same for the master key, the instances keys of
-- up to ARGV[2] due services, the longest due first}.
--#include common.lua
--#include sweep_state.lua
local replaced_due, replaced_master = replace_corrupt(KEYS[1], 'zset'), replace_corrupt(KEYS[2], 'hash') or ''
local now = now_ms()
new_master_since(KEYS[2], now)
if replaced_due then
  return {replaced_due, replaced_master, {}}
end
return {'', replaced_master, redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', tonumber(ARGV[1]),
  tonumber(ARGV[2]))}
