-- read_index: reads a namespace's service index atomically. Writes nothing.
-- KEYS[1] index hash (service -> revision), KEYS[2] index revision counter
-- Returns {index revision, service1, service2, ...}.
local result = {tonumber(redis.call('GET', KEYS[2]) or '0')}
for _, service in ipairs(redis.call('HKEYS', KEYS[1])) do
  result[#result + 1] = service
end
return result
