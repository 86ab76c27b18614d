-- remove_config: removes the current entry of a config. Its history and its revision counter stay, so it can be
-- rolled back and its version numbers go on. A current hash another program corrupted is removed too.
-- KEYS[1] current hash, KEYS[2] history hash, KEYS[3] versions zset, KEYS[4] revision counter,
-- KEYS[5] events shard channel, KEYS[6] incarnation (see common.lua)
-- ARGV[1] config id
-- Returns {1, version of the removal} when there was a current entry, else {0, current revision}.
-- Publishes {"type":"removed","rev":<version>,"id":...,"inc":...} when it removed something.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id = ARGV[1]

local stamp = config_stamp(k) -- read before the first write (DEL, which cannot fail)
if redis.call('DEL', k.current) == 0 then
  return {0, stamp.rev}
end
local version = next_revision(stamp)
save_stamp(stamp)
redis.call('SPUBLISH', k.channel, '{"type":"removed","rev":' .. version .. ',"id":' .. cjson.encode(id) .. ',"inc":"'
  .. stamp.inc .. '"}')
return {1, version}
