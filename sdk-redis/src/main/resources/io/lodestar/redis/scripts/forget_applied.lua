-- forget_applied: a client no longer runs a config (it closed, or its view dropped the config): its record goes.
-- KEYS[1] applied hash, KEYS[2] applied-until zset (see record_applied.lua)
-- ARGV[1] client id
-- Returns 1 when the client had a record, else 0. Publishes nothing.
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed
