-- stamps: a topic's revision, incarnation and digest, and its events (not a script of its own; see common.lua).
-- Needs basics.lua.

-- The incarnation of a topic's keys (a service's, a config entry's, an index's): an id made by the first write that
-- finds the key missing, kept next to the revision counter, carried by every event ("inc") and returned by every
-- read. Keys that were lost (deleted, restored from an old backup, a failover to a replica that never had them) and
-- written again count their revision from 1 under a new incarnation, so a view holding a higher revision of the old
-- one can tell "a duplicate" from "another history" and re-read. A new one is unique without math.random (the same
-- sequence in every script run on older Redis): the server's clock in microseconds and the key name; scripts
-- replicate their effects, so a replica stores the same id.
local function new_incarnation(key)
  local t = redis.call('TIME')
  return string.sub(redis.sha1hex(key .. ':' .. t[1] .. ':' .. t[2]), 1, 16)
end

-- A topic's stamp: its revision counter, incarnation and (for a service) digest, read in one MGET before the
-- script's first write. MGET answers nil for a key of another type as for a missing one, so a nil is looked at:
-- never on the usual path (a topic's keys are written together), once in the life of a new topic (one EXISTS),
-- and by TYPE only when a key is of another type. Fails, naming the key, on a revision that is not a number or a
-- key of another type (MSET would overwrite it).
local function read_stamp(rev_key, inc_key, digest_key)
  local keys = {rev_key, inc_key, digest_key}
  local v = redis.call('MGET', rev_key, inc_key, digest_key or rev_key)
  local n = digest_key and 3 or 2
  if not (v[1] and v[2] and v[n]) and redis.call('EXISTS', unpack(keys, 1, n)) > (v[1] and 1 or 0)
      + (v[2] and 1 or 0) + (n == 3 and v[3] and 1 or 0) then
    for i = 1, n do
      local have = not v[i] and redis.call('TYPE', keys[i]).ok
      if have and have ~= 'none' then
        error({err = 'WRONGTYPE ' .. keys[i] .. ' is a ' .. have .. ' where Lodestar keeps a string'})
      end
    end
  end
  if v[1] and not string.match(v[1], '^%d+$') then
    error({err = 'CORRUPT ' .. rev_key .. ' does not hold a revision number'})
  end
  return {rev_key = rev_key, inc_key = inc_key, digest_key = digest_key, rev = tonumber(v[1] or '0'), inc = v[2],
    digest = v[3] or ''}
end

-- Takes the stamp's next revision (and an incarnation, if the topic had none); save_stamp writes them.
local function next_revision(stamp)
  stamp.rev = stamp.rev + 1
  if not stamp.inc then
    stamp.inc = new_incarnation(stamp.inc_key)
    stamp.new_inc = true
  end
  return stamp.rev
end

-- Writes what next_revision (and a digest) changed in the stamp, in one MSET (which cannot fail).
local function save_stamp(stamp)
  local args = {stamp.rev_key, stamp.rev}
  if stamp.digest_key then
    args[3], args[4] = stamp.digest_key, stamp.digest
  end
  if stamp.new_inc then
    args[#args + 1], args[#args + 2] = stamp.inc_key, stamp.inc
    stamp.new_inc = nil
  end
  redis.call('MSET', unpack(args))
end

-- Bumps the service revision and announces one change on the service's shard channel, from a stamp read by
-- read_stamp (KEYS[3], KEYS[7], KEYS[6]). body is the event's JSON fields after "id" (with a leading comma), or ''.
-- The event carries "digest": SHA-1 of the previous digest and the event, kept in KEYS[6] next to the revision.
-- A view that applied a forged event at some revision sees the real event of that revision (or its reconcile sees
-- Redis) carry another digest, and resyncs. It carries "inc" too: the incarnation kept in KEYS[7] (see above).
local function publish(stamp, channel, kind, id, body)
  local rev = next_revision(stamp)
  local event = '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id) .. body
  stamp.digest = redis.sha1hex(stamp.digest .. event)
  save_stamp(stamp)
  redis.call('SPUBLISH', channel, event .. ',"digest":"' .. stamp.digest .. '","inc":"' .. stamp.inc .. '"}')
  return rev
end
