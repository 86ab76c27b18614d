-- flat_register: the eleven commands the real register_instance.lua runs for a new instance, with the same keys and
-- arguments, but none of its helpers and none of its checks: what those commands cost on their own (write_cost.py).
-- KEYS and ARGV as register_instance.lua's. Not a script to use: it keeps none of the guarantees.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local instances, id = KEYS[1], ARGV[1]
redis.call('HGET', instances, id)
redis.call('ZSCORE', KEYS[2], id)
redis.call('ZSCORE', KEYS[8], instances)
local v = redis.call('MGET', KEYS[3], KEYS[7], KEYS[6])
redis.call('ZREM', KEYS[5], id)
local count = redis.call('HLEN', instances) + 1
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), id)
local public = string.sub(ARGV[2], 1, -2) .. ',"registeredAt":' .. now .. '}'
redis.call('HSET', instances, id, string.sub(public, 1, -2) .. ',"owner":"' .. ARGV[5] .. '"}')
local rev = tonumber(v[1] or '0') + 1
local event = '{"type":"registered","rev":' .. rev .. ',"id":"' .. id .. '","instance":' .. public
local digest = redis.sha1hex((v[3] or '') .. event)
redis.call('MSET', KEYS[3], rev, KEYS[6], digest)
redis.call('SPUBLISH', KEYS[4], event .. ',"digest":"' .. digest .. '","inc":"' .. (v[2] or '') .. '"}')
return {rev, 'registered', now, count}
