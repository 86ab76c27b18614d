-- due_services: the services of one bucket whose time in the bucket's due set has come (Redis time): the sweeper
-- sweeps only these, so a round costs one call per bucket plus one per service that may need something done.
-- Writes nothing, unless the due set holds another type (another program wrote it): then it is deleted (see
-- replace_corrupt in common.lua), and the sweeper sweeps the bucket's services it knows of, which files them again.
-- KEYS[1] the bucket's due set (instances key of a service -> when the sweep should look at it, see common.lua)
-- ARGV[1] how many due entries to pass over first (those the round looked at that stay due), ARGV[2] page size
-- Returns {the type the due set held if it was replaced, else '', the instances keys of up to ARGV[2] due services,
-- the longest due first}.
--#include common.lua
local replaced = replace_corrupt(KEYS[1], 'zset')
if replaced then
  return {replaced, {}}
end
return {'', redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', tonumber(ARGV[1]), tonumber(ARGV[2]))}
