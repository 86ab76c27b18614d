-- read_config_history: reads the kept versions of a config atomically. Writes nothing.
-- KEYS[1] history hash, KEYS[2] versions zset
-- Returns the entry JSON of every kept version, newest first (see config_common.lua).
local versions = redis.call('ZREVRANGE', KEYS[2], 0, -1)
if #versions == 0 then
  return {}
end
local result = {}
for _, entry in ipairs(redis.call('HMGET', KEYS[1], unpack(versions))) do
  if entry then
    result[#result + 1] = entry
  end
end
return result
