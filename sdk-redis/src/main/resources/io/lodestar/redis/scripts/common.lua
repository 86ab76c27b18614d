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

-- The incarnation of a topic's keys (a service's, a config entry's): an id made by the first write that finds the
-- key missing, kept next to the revision counter, carried by every event ("inc") and returned by every read. Keys
-- that were lost (deleted, restored from an old backup, a failover to a replica that never had them) and written
-- again count their revision from 1 under a new incarnation, so a view holding a higher revision of the old one
-- can tell "a duplicate" from "another history" and re-read. Unique without math.random (the same sequence in every
-- script run on older Redis): the server's clock in microseconds and the key name; scripts replicate their effects,
-- so a replica stores the same id.
local function incarnation(key)
  local id = redis.call('GET', key)
  if not id then
    local t = redis.call('TIME')
    id = string.sub(redis.sha1hex(key .. ':' .. t[1] .. ':' .. t[2]), 1, 16)
    redis.call('SET', key, id)
  end
  return id
end

-- Bumps the service revision and announces one change on the service's shard channel.
-- body is the event's JSON fields after "type" and "rev" (with a leading comma), or ''.
-- The event carries "digest": SHA-1 of the previous digest and the event, kept in KEYS[6] next to the revision.
-- A view that applied a forged event at some revision sees the real event of that revision (or its reconcile sees
-- Redis) carry another digest, and resyncs. It carries "inc" too: the incarnation kept in KEYS[7] (see above).
local function announce(rev_key, channel, kind, id, body)
  local inc = incarnation(KEYS[7])
  local rev = redis.call('INCR', rev_key)
  local event = '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id) .. body
  local digest = redis.sha1hex((redis.call('GET', KEYS[6]) or '') .. event)
  redis.call('SET', KEYS[6], digest)
  redis.call('SPUBLISH', channel, event .. ',"digest":"' .. digest .. '","inc":"' .. inc .. '"}')
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

-- A stored instance's JSON decoded, or nil when it is not a JSON object (another program wrote it): what a script
-- cannot read it still removes (deregister, evict, expiry), and it never stops a script after its first write.
local function decoded(stored)
  local ok, instance = pcall(cjson.decode, stored)
  if ok and type(instance) == 'table' then
    return instance
  end
  return nil
end

-- The TTL (ms) an instance was registered with, from its stored JSON; 0 when it is persistent, absent or unreadable.
local function stored_ttl(instances, id)
  local stored = redis.call('HGET', instances, id)
  local instance = stored and decoded(stored)
  return instance and tonumber(instance.ttl) or 0
end

-- Files the service in its bucket's due set (KEYS[8]) at its earliest deadline, or takes it out when it has no
-- ephemeral instance left.
local function refile_due(deadlines)
  local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
  if first[2] then
    redis.call('ZADD', KEYS[8], first[2], KEYS[1])
  else
    redis.call('ZREM', KEYS[8], KEYS[1])
  end
end

-- Keeps the service's entry in its bucket's due set (KEYS[8]; the member is the instances key, KEYS[1]) in step, so
-- the sweep looks at a service only when something of it may need doing: the entry's score is the earliest
-- deadline of the service's instances (no ephemeral instance: no entry). Called by every write that changes
-- deadlines or the instance count, after its change. appeared_or_vanished: the write took the instance count from 0
-- to 1 or from 1 to 0, which its writer reports to the namespace index in a second call (another slot) that a crash
-- could prevent; the service is then due now, so the next sweep reports the count instead. An entry already due
-- (its time has come) is left for the sweep, which files it again when it has looked.
local function file_due(deadlines, now, appeared_or_vanished)
  local filed = redis.call('ZSCORE', KEYS[8], KEYS[1])
  if filed and tonumber(filed) <= now then
    return
  end
  if appeared_or_vanished then
    redis.call('ZADD', KEYS[8], now, KEYS[1])
  else
    refile_due(deadlines)
  end
end

-- The stored form of an instance: its public JSON (what events carry and readers read) with, last, the token of the
-- client whose lease renews it ("owner", see renew_instance.lua), which readers skip and events never carry.
local function with_owner(public, owner)
  return string.sub(public, 1, -2) .. ',"owner":"' .. owner .. '"}'
end

-- The public JSON of a stored instance (see with_owner); an entry written without an owner is all public.
local function without_owner(stored)
  return string.match(stored, '^(.*),"owner":"%x*"}$') or stored
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

-- The namespace's outages (kept by elect_sweeper.lua in lodestar:{ns}:outage) as {began, ended} pairs (epoch ms,
-- Redis time), from their text "began:ended,began:ended,...". A bare number is what clients of an older version
-- note ("a client came back then"): an outage of unknown beginning, {0, number}. Absent or unreadable: none.
local function outages_of(text)
  local outages = {}
  if not text or text == '' then
    return outages
  end
  local legacy = tonumber(text)
  if legacy then
    return {{0, legacy}}
  end
  for began, ended in string.gmatch(text, '(%d+):(%d+)') do
    outages[#outages + 1] = {tonumber(began), tonumber(ended)}
  end
  return outages
end

-- Deletes a key of the sweep's own state (the sweep lock, the outage list, the next full pass, a bucket's due set)
-- that holds another type than Lodestar keeps there (another program wrote it): every command on it would fail
-- (WRONGTYPE), and with it every sweep round, for good. The state is ephemeral or rebuilt by the sweep (a due set
-- from its services, see Sweeper), so replacing it loses at most one interval. Returns the type it found, or nil.
local function replace_corrupt(key, want)
  local have = redis.call('TYPE', key).ok
  if have ~= 'none' and have ~= want then
    redis.call('DEL', key)
    return have
  end
  return nil
end

-- Keeps, in a bucket's master key (see Keys.master), the replication id of the Redis master the sweep runs on, and
-- returns since when (epoch ms, Redis time) the sweep has run on this master after running on another one (a
-- failover, a restart), or nil when it never saw another. A killed master takes along the writes it acknowledged
-- but had not replicated, renewals among them: the promoted replica holds older deadlines, some already past, which
-- is why the sweep treats a new master as an outage (see sweep_service.lua).
local function new_master_since(key, now)
  local id = string.match(redis.call('INFO', 'replication'), 'master_replid:(%x+)') or ''
  local held = redis.call('HMGET', key, 'id', 'since') -- false where absent
  if held[1] == id then
    return tonumber(held[2])
  end
  if held[1] then
    redis.call('HSET', key, 'id', id, 'since', now)
    return now
  end
  redis.call('HSET', key, 'id', id)
  return tonumber(held[2])
end
