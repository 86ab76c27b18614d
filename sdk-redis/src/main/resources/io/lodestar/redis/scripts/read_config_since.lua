-- read_config_since: reads a config's current entry and every kept version after a given one, atomically, so a
-- view that missed events (a lost message, a reconnect, a reconcile) can replay them to its listeners in order.
-- Writes nothing.
-- KEYS[1] current hash, KEYS[2] revision counter, KEYS[3] history hash, KEYS[4] versions zset,
-- KEYS[5] incarnation (see common.lua)
-- ARGV[1] the version the view holds
-- Returns {revision, oldest kept version (0 = none), 1 if there is a current entry else 0,
-- the current entry's JSON when it is not newer than ARGV[1] (else '': it is the last of the list),
-- incarnation ('' when none), then the entry JSON of every kept version newer than ARGV[1], oldest first}.
local since = tonumber(ARGV[1])
local revision = tonumber(redis.call('GET', KEYS[2]) or '0')
local oldest = redis.call('ZRANGE', KEYS[4], 0, 0)
local result = {revision, tonumber(oldest[1] or '0'), 0, '', redis.call('GET', KEYS[5]) or ''}
local version = redis.call('HGET', KEYS[1], 'version')
if version then
  result[3] = 1
  if tonumber(version) <= since then
    result[4] = redis.call('HGET', KEYS[3], version)
    if not result[4] then -- not in history (written by an older layout?): build it from the current hash
      local e = redis.call('HMGET', KEYS[1], 'format', 'hash', 'createdAt', 'updatedAt', 'content')
      result[4] = cjson.encode({version = tonumber(version), format = e[1], hash = e[2], createdAt = tonumber(e[3]),
        updatedAt = tonumber(e[4]), content = e[5]})
    end
  end
end
local newer = redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. since, '+inf')
if #newer > 0 then
  for _, entry in ipairs(redis.call('HMGET', KEYS[3], unpack(newer))) do
    if entry then
      result[#result + 1] = entry
    end
  end
end
return result
