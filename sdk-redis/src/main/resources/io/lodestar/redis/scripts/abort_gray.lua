-- abort_gray: ends a config's gray release without changing the config: gray instances get the current version.
-- KEYS[1..7] the entry's keys (Keys.ConfigKeys.all(), one hash tag)
-- ARGV[1] config id, ARGV[2] writer's client name, ARGV[3] its host
-- Returns {0} when there is no release, else {1, the release's last revision}.
-- Publishes {"type":"aborted",...} on the gray channel; appends a "gray-abort" audit record.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id = ARGV[1]

local gray = gray_release(k)
if not gray then
  return {0}
end
local version, _, _, _, _, entry_stamp = current_header(k)
local stamp = gray_stamp(k, entry_stamp)
audit(k, 'gray-abort', '', version, version)
redis.call('DEL', k.gray)
return {1, publish_gray(k, stamp, 'aborted', id, '')}
