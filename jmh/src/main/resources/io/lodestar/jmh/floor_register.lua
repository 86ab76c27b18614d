-- floor_register: the FIXED floor of the write benchmarks (issue 27). Do not change it, and never make it follow
-- Lodestar's scripts: it is the yardstick they are held to. The raw baselines run Lodestar's own scripts, so they
-- grow with them, and a threefold growth of the writes' Redis time went unnoticed behind them. This script is the
-- least a register-shaped write can do (store the instance, set its deadline by Redis time, bump a revision, index
-- the id, publish the event), so "Redis µs per call ÷ this script's" stays comparable from run to run and commit to
-- commit. Changing it invalidates every ratio recorded against it (docs/benchmarks.md, docs/benchmarks/writes-floor/).
--
-- Six commands per call: TIME, HSET of 5 fields, ZADD, INCR, SADD, SPUBLISH (144-150 bytes for the benchmark's
-- ids). Every key shares one hash tag (cluster-safe, like Lodestar's scripts).
-- KEYS[1] the instance's hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] set of instance ids,
-- KEYS[5] shard channel of events
-- ARGV[1] instance id, ARGV[2] host, ARGV[3] port, ARGV[4] weight, ARGV[5] metadata JSON, ARGV[6] TTL in ms
-- Returns the new revision.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('HSET', KEYS[1], 'host', ARGV[2], 'port', ARGV[3], 'weight', ARGV[4], 'metadata', ARGV[5],
  'registeredAt', now)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[1])
local revision = redis.call('INCR', KEYS[3])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('SPUBLISH', KEYS[5], '{"kind":"registered","rev":' .. revision .. ',"id":"' .. ARGV[1]
  .. '","host":"' .. ARGV[2] .. '","port":' .. ARGV[3] .. ',"metadata":' .. ARGV[5] .. ',"at":' .. now .. '}')
return revision
