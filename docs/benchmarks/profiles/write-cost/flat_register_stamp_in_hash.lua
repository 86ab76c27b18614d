-- flat_register_stamp_in_hash: the eight commands register_instance.lua runs for a new instance since the service's
-- stamp moved into its instances hash (2026-11-28), with the same keys and arguments, but none of its helpers and
-- none of its checks: what those commands cost on their own (compare_scripts.py, as the "before" register_instance.lua
-- of a copy of the scripts). Not a script to use: it keeps none of the guarantees.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local instances, id = KEYS[1], ARGV[1]
local v = redis.call('HMGET', instances, id, ':revision', ':digest', ':incarnation')
redis.call('ZSCORE', KEYS[4], id)
redis.call('ZSCORE', KEYS[5], instances)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), id)
local count = redis.call('HLEN', instances) + 1
local public = string.sub(ARGV[2], 1, -2) .. ',"registeredAt":' .. now .. '}'
local rev = tonumber(v[2] or '0') + 1
local event = '{"type":"registered","rev":' .. rev .. ',"id":"' .. id .. '","instance":' .. public
local digest = redis.sha1hex((v[3] or '') .. event)
redis.call('HSET', instances, id, string.sub(public, 1, -2) .. ',"owner":"' .. ARGV[5] .. '"}', ':revision', rev,
  ':digest', digest)
redis.call('SPUBLISH', KEYS[3], event .. ',"digest":"' .. digest .. '","inc":"' .. (v[4] or '') .. '"}')
return {rev, 'registered', now, count}
