-- start_gray: starts a gray release of a config: content, format and a rule (which instances get it instead of the
-- current version; every client evaluates the rule itself, see GrayRule.java). One release at a time.
-- KEYS[1..7] the entry's keys (Keys.ConfigKeys.all(): current, history, events, log, gray, gray revision, gray
-- channel; one hash tag)
-- ARGV[1] config id, ARGV[2] content, ARGV[3] format, ARGV[4] rule (text form, validated by the client),
-- ARGV[5] salt of the stable percentage, ARGV[6] writer's client name, ARGV[7] its host
-- Returns {'missing'} when the config has no current entry, {'conflict', release JSON} when it already has a
-- release (nothing written), else {'started', release JSON} (see gray_release in config_common.lua).
-- Publishes {"type":"gray",...,"gray":<release JSON>} on the gray channel; appends a "gray-start" audit record.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, content, format, rule, salt = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local version, _, _, _, _, entry_stamp = current_header(k)
if version == 0 then
  return {'missing'}
end
local _, existing = gray_release(k)
if existing then
  return {'conflict', existing}
end
local stamp = gray_stamp(k, entry_stamp)
local now = now_ms()
local hash = redis.sha1hex(content)
audit(k, 'gray-start', hash, version, version)
local release = cjson.encode({content = content, format = format, hash = hash, rule = rule, salt = salt,
  base = version, rev = stamp.rev + 1, startedAt = now, updatedAt = now})
redis.call('SET', k.gray, release)
publish_gray(k, stamp, 'gray', id, ',"gray":' .. release)
return {'started', release}
