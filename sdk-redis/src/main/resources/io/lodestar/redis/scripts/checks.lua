-- checks: included by every write script, which calls them before its first write (not a script of its own).
-- Redis does not roll a script back, so a key another program corrupted must stop a script before it writes, not
-- half-way through. The errors name the key, never its content.

-- Fails unless each key is absent or of its type; the type 'counter' is a string holding a non-negative integer.
-- Arguments: key1, type1, key2, type2, ...
local function check_keys(...)
  local spec = {...}
  for i = 1, #spec, 2 do
    local key, want = spec[i], spec[i + 1]
    local have = redis.call('TYPE', key).ok
    local base = want == 'counter' and 'string' or want
    if have ~= 'none' and have ~= base then
      error({err = 'WRONGTYPE ' .. key .. ' is a ' .. have .. ' where Lodestar keeps a ' .. base})
    end
    if have ~= 'none' and want == 'counter' and not string.match(redis.call('GET', key), '^%d+$') then
      error({err = 'CORRUPT ' .. key .. ' does not hold a revision number'})
    end
  end
end

-- Fails unless the hash field is absent or holds a non-negative integer.
local function check_number_field(key, field)
  local value = redis.call('HGET', key, field)
  if value and not string.match(value, '^%d+$') then
    error({err = 'CORRUPT ' .. key .. ' field ' .. field .. ' does not hold a number'})
  end
end
