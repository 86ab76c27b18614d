-- index_service: keeps the namespace's service index in step with a service's instance count. The index lives in
-- the namespace's slot, the instances in the service's slot, so it cannot change in the same script as the
-- instances: every write that changes a count reports (revision, count) here, and the service revision orders
-- the reports, so a late report can never undo a newer one. A service with no instances left stays as a tombstone
-- (its revision, negated) for the same reason: a late "count=1" report cannot list an empty service again.
-- KEYS[1] index hash (service -> revision last reported; negative = removed at that revision),
-- KEYS[2] index revision counter, KEYS[3] index channel, KEYS[4] the index's incarnation (see common.lua)
-- ARGV[1] service id, ARGV[2] service revision, ARGV[3] instance count
-- Returns 1 when the set of services changed (and announced it as "added"/"removed"), else 0.
--#include basics.lua
--#include stamps.lua
local index, channel = KEYS[1], KEYS[3]
local service, revision, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
-- a field that is not a number (another program wrote it) counts as absent: the report overwrites it, so it can
-- never fail after the service's own write
local known = tonumber(redis.call('HGET', index, service)) or 0

if known ~= 0 and revision < math.abs(known) then
  return 0 -- a late report: a newer one was already applied
end
local listed = count > 0
if (known > 0) == listed then
  redis.call('HSET', index, service, listed and revision or -revision)
  return 0
end
local stamp = read_stamp(KEYS[2], KEYS[4]) -- before the first write
redis.call('HSET', index, service, listed and revision or -revision)
local rev = next_revision(stamp)
save_stamp(stamp)
redis.call('SPUBLISH', channel, '{"type":"' .. (listed and 'added' or 'removed') .. '","rev":' .. rev .. ',"id":'
  .. cjson.encode(service) .. ',"inc":"' .. stamp.inc .. '"}')
return 1
