-- register_instance: adds an instance to a service, or replaces it.
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset,
-- KEYS[3] events shard channel, KEYS[4] tombstones zset, KEYS[5] the bucket's due set (see file_due in due.lua)
-- ARGV[1] instance id, ARGV[2] instance JSON (a JSON object, without registeredAt and owner), ARGV[3] TTL in ms
-- (0 = persistent),
-- ARGV[4] "register": a registration, which clears a tombstone of the instance (whoever registers wants it back);
--         "renewal": an owner registering again an instance its renewal found gone, refused while a tombstone says
--         it was deregistered or evicted,
-- ARGV[5] the registering client's owner token (hex), stored with the instance for its lease (see with_owner; none:
-- no lease renews it), ARGV[6] the write's token, the digest of its event (see publish in stamps.lua; none: SHA-1)
-- Returns {revision, kind, registeredAt ms, 1 when the instance is the service's first (else 0)}; kind is registered,
-- updated or unchanged, or deregistered (only for a refused "renewal": nothing written, registeredAt 0).
-- Publishes "registered" (new, or back after expiry) or "updated" (fields changed); nothing when what readers see
-- is unchanged, in which case only the deadline moves (and the owner, if another client registered it). An overdue
-- old copy is expired first, so views see it leave and come back.
--#include common.lua
local instances, deadlines, channel, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, json, ttl, mode, owner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
if string.sub(json, 1, 1) ~= '{' or string.sub(json, -1) ~= '}' or json == '{}' then
  return redis.error_reply('ERR lodestar: the instance must be a non-empty JSON object')
end
local now = now_ms()

-- Everything read before the first write (each read proves its key's type, see common.lua). A live instance's
-- deadline is read (is it overdue; does the due entry need lowering); a new instance's is written without reading it,
-- as the script's first write (ZADD, or ZREM of a deadline left without its instance), and its tombstone is read
-- instead, removed only when there is one. The due entry is read when the instance count may change; a live
-- instance registered again moves its deadline later (renewal-like) or earlier, and only the latter needs the due
-- entry, lowered by ZADD LT, the script's first write then.
local existing, stamp = read_service(instances, id, ARGV[6])
local fresh = not existing -- no copy at all (an overdue copy is expired below and counts as new from there)
local deadline = existing and redis.call('ZSCORE', deadlines, id)
local overdue = deadline and tonumber(deadline) < now
local tombstone = fresh and redis.call('ZSCORE', tombstones, id)
local filed = (not existing or overdue) and redis.call('ZSCORE', KEYS[5], instances)
local new_deadline = ttl > 0 and now + ttl or nil

if fresh then
  if mode == 'renewal' and tombstone and tonumber(tombstone) >= now then
    return {stamp.rev, 'deregistered', 0, 0} -- deregistered or evicted while its owner's renewal found it gone
  end
  if new_deadline then
    redis.call('ZADD', deadlines, digits(new_deadline), id) -- the first write: deadlines is not read before
  else
    redis.call('ZREM', deadlines, id)
  end
  if tombstone then
    redis.call('ZREM', tombstones, id) -- a registration clears it (or it had run out)
  end
elseif overdue then
  redis.call('HDEL', instances, id) -- overdue: views see it expire before it comes back
  publish(stamp, channel, 'expired', id, '')
  existing = nil
elseif new_deadline and (not deadline or new_deadline < tonumber(deadline)) then
  -- the first write; the entry stays at most every deadline (one already due stays due); a later deadline or none
  -- leaves it early at worst, which the sweep corrects when it looks
  redis.call('ZADD', KEYS[5], 'LT', digits(new_deadline), instances)
end

-- registeredAt: kept from a live copy; an entry another program wrote without one (or not JSON) counts as new
local registered_at = existing and tonumber(string.match(existing, '"registeredAt":(%d+)')) or now
-- the instance's JSON with registeredAt, up to its closing brace: readers' copy and the stored one (with the owner)
-- are made from it, not one from the other (each string a script makes costs Redis a hash of every byte)
local unclosed = string.sub(json, 1, -2) .. ',"registeredAt":' .. digits(registered_at)
local public = unclosed .. '}'
local stored = owner and unclosed .. owner_suffix(owner) or public
-- Whether the instance is the service's first: not when the due entry is filed in the future, since an entry is
-- then at most the deadline of an ephemeral instance the service has (file_due in due.lua; a service left empty has
-- its entry due now, or none), so only a service without a future entry counts its instances (HLEN).
local first = not existing and not (filed and tonumber(filed) > now) and instance_count(stamp) == 0

if not fresh then -- a live (or overdue) copy's deadline moves (a new instance's was the first write)
  if new_deadline then
    redis.call('ZADD', deadlines, digits(new_deadline), id)
  elseif deadline then
    redis.call('ZREM', deadlines, id)
  end
end
if not existing then
  file_due(deadlines, filed, nil, new_deadline, now, first)
end

if existing and same_public(existing, public) then
  if existing ~= stored then
    redis.call('HSET', instances, id, stored) -- another client's registration: only the owner changes
  end
  return {stamp.rev, 'unchanged', registered_at, 0}
end
local kind = existing and 'updated' or 'registered'
return {publish(stamp, channel, kind, id, '', public, id, stored), kind, registered_at,
  first and 1 or 0}
