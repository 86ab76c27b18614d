-- renew_instance: moves an ephemeral instance's deadline to now + its TTL: a lease's renewal only while the stored
-- registration is its client's (the owner token, see with_owner in instances.lua), an explicit renewal whichever
-- registration the id holds. Publishes nothing (heartbeats would flood every view), so a view keeps an instance
-- until an "expired" or "deregistered" event says otherwise. Renewals are most of a fleet's steady writes, so this is
-- the cheapest write (it includes only the helpers it calls): its usual path runs HGET, ZSCORE (the due entry), TIME
-- and ZADD, and leaves the due set alone while its entry is at least half a TTL ahead (see below). An instance past
-- its deadline that the sweep has not removed yet is renewed too: no view dropped it (views drop an instance on its
-- event only), and after an outage this is how owners keep what the sweep's grace spared (see sweep_service.lua).
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] events shard channel, KEYS[4] tombstones zset,
-- KEYS[5] the bucket's due set (see file_due in due.lua)
-- ARGV[1] instance id, ARGV[2] the owner token of the lease renewing it, or '' for an explicit renewal,
-- ARGV[3] the lease's TTL in ms (its registration's: only read with an owner token)
-- Returns 1 when renewed (or persistent and present); 0 when the instance is gone (it expired, or Redis lost it:
-- its owner registers it again); -1 when it is gone because it was deregistered or evicted (its owner stops); -2
-- when another owner's registration holds the id (nothing renewed: the lease stops, that registration is its
-- owner's to renew).
--#include basics.lua
--#include instances.lua
--#include stored.lua
--#include due.lua
-- True while a deregistration or eviction of the instance is remembered; forgets tombstones that have run out.
local function tombstoned(tombstones, id, now)
  redis.call('ZREMRANGEBYSCORE', tombstones, '-inf', '(' .. now)
  return redis.call('ZSCORE', tombstones, id) ~= false
end

local instances, deadlines = KEYS[1], KEYS[2]
local id, owner = ARGV[1], ARGV[2] or '' -- no owner (an older caller): an explicit renewal

-- Everything read before the first write (each read proves its key's type, see common.lua).
local stored = redis.call('HGET', instances, id)
local filed = redis.call('ZSCORE', KEYS[5], instances)
if not stored then
  local now = now_ms()
  local deadline = redis.call('ZSCORE', deadlines, id)
  local removed = tombstoned(KEYS[4], id, now) -- its first write: tombstones is the one key not read before
  if deadline then
    redis.call('ZREM', deadlines, id) -- a deadline left without its instance
    file_due(deadlines, filed, deadline, nil, now, false)
  end
  return removed and -1 or 0
end
local ttl
if owner ~= '' then
  local suffix = owner_suffix(owner)
  if string.sub(stored, -#suffix) ~= suffix then
    return -2
  end
  ttl = tonumber(ARGV[3])
else
  ttl = ttl_of(stored)
end
if ttl > 0 then
  local now = now_ms()
  redis.call('ZADD', deadlines, digits(now + ttl), id) -- the first write: deadlines is the one key not read before
  -- The due entry may stay early, never late (see file_due in due.lua): in a steady fleet the instance renewing is
  -- mostly the one holding the earliest deadline, and refiling the entry on each renewal cost every renewal a ZRANGE
  -- and often a ZADD. It is refiled only when it is less than half a TTL ahead, so the sweep still never looks at a
  -- service whose instances keep renewing (renewals come every third of a TTL); or when it is missing or later than
  -- the new deadline. An entry already due is left for the sweep, which files it again when it has looked.
  local score = filed and tonumber(filed)
  if not score or (score > now and (score < now + ttl / 2 or score > now + ttl)) then
    refile_due(deadlines, filed)
  end
end
return 1
