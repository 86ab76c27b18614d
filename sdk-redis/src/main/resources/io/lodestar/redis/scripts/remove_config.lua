-- remove_config: removes the current entry of a config. Its history and its revision counter stay, so it can be
-- rolled back and its version numbers go on.
-- KEYS[1] current hash, KEYS[2] history hash, KEYS[3] versions zset, KEYS[4] revision counter,
-- KEYS[5] events shard channel, KEYS[6] incarnation (see common.lua)
-- ARGV[1] config id
-- Returns {1, version of the removal} when there was a current entry, else {0, current revision}.
-- Publishes {"type":"removed","rev":<version>,"id":...,"inc":...} when it removed something.
--#include common.lua
--#include config_common.lua
--#include checks.lua
local k = config_keys()
check_keys(k.current, 'hash', k.history, 'hash', k.versions, 'zset', k.revision, 'counter', k.incarnation,
  'string')
check_number_field(k.current, 'version')
local id = ARGV[1]

if redis.call('DEL', k.current) == 0 then
  return {0, current_revision(k.revision)}
end
local inc = incarnation(k.incarnation)
local version = redis.call('INCR', k.revision)
redis.call('SPUBLISH', k.channel, '{"type":"removed","rev":' .. version .. ',"id":' .. cjson.encode(id) .. ',"inc":"'
  .. inc .. '"}')
return {1, version}
