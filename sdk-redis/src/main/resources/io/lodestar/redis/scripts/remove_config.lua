-- remove_config: removes the current entry of a config. Its history and its stamp (in the current hash) stay, so it
-- can be rolled back and its version numbers go on. A current entry another program corrupted is removed too.
-- KEYS[1] current hash (with the entry's stamp), KEYS[2] history stream, KEYS[3] events shard channel, KEYS[4] audit
-- log stream, KEYS[5..7] gray keys (unused here: a gray release outlives a remove, but applies to nobody while the
-- config is absent)
-- ARGV[1] config id, ARGV[2] expected version: -1 = remove in any case, n = only if the current version is n,
-- ARGV[3] writer's client name, ARGV[4] its host
-- Returns {1, version of the removal} when there was a current entry, else {0, current revision}; with an expected
-- version that is not the current one, {'conflict', current version (0 = none)} and nothing is written.
-- Publishes {"type":"removed","rev":<version>,"id":...,"inc":...} and appends a "remove" audit record when it
-- removed something.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, expected = ARGV[1], tonumber(ARGV[2])

-- Read before the first write: the version alone, not current_header, so that a corrupt header is removed too.
local h = redis.call('HMGET', k.current, 'version', ':revision', ':incarnation')
local previous = h[1]
if expected >= 0 and tonumber(previous or 0) ~= expected then
  return {'conflict', tonumber(previous or 0)}
end
local stamp = entry_stamp(k.current, h[2], h[3])
if not previous then
  return {0, stamp.rev}
end
audit(k, 'remove', '', previous, stamp.rev + 1)
local version = next_revision(stamp)
redis.call('HDEL', k.current, 'version', 'format', 'hash', 'createdAt', 'updatedAt', 'content')
save_new_incarnation(k, stamp) -- an entry another program wrote
redis.call('HSET', k.current, ':revision', digits(version))
redis.call('SPUBLISH', k.channel, '{"type":"removed","rev":' .. version .. ',"id":' .. cjson.encode(id) .. ',"inc":"'
  .. stamp.inc .. '"}')
return {1, version}
