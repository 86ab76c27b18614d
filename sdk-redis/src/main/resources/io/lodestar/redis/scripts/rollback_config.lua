-- rollback_config: makes the content and format of a kept version current again, as the next version. Works after
-- a remove too (the history outlives the current entry).
-- KEYS[1] current hash (with the entry's stamp), KEYS[2] history stream, KEYS[3] events shard channel, KEYS[4] audit
-- log stream, KEYS[5..7] gray keys (unused here)
-- ARGV[1] config id, ARGV[2] version to restore, ARGV[3] history limit, ARGV[4] writer's client name, ARGV[5] its
-- host
-- Returns {'missing', oldest kept version, newest kept version, kept count} (0, 0, 0 when none) when that version
-- is not in history; {'unchanged', current entry JSON} when the current entry already has that content and
-- format (nothing written, nothing published); else {'rolledback', new entry JSON}.
-- Publishes "rolledback" with the new entry and "from" (the restored version) when it wrote a version; the entry
-- JSON keeps "from" too, so a view that replays history can tell a rollback from a set. Appends a "rollback" audit
-- record when it wrote a version.
--#include basics.lua
--#include stamps.lua
--#include config_common.lua
local k = config_keys()
local id, target, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])

-- Everything read before the first write (each read proves its key's type, see common.lua).
local old = history_entry(k.history, target)
if not old then
  return {'missing', end_version(k.history, false), end_version(k.history, true), redis.call('XLEN', k.history)}
end
local version, hash, current_format, created_at, _, stamp = current_header(k)
if version > 0 and hash == old.hash and current_format == old.format then
  local current = kept_json(k.history, version)
  if current then
    return {'unchanged', current}
  end
end
local now = now_ms()
if version == 0 then
  created_at = creation_time(k.history, now)
end
audit(k, 'rollback', old.hash, version, stamp.rev + 1)
local _, entry = write_version(k, stamp, id, old.content, old.format, old.hash, created_at, now, limit,
  tonumber(target))
return {'rolledback', entry}
