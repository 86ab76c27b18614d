-- deregister_instance: removes an instance on request (its owner's deregister, or another client's or an
-- operator's deregister or evict) and leaves a tombstone, so its owner's next renewal stops instead of registering
-- it again. The tombstone outlives the instance's own lease several times over (its owner renews every third of
-- it), and is written even when nothing was registered, so a removal racing a re-registration after expiry sticks.
-- An entry another program wrote that is not an instance's JSON is removed too (its tombstone lasts ARGV[2]).
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset,
-- KEYS[3] events shard channel, KEYS[4] tombstones zset, KEYS[5] the bucket's due set (see file_due in due.lua)
-- ARGV[1] instance id, ARGV[2] shortest time to keep the tombstone, in ms, ARGV[3] 'evict' for an operator's evict,
-- 'deregister' otherwise, ARGV[4] the write's token, the digest of its event (see publish in stamps.lua; none: SHA-1)
-- Returns {revision, removed (1/0), instance count}. Publishes "deregistered" when something was removed, with
-- "evicted":true for an evict: the same type, so a client of an earlier version (which ignores the field) still
-- applies it as the removal it is; a deregister's event is as it was, and a view reads a missing field as false.
--#include common.lua
--#include stored.lua
local instances, deadlines, tombstones = KEYS[1], KEYS[2], KEYS[4]
local id, keep, evicted = ARGV[1], tonumber(ARGV[2]), ARGV[3] == 'evict'
local now = now_ms()

-- Everything read before the first write (each read proves its key's type, see common.lua). The count is read
-- before, so the due entry is read (and written) only by the deregistration that leaves the service empty.
local stored, stamp = read_service(instances, id, ARGV[4])
local deadline = redis.call('ZSCORE', deadlines, id)
local count = instance_count(stamp)
local vanishes = stored and count == 1
local filed = vanishes and redis.call('ZSCORE', KEYS[5], instances)

local keep_until = now + math.max(keep, 3 * (stored and ttl_of(stored) or 0))
redis.call('ZADD', tombstones, digits(keep_until), id) -- the first write: tombstones is the one key not read before
-- A purge (purge_service.lua) leaves the key to expire with its last tombstone, and only a service without a stamp
-- (new, or purged) can have such a key: the first stamp makes it persist (save_stamp in stamps.lua).
local ttl = not stamp.inc and redis.call('PTTL', tombstones)
if ttl and ttl > 0 and ttl < keep_until - now then
  redis.call('PEXPIRE', tombstones, keep_until - now + 1)
end
-- A removed deadline leaves the due entry early at worst, which the sweep corrects when it looks: only a service
-- left without instances is filed (due now, see file_due in due.lua).
if deadline then
  redis.call('ZREM', deadlines, id)
end
if not stored then
  return {stamp.rev, 0, count}
end
redis.call('HDEL', instances, id)
if vanishes then
  file_due(deadlines, filed, deadline, nil, now, true)
end
return {publish(stamp, KEYS[3], 'deregistered', id, evicted and ',"evicted":true' or ''), 1, count - 1}
