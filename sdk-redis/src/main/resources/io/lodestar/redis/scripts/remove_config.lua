-- remove_config: removes the current entry of a config. Its history and its revision counter stay, so it can be
-- rolled back and its version numbers go on. A current hash another program corrupted is removed too.
-- KEYS[1] current hash, KEYS[2] history hash, KEYS[3] versions zset, KEYS[4] revision counter,
-- KEYS[5] events shard channel, KEYS[6] incarnation (see common.lua), KEYS[7] audit log stream, KEYS[8..10] gray
-- keys (unused here: a gray release outlives a remove, but applies to nobody while the config is absent)
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

local stamp = config_stamp(k) -- read before the first write
local previous = redis.call('HGET', k.current, 'version')
if expected >= 0 and tonumber(previous or 0) ~= expected then
  return {'conflict', tonumber(previous or 0)}
end
if not previous then
  return {0, stamp.rev}
end
audit(k, 'remove', '', previous, stamp.rev + 1)
redis.call('DEL', k.current)
local version = next_revision(stamp)
save_stamp(stamp)
redis.call('SPUBLISH', k.channel, '{"type":"removed","rev":' .. version .. ',"id":' .. cjson.encode(id) .. ',"inc":"'
  .. stamp.inc .. '"}')
return {1, version}
