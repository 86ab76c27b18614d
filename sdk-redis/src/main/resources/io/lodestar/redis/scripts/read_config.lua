-- read_config: reads the current entry of a config atomically, with its stamp. Writes nothing. Used by the view
-- (first load and resync).
-- KEYS[1] current hash (the entry and its stamp, see config_common.lua)
-- Returns {revision, incarnation ('' when none)} when there is no current entry (never set, or removed), else
-- {revision, incarnation, version, format, hash, createdAt, updatedAt, content}.
local names = {'version', 'format', 'hash', 'createdAt', 'updatedAt', 'content', ':revision', ':incarnation'}
local e = redis.call('HMGET', KEYS[1], unpack(names))
-- A field that is not a number would make the entry look absent or cut the reply short (a nil ends a Lua array):
-- fail, naming the field.
for _, i in ipairs({7, 1}) do
  if e[i] and not string.match(e[i], '^%d+$') then
    error({err = 'CORRUPT ' .. KEYS[1] .. ' field ' .. names[i] .. ' does not hold a number'})
  end
end
local revision, inc = tonumber(e[7] or '0'), e[8] or ''
if not e[1] then
  return {revision, inc}
end
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
