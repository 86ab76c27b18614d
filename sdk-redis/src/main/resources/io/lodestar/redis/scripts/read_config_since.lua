-- read_config_since: reads one page of what a view that holds a given version of a config missed: the current
-- entry and the kept versions after that one, atomically, so the view can replay them to its listeners in order.
-- Writes nothing. A page stops once it holds ARGV[2] bytes of entries (but has at least one), so no reply comes near
-- Redis' output-buffer limits however large contents and history are; the caller asks for the next page with the
-- last version it got as ARGV[1] (each page is then a consistent read on its own, the last one the newest).
-- KEYS[1] current hash (with the entry's stamp), KEYS[2] history stream (see config_common.lua)
-- ARGV[1] the version the view holds (or the last one of the previous page), ARGV[2] page budget in bytes
-- Returns {revision (as stored; the caller checks it, naming the key), oldest kept version (0 = none), 1 if
-- there is a current entry else 0, the current entry's JSON when it is not newer than ARGV[1] (else '': it is the
-- last of the versions to come), incarnation ('' when none), 1 if more kept versions follow this page else 0,
-- then the entry JSON of the kept versions newer than ARGV[1] on this page, oldest first}.
--#include history.lua
local since, budget = tonumber(ARGV[1]), tonumber(ARGV[2])
local h = redis.call('HMGET', KEYS[1], 'version', ':revision', ':incarnation')
local result = {h[2] or '0', end_version(KEYS[2], false), 0, '', h[3] or '', 0}
local version = h[1]
if version and not string.match(version, '^%d+$') then
  error({err = 'CORRUPT ' .. KEYS[1] .. ' field version does not hold a number'})
end
if version then
  result[3] = 1
  if tonumber(version) <= since then
    result[4] = kept_json(KEYS[2], version)
    if not result[4] then -- not in history (its keys written by another program?): build it from the current hash
      local e = redis.call('HMGET', KEYS[1], 'format', 'hash', 'createdAt', 'updatedAt', 'content')
      result[4] = cjson.encode({version = tonumber(version), format = e[1], hash = e[2], createdAt = tonumber(e[3]),
        updatedAt = tonumber(e[4]), content = e[5]})
    end
  end
end
if append_page(result, KEYS[2], '(' .. since .. '-0', '+', false, #result[4], budget) then
  result[6] = 1
end
return result
