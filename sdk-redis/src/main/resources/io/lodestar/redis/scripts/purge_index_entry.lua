-- purge_index_entry: forgets a purged service or config in its namespace index (see purge_service.lua,
-- purge_config.lua). The index keeps a removed member as a tombstone (its last revision, negated) so that a late
-- report cannot list it again; once the member's keys are purged its revisions count from 1 again, and that
-- tombstone would hide its next life from the index. Run right after the purge, in the namespace's slot; a member
-- listed again meanwhile (its entry is positive, or newer than the purge) is left alone.
-- KEYS[1] index hash (member id -> revision last reported; negative = removed at that revision)
-- ARGV[1] member id, ARGV[2] the revision the member had when it was purged
-- Returns 1 when the entry was forgotten, else 0. Publishes nothing: the set of members does not change.
--#include checks.lua
check_keys(KEYS[1], 'hash')
local known = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if known < 0 and -known <= tonumber(ARGV[2]) then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
