-- abort_gray: ends a config's gray release without changing the config: gray instances get the current version.
-- KEYS[1..10] the entry's keys (Keys.ConfigKeys.all(), one hash tag)
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
local version = current_header(k.current)
local stamp = read_stamp(k.gray_revision, k.incarnation)
audit(k, 'gray-abort', '', version, version)
redis.call('DEL', k.gray)
return {1, publish_gray(k, stamp, 'aborted', id, '')}
