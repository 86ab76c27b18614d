-- read_config: reads the current entry of a config atomically, with its revision counter. Writes nothing. Used by
-- the view (first load and resync).
-- KEYS[1] current hash, KEYS[2] revision counter, KEYS[3] incarnation (see common.lua)
-- Returns {revision, incarnation ('' when none)} when there is no current entry (never set, or removed), else
-- {revision, incarnation, version, format, hash, createdAt, updatedAt, content}.
--#include checks.lua
check_keys(KEYS[1], 'hash', KEYS[2], 'counter')
check_number_field(KEYS[1], 'version') -- else a corrupt version would make the entry look absent
local revision = tonumber(redis.call('GET', KEYS[2]) or '0')
local inc = redis.call('GET', KEYS[3]) or ''
local names = {'version', 'format', 'hash', 'createdAt', 'updatedAt', 'content'}
local e = redis.call('HMGET', KEYS[1], unpack(names))
if not e[1] then
  return {revision, inc}
end
-- A field missing or a time that is not a number would cut the reply short (a nil ends a Lua array) and make the
-- entry look absent: fail, naming the field.
for i = 2, 6 do
  if not e[i] then
    error({err = 'CORRUPT ' .. KEYS[1] .. ' field ' .. names[i] .. ' is missing'})
  end
end
for _, i in ipairs({4, 5}) do
  if not string.match(e[i], '^%d+$') then
    error({err = 'CORRUPT ' .. KEYS[1] .. ' field ' .. names[i] .. ' does not hold a number'})
  end
end
return {revision, inc, tonumber(e[1]), e[2], e[3], tonumber(e[4]), tonumber(e[5]), e[6]}
