-- read_applied: who runs a config: the live records (see record_applied.lua). Reads only: records past their
-- expiry are left out here and removed by the next record_applied.lua.
-- KEYS[1] applied hash, KEYS[2] applied-until zset
-- Returns {client id, record JSON, expiry (epoch ms), ...} of every record whose expiry is after now (Redis time).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf', 'WITHSCORES')
local out = {}
for i = 1, #live, 2 do
  local record = redis.call('HGET', KEYS[1], live[i])
  if record then
    out[#out + 1] = live[i]
    out[#out + 1] = record
    out[#out + 1] = live[i + 1]
  end
end
return out
