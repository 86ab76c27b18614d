-- purge_config: removes the keys a removed config left behind (history, kept versions, version counter,
-- incarnation), so configs that are gone for good cost Redis nothing. Refused while the config exists (remove it
-- first). A config set again afterwards starts over at version 1 under a new incarnation (see common.lua), with no
-- history: what was purged cannot be rolled back to.
-- KEYS[1] current hash, KEYS[2] history hash, KEYS[3] versions zset, KEYS[4] revision counter,
-- KEYS[5] events shard channel, KEYS[6] incarnation, KEYS[7] audit log stream, KEYS[8] gray release,
-- KEYS[9] gray revision, KEYS[10] gray channel (the keys of one entry share their hash tag)
-- ARGV[1] config id
-- The gray release, its counter and the audit log go too: a purged config costs Redis nothing.
-- Returns {'conflict', current version} while the config exists (nothing written); else
-- {'purged', revision the config had (0 = none), number of keys removed}.
-- Publishes {"type":"purged","rev":<that revision>,"id":...,"inc":...} when the config had a revision, so views
-- holding it re-read it (they then hold it absent at revision 0); the same on the gray channel when it ever had a
-- gray release.
--#include common.lua
--#include config_common.lua
--#include checks.lua
local k = config_keys()
check_keys(k.current, 'hash', k.history, 'hash', k.versions, 'zset', k.revision, 'counter', k.incarnation, 'string')
check_number_field(k.current, 'version')
local id = ARGV[1]

local version = current_header(k.current)
if version > 0 then
  return {'conflict', version}
end
local revision = current_revision(k.revision)
local inc = redis.call('GET', k.incarnation)
local gray_revision = current_revision(k.gray_revision)
local removed = redis.call('DEL', k.current, k.history, k.versions, k.revision, k.incarnation, k.log, k.gray,
  k.gray_revision)
if revision > 0 then
  local event = '{"type":"purged","rev":' .. revision .. ',"id":' .. cjson.encode(id)
  if inc then
    event = event .. ',"inc":"' .. inc .. '"'
  end
  redis.call('SPUBLISH', k.channel, event .. '}')
end
if gray_revision > 0 then -- views holding a gray release of these keys drop it
  local event = '{"type":"purged","rev":' .. gray_revision .. ',"id":' .. cjson.encode(id)
  if inc then
    event = event .. ',"inc":"' .. inc .. '"'
  end
  redis.call('SPUBLISH', k.gray_channel, event .. '}')
end
return {'purged', revision, removed}
