-- index_service: keeps the namespace's service index in step with a service's instance count. The index lives in
-- the namespace's slot, the instances in the service's slot, so it cannot change in the same script as the
-- instances: every write that changes a count reports (revision, count) here, and the service revision orders
-- the reports, so a late report can never undo a newer one. A service with no instances left is removed.
-- KEYS[1] index hash (service -> revision last reported), KEYS[2] index revision counter, KEYS[3] index channel
-- ARGV[1] service id, ARGV[2] service revision, ARGV[3] instance count
-- Returns 1 when the set of services changed (and announced it as "added"/"removed"), else 0.
--#include checks.lua
local index, rev_key, channel = KEYS[1], KEYS[2], KEYS[3]
check_keys(index, 'hash', rev_key, 'counter')
local service, revision, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local known = redis.call('HGET', index, service)

local function announce(kind)
  local rev = redis.call('INCR', rev_key)
  redis.call('SPUBLISH', channel, '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(service) .. '}')
  return 1
end

if count > 0 then
  if not known then
    redis.call('HSET', index, service, revision)
    return announce('added')
  end
  if tonumber(known) < revision then
    redis.call('HSET', index, service, revision)
  end
elseif known and tonumber(known) <= revision then
  redis.call('HDEL', index, service)
  return announce('removed')
end
return 0
