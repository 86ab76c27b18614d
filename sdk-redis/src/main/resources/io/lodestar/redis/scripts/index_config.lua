-- index_config: keeps the namespace's config index in step with one config entry. The index lives in the
-- namespace's slot, the entry in its own, so it cannot change in the entry's script: every write reports
-- (version, exists) here right after it, and the entry's version orders the reports, so a late report can never
-- undo a newer one. A removed entry stays as a tombstone (its removal version, negated) for the same reason.
-- KEYS[1] index hash (config id -> version; negative = removed at that version), KEYS[2] index revision counter,
-- KEYS[3] index shard channel, KEYS[4] the index's incarnation (see common.lua)
-- ARGV[1] config id, ARGV[2] entry version, ARGV[3] 1 = the entry exists at that version, 0 = it was removed,
-- ARGV[4] content hash (ignored when removed)
-- Returns the new index revision when the set of existing configs changed, else 0.
-- Publishes {"type":"added"|"removed","rev":<index revision>,"id":...,"version":n,"inc":...[,"hash":...]} on such a
-- change.
--#include basics.lua
--#include stamps.lua
local index, channel = KEYS[1], KEYS[3]
local id, version, exists, hash = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1', ARGV[4]

-- a field that is not a number (another program wrote it) counts as absent: the report overwrites it, so it can
-- never fail after the entry's own write
local known = tonumber(redis.call('HGET', index, id)) or 0
if known ~= 0 and version <= math.abs(known) then
  return 0
end
if (known > 0) == exists then
  redis.call('HSET', index, id, exists and version or -version)
  return 0
end
local stamp = read_stamp(KEYS[2], KEYS[4]) -- before the first write
redis.call('HSET', index, id, exists and version or -version)
local rev = next_revision(stamp)
save_stamp(stamp)
local body = ',"id":' .. cjson.encode(id) .. ',"version":' .. version .. ',"inc":"' .. stamp.inc .. '"'
if exists then
  redis.call('SPUBLISH', channel, '{"type":"added","rev":' .. rev .. body .. ',"hash":' .. cjson.encode(hash) .. '}')
else
  redis.call('SPUBLISH', channel, '{"type":"removed","rev":' .. rev .. body .. '}')
end
return rev
