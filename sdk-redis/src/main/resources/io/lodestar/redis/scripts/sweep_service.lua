-- sweep_service: removes the instances of one service whose deadline (Redis time) has passed, forgets
-- tombstones that ran out, and files the service in its bucket's due set again at its earliest deadline (the
-- sweeper runs it for the services whose due time has come, see due_services.lua). Idempotent: any client may
-- run it at any time; two sweepers racing remove each instance once. After an outage it spares what live owners
-- could not renew, and only that: an instance whose deadline had not passed when an outage began (its lease was
-- live then) is not expired before that outage's end + the allowance for owners to reconnect + the instance's own
-- TTL; its owner, once back, renews it at once. An instance already overdue when the outage began is expired as
-- usual, so outages that keep coming cannot keep a crashed owner's instance.
-- A change of the Redis master the script runs on (a failover, a restart; see new_master_since in sweep_state.lua) is an
-- outage that no client may have seen begin in time: a killed master takes the renewals it acknowledged but had not
-- replicated along, so the promoted replica holds older deadlines, some past before any client noticed. What lease
-- was live then cannot be told, so every overdue instance of the bucket is spared until the first sweep on the new
-- master + the allowance + its TTL: time for its owner to renew there.
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset,
-- KEYS[3] events shard channel, KEYS[4] tombstones zset, KEYS[5] the bucket's due set (see file_due in due.lua),
-- KEYS[6] the bucket's master key (see above)
-- ARGV[1] most overdue instances to look at in one call (bounds the script's run time), ARGV[2] the namespace's
-- outages (see outages_of in sweep_state.lua), ARGV[3] the allowance for owners to reconnect after an outage, in ms,
-- ARGV[4] how many overdue instances to pass over first (those an earlier call of the same round spared: they are
-- still overdue)
-- Returns {revision, instance count, expired count, spared count, the type the due set held if it was replaced
-- (see replace_corrupt in sweep_state.lua) else '', the same for the master key}; expired + spared = ARGV[1] means more
-- may be overdue, and the sweeper calls again. Publishes one "expired" event per removed instance.
--#include common.lua
--#include stored.lua
--#include sweep_state.lua
--#include checks.lua
-- The sweep's own helpers (only this script calls them, so the write scripts do not define them on every call).
-- The TTL (ms) an instance was registered with, from its stored JSON; 0 when it is persistent, absent or unreadable.
local function stored_ttl(instances, id)
  local stored = redis.call('HGET', instances, id)
  return stored and ttl_of(stored) or 0
end

-- Removes an instance whose deadline has passed and announces it as expired (a deadline left without its instance
-- is only dropped: there is nothing to announce), with the service's stamp (read before the first write).
local function expire(stamp, deadlines, channel, id)
  redis.call('ZREM', deadlines, id)
  if redis.call('HDEL', stamp.hash, id) == 1 then
    publish(stamp, channel, 'expired', id, '')
  end
end

local instances, deadlines, channel, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- the sweep's own state: not the service's concern
local replaced_due, replaced_master = replace_corrupt(KEYS[5], 'zset') or '', replace_corrupt(KEYS[6], 'hash') or ''
check_keys(instances, 'hash', deadlines, 'zset', tombstones, 'zset', KEYS[5], 'zset')
local _, stamp = read_service(instances)
local outages, allowance = outages_of(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()

local failover = new_master_since(KEYS[6], now)
if failover then
  outages[#outages + 1] = {0, failover}
end

-- When the grace of the outages that began while a lease with this deadline was live ends (0: none did).
local function grace_end(deadline, ttl)
  local ended = nil
  for _, outage in ipairs(outages) do
    if outage[1] <= deadline and (not ended or outage[2] > ended) then
      ended = outage[2]
    end
  end
  return ended and ended + allowance + ttl or 0
end

redis.call('ZREMRANGEBYSCORE', tombstones, '-inf', '(' .. now)
local due = redis.call('ZRANGEBYSCORE', deadlines, '-inf', '(' .. now, 'WITHSCORES', 'LIMIT', tonumber(ARGV[4]),
  tonumber(ARGV[1]))
local expired, spared = 0, 0
for i = 1, #due, 2 do
  local id = due[i]
  if now < grace_end(tonumber(due[i + 1]), stored_ttl(instances, id)) then
    spared = spared + 1
  else
    expire(stamp, deadlines, channel, id)
    expired = expired + 1
  end
end
refile_due(deadlines)
return {stamp.rev, instance_count(stamp), expired, spared, replaced_due, replaced_master}
