-- promote_gray: makes a config's gray content and format its next version and ends the release, in one step,
-- optionally only if the current version is the expected one (compare-and-set). Gray instances then hear nothing
-- (their content stays), the others hear the new version.
-- KEYS[1..7] the entry's keys (Keys.ConfigKeys.all(), one hash tag)
-- ARGV[1] config id, ARGV[2] expected version (-1 = any, 0 = only if there is no current entry, n),
-- ARGV[3] history limit, ARGV[4] writer's client name, ARGV[5] its host
-- Returns {'missing'} when there is no release; {'conflict', current version (0 = none)} when the expected version
-- is not the current one (nothing written); else {'promoted', entry JSON of the current entry} (when the gray
-- content and format already are the current entry's, no version is written, the release still ends).
-- Publishes "changed" on the entry's channel when it wrote a version (see write_version), then
-- {"type":"promoted",...,"version":<current version>} on the gray channel; appends a "gray-promote" audit record.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, expected, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local gray = gray_release(k)
if not gray then
  return {'missing'}
end
local version, hash, current_format, created_at, _, stamp = current_header(k)
if expected >= 0 and expected ~= version then
  return {'conflict', version}
end
local gray_revision = gray_stamp(k, stamp) -- its entry stamp is the same table: write_version may make an incarnation
local now = now_ms()
local unchanged = version > 0 and hash == gray.hash and current_format == gray.format
local entry = unchanged and kept_json(k.history, version) -- its JSON, when still kept
if version == 0 then
  created_at = creation_time(k.history, now)
end
audit(k, 'gray-promote', gray.hash, version, unchanged and version or stamp.rev + 1)
if not entry then
  version, entry = write_version(k, stamp, id, gray.content, gray.format, gray.hash, created_at, now, limit, nil)
end
redis.call('DEL', k.gray)
publish_gray(k, gray_revision, 'promoted', id, ',"version":' .. version)
return {'promoted', entry}
