-- common: helpers prepended to every service script (not a script of its own).
-- Time is always Redis' own (TIME), never a client clock. Instances are stored as JSON in the
-- instances hash; ephemeral ones also have a deadline (epoch ms) in the deadlines sorted set. A deregistered or
-- evicted instance leaves a tombstone (id -> until, epoch ms) in the tombstones sorted set for a while, so its
-- owner's renewal can tell "removed on purpose" (stop renewing) from "expired or lost" (register again).
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function current_revision(rev_key)
  return tonumber(redis.call('GET', rev_key) or '0')
end

-- Bumps the service revision and announces one change on the service's shard channel.
-- body is the event's JSON fields after "type" and "rev" (with a leading comma), or ''.
-- The event carries "digest": SHA-1 of the previous digest and the event, kept in KEYS[6] next to the revision.
-- A view that applied a forged event at some revision sees the real event of that revision (or its reconcile sees
-- Redis) carry another digest, and resyncs.
local function announce(rev_key, channel, kind, id, body)
  local rev = redis.call('INCR', rev_key)
  local event = '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id) .. body
  local digest = redis.sha1hex((redis.call('GET', KEYS[6]) or '') .. event)
  redis.call('SET', KEYS[6], digest)
  redis.call('SPUBLISH', channel, event .. ',"digest":"' .. digest .. '"}')
  return rev
end

-- Removes an instance whose deadline has passed and announces it as expired (a deadline left without its instance
-- is only dropped: there is nothing to announce). Returns the revision after it.
local function expire(instances, deadlines, rev_key, channel, id)
  redis.call('ZREM', deadlines, id)
  if redis.call('HDEL', instances, id) == 0 then
    return current_revision(rev_key)
  end
  return announce(rev_key, channel, 'expired', id, '')
end

-- The TTL (ms) an instance was registered with, from its stored JSON; 0 when it is persistent or absent.
local function stored_ttl(instances, id)
  local stored = redis.call('HGET', instances, id)
  if not stored then
    return 0
  end
  return tonumber(cjson.decode(stored).ttl) or 0
end

-- True while a deregistration or eviction of the instance is remembered; forgets tombstones that have run out.
local function tombstoned(tombstones, id, now)
  redis.call('ZREMRANGEBYSCORE', tombstones, '-inf', '(' .. now)
  return redis.call('ZSCORE', tombstones, id) ~= false
end

-- True when the instance is ephemeral and its deadline has passed.
local function overdue(deadlines, id, now)
  local deadline = redis.call('ZSCORE', deadlines, id)
  return deadline ~= false and deadline ~= nil and tonumber(deadline) < now
end
