-- update_gray: replaces the content, format and rule of a config's running gray release. Its salt stays, so a
-- larger percentage only adds instances (see GrayRule.java).
-- KEYS[1..7] the entry's keys (Keys.ConfigKeys.all(), one hash tag)
-- ARGV[1] config id, ARGV[2] content, ARGV[3] format, ARGV[4] rule (text form), ARGV[5] writer's client name,
-- ARGV[6] its host
-- Returns {'missing'} when there is no release; {'unchanged', release JSON} when content, format and rule are the
-- release's (nothing written); else {'updated', release JSON}.
-- Publishes {"type":"gray",...,"gray":<release JSON>} on the gray channel; appends a "gray-update" audit record.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, content, format, rule = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local gray, stored = gray_release(k)
if not gray then
  return {'missing'}
end
local hash = redis.sha1hex(content)
if gray.hash == hash and gray.format == format and gray.rule == rule then
  return {'unchanged', stored}
end
local version, _, _, _, _, entry_stamp = current_header(k)
local stamp = gray_stamp(k, entry_stamp)
local now = now_ms()
audit(k, 'gray-update', hash, version, version)
gray.content, gray.format, gray.hash, gray.rule, gray.rev, gray.updatedAt = content, format, hash, rule,
  stamp.rev + 1, now
local release = cjson.encode(gray)
redis.call('SET', k.gray, release)
publish_gray(k, stamp, 'gray', id, ',"gray":' .. release)
return {'updated', release}
