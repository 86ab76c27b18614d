-- purge_config: removes the keys a removed config left behind (its current hash, which holds its stamp, and its
-- history), so configs that are gone for good cost Redis nothing. Refused while the config exists (remove it
-- first). A config set again afterwards starts over at version 1 under a new incarnation (see common.lua), with no
-- history: what was purged cannot be rolled back to.
-- KEYS[1] current hash (with the entry's stamp), KEYS[2] history stream, KEYS[3] events shard channel, KEYS[4] audit
-- log stream, KEYS[5] gray release, KEYS[6] gray revision, KEYS[7] gray channel (the keys of one entry share their
-- hash tag; see config_common.lua)
-- ARGV[1] config id
-- The gray release, its counter and the audit log go too: a purged config costs Redis nothing.
-- Returns {'conflict', current version} while the config exists (nothing written); else
-- {'purged', revision the config had (0 = none), number of keys removed}.
-- Publishes {"type":"purged","rev":<that revision>,"id":...,"inc":...} when the config had a revision, so views
-- holding it re-read it (they then hold it absent at revision 0); the same on the gray channel when it ever had a
-- gray release.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
--#include checks.lua
local k = config_keys()
check_keys(k.history, 'stream') -- the current hash's type is proven by current_header
local id = ARGV[1]

local version, _, _, _, _, stamp = current_header(k)
if version > 0 then
  return {'conflict', version}
end
local revision, inc = stamp.rev, stamp.inc
local gray_revision = current_revision(k.gray_revision)
local removed = redis.call('DEL', k.current, k.history, k.log, k.gray, k.gray_revision)
-- Tells the views of one channel that the entry is gone: {"type":"purged","rev":...,"id":...,"inc":...}.
local function announce_purged(channel, rev)
  redis.call('SPUBLISH', channel, '{"type":"purged","rev":' .. rev .. ',"id":' .. cjson.encode(id)
    .. (inc and ',"inc":"' .. inc .. '"' or '') .. '}')
end
if revision > 0 then
  announce_purged(k.channel, revision)
end
if gray_revision > 0 then -- views holding a gray release of these keys drop it
  announce_purged(k.gray_channel, gray_revision)
end
return {'purged', revision, removed}
