-- set_config: makes new content the current entry of a config, as its next version; optionally compare-and-set.
-- KEYS[1] current hash (with the entry's stamp), KEYS[2] history stream, KEYS[3] events shard channel, KEYS[4] audit
-- log stream, KEYS[5..7] gray keys (unused here) (see config_common.lua; the keys of one entry share their hash tag)
-- ARGV[1] config id, ARGV[2] content, ARGV[3] format, ARGV[4] history limit,
-- ARGV[5] expected version: -1 = set in any case, 0 = only if there is no current entry, n = only if it is n,
-- ARGV[6] the content hash, computed by the client (ConfigCodec.java): the SHA-1 (hex) of a plain content, a keyed
-- hash of an encrypted content's plaintext (not computed here: over a config's size it is a sizeable part of the
-- script's Redis time),
-- ARGV[7] writer's client name, ARGV[8] writer's host (the audit record's: the last two, see config_common.lua)
-- Returns {'conflict', current version (0 = none)} when the expected version is not the current one;
-- {'unchanged', version, hash, createdAt, updatedAt} when content and format equal the current entry's (then
-- nothing is written and nothing published); else {'created' (there was no current entry) or 'changed', version,
-- hash, createdAt, updatedAt}.
-- Publishes "changed" with the new entry (see config_common.lua) and appends a "set" or "cas" audit record when
-- it wrote a version.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, content, format, limit, expected = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])

local version, hash, current_format, created_at, updated_at, stamp = current_header(k)
if expected >= 0 and expected ~= version then
  return {'conflict', version}
end
local new_hash = ARGV[6]
if new_hash == '' then -- an unchanged set is told by its hash: without one, any content would read as unchanged
  return redis.error_reply('ERR lodestar: set_config needs the content hash (ARGV[6])')
end
if version > 0 and hash == new_hash and current_format == format then
  return {'unchanged', version, hash, created_at, updated_at}
end
local now = now_ms()
if version == 0 then
  created_at = creation_time(k.history, now)
end
audit(k, expected >= 0 and 'cas' or 'set', new_hash, version, stamp.rev + 1)
local new_version = write_version(k, stamp, id, content, format, new_hash, created_at, now, limit, nil)
return {version == 0 and 'created' or 'changed', new_version, new_hash, created_at, now}
