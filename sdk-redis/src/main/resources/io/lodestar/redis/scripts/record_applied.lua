-- record_applied: one client says which version (and variant) of a config it applied, and keeps saying it: the
-- client sends it when its view takes a version and again every sweep interval while it holds the config, so a
-- record lives as long as its client does (see AppliedRecords). Who runs what, read by read_applied.lua.
-- KEYS[1] applied hash (client id -> record JSON), KEYS[2] applied-until zset (client id -> expiry, epoch ms)
-- ARGV[1] client id, ARGV[2] version, ARGV[3] variant, ARGV[4] time to live (ms),
-- ARGV[5] the client's identity as a JSON object (name, host, pid)
-- Returns when the client applied this version and variant (epoch ms, Redis time): kept from the record when it
-- already names them (a renewal), else now.
-- Publishes nothing: nobody's view follows these keys.
--#include basics.lua
local applied, until_key = KEYS[1], KEYS[2]
local client, version, variant, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local now = now_ms()

-- Records of clients that stopped renewing (crashed, cut off) go, a bounded number per call: every live client
-- calls this once per interval, so the dead never pile up, and the call stays short.
local dead = redis.call('ZRANGEBYSCORE', until_key, '-inf', now, 'LIMIT', 0, 100)
for _, gone in ipairs(dead) do
  redis.call('HDEL', applied, gone)
  redis.call('ZREM', until_key, gone)
end

local at = now
local old = redis.call('HGET', applied, client)
if old then
  local ok, record = pcall(cjson.decode, old)
  if ok and type(record) == 'table' and record.version == version and record.variant == variant then
    at = record.at
  end
end
redis.call('HSET', applied, client, '{"version":' .. version .. ',"variant":' .. cjson.encode(variant) .. ',"at":'
  .. at .. ',"who":' .. ARGV[5] .. '}')
redis.call('ZADD', until_key, now + ttl, client)
-- The keys live as long as their longest-lived record: a config nobody runs any more leaves nothing behind.
local last = redis.call('ZRANGE', until_key, -1, -1, 'WITHSCORES')
local left = tonumber(last[2]) - now
redis.call('PEXPIRE', applied, left)
redis.call('PEXPIRE', until_key, left)
return at
