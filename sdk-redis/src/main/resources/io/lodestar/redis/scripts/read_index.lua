-- read_index: reads a namespace's service index or config index atomically (one layout: see index_service.lua
-- and index_config.lua). Writes nothing.
-- KEYS[1] index hash (service -> revision, or config id -> version; negative = removed), KEYS[2] index revision
-- counter, KEYS[3] the index's incarnation (see common.lua)
-- Returns {index revision (as stored), incarnation ('' when none), member1, member2, ...}: the services that have
-- instances, or the configs that exist (tombstones left out).
-- The revision as stored (the caller checks it, naming the key: tonumber would turn a corrupt one into nil and cut
-- the reply short); an entry that is not a number fails the read, naming the key and the field.
local result = {redis.call('GET', KEYS[2]) or '0', redis.call('GET', KEYS[3]) or ''}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local value = tonumber(all[i + 1])
  if not value then
    error({err = 'CORRUPT ' .. KEYS[1] .. ' field ' .. all[i] .. ' does not hold a number'})
  end
  if value > 0 then
    result[#result + 1] = all[i]
  end
end
return result
