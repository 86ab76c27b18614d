-- common: helpers prepended to every service script (not a script of its own).
-- Time is always Redis' own (TIME), never a client clock. Instances are stored as JSON in the
-- instances hash; ephemeral ones also have a deadline (epoch ms) in the deadlines sorted set.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Bumps the service revision and announces one change on the service's shard channel.
-- body is the event's JSON fields after "type" and "rev" (with a leading comma), or ''.
-- The event carries "digest": SHA-1 of the previous digest and the event, kept in KEYS[5] next to the revision.
-- A view that applied a forged event at some revision sees the real event of that revision (or its reconcile sees
-- Redis) carry another digest, and resyncs.
local function announce(rev_key, channel, kind, id, body)
  local rev = redis.call('INCR', rev_key)
  local event = '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id) .. body
  local digest = redis.sha1hex((redis.call('GET', KEYS[5]) or '') .. event)
  redis.call('SET', KEYS[5], digest)
  redis.call('SPUBLISH', channel, event .. ',"digest":"' .. digest .. '"}')
  return rev
end

-- Removes an instance whose deadline has passed and announces it as expired. Returns the new revision.
local function expire(instances, deadlines, rev_key, channel, id)
  redis.call('HDEL', instances, id)
  redis.call('ZREM', deadlines, id)
  return announce(rev_key, channel, 'expired', id, '')
end

-- True when the instance is ephemeral and its deadline has passed.
local function overdue(deadlines, id, now)
  local deadline = redis.call('ZSCORE', deadlines, id)
  return deadline ~= false and deadline ~= nil and tonumber(deadline) < now
end

local function current_revision(rev_key)
  return tonumber(redis.call('GET', rev_key) or '0')
end
