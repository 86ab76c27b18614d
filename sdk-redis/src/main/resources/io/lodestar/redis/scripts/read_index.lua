-- read_index: reads a namespace's service index atomically. Writes nothing.
-- KEYS[1] index hash (service -> revision; negative = removed), KEYS[2] index revision counter,
-- KEYS[3] the index's incarnation (see common.lua)
-- Returns {index revision, incarnation ('' when none), service1, service2, ...}: the services that have instances (tombstones left out).
local result = {tonumber(redis.call('GET', KEYS[2]) or '0'), redis.call('GET', KEYS[3]) or ''}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if tonumber(all[i + 1]) > 0 then
    result[#result + 1] = all[i]
  end
end
return result
