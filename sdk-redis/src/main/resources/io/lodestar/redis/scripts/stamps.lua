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

-- A topic's stamp: its revision counter and incarnation, read in one MGET before the script's first write (an
-- index's; a service's is in its instances hash, see read_service, a config entry's in its current hash, see
-- current_header in config_common.lua). MGET answers nil for a key of
-- another type as for a missing one, so a nil is looked at: never on the usual path (a topic's keys are written
-- together), once in the life of a new topic (one EXISTS), and by TYPE only when a key is of another type. Fails,
-- naming the key, on a revision that is not a number or a key of another type (MSET would overwrite it).
local function read_stamp(rev_key, inc_key)
  local v = redis.call('MGET', rev_key, inc_key)
  if not (v[1] and v[2]) and redis.call('EXISTS', rev_key, inc_key) > (v[1] and 1 or 0) + (v[2] and 1 or 0) then
    for i, key in ipairs({rev_key, inc_key}) do
      local have = not v[i] and redis.call('TYPE', key).ok
      if have and have ~= 'none' then
        error({err = 'WRONGTYPE ' .. key .. ' is a ' .. have .. ' where Lodestar keeps a string'})
      end
    end
  end
  if v[1] and not string.match(v[1], '^%d+$') then
    error({err = 'CORRUPT ' .. rev_key .. ' does not hold a revision number'})
  end
  return {rev_key = rev_key, inc_key = inc_key, rev = tonumber(v[1] or '0'), inc = v[2]}
end

-- How many of a service's three stamp fields an HMGET of them found, from v[first] on: the instances hash's length
-- less them is the service's instance count.
local function stamp_fields(v, first)
  return (v[first] and 1 or 0) + (v[first + 1] and 1 or 0) + (v[first + 2] and 1 or 0)
end

-- A service's stamp: its revision, digest and incarnation, kept in the service's instances hash under fields no
-- instance id can have (an id starts with a letter or digit; Keys.java), so that the read of an instance and of the
-- stamp is one HMGET and their write one HSET: two commands fewer on every service write than three keys of their
-- own. Read before the script's first write (the HMGET proves the hash's type). id: the instance the script reads
-- with it (nil: none); token: the writer's token of this write, the digest of its event (see publish; nil or '':
-- none). Returns the stored instance (false when none) and the stamp, whose fields counts the stamp's fields present
-- (the hash's length less them is the instance count). Fails, naming the key, on a revision that is not a number.
local function read_service(instances, id, token)
  local v = redis.call('HMGET', instances, id or ':revision', ':revision', ':digest', ':incarnation')
  if v[2] and not string.match(v[2], '^%d+$') then
    error({err = 'CORRUPT ' .. instances .. ' field :revision does not hold a revision number'})
  end
  return v[1], {hash = instances, inc_key = instances, rev = tonumber(v[2] or '0'), digest = v[3] or '', inc = v[4],
    fields = stamp_fields(v, 2), token = token ~= '' and token or nil}
end

-- The number of instances of a service whose stamp was read by read_service.
local function instance_count(stamp)
  return redis.call('HLEN', stamp.hash) - stamp.fields
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

-- Writes what next_revision (and a digest) changed in the stamp, in one MSET or SET or, for a service, one HSET of
-- its instances hash, with field and value (an instance written with the change) when given (and, on the service's
-- first write, one HSET of its incarnation before). None can fail. A
-- service's first stamp (a new service, or one purged and written again) also makes its tombstones (KEYS[4], as every
-- service script passes them) persist: a purge (purge_service.lua) leaves them to expire with the last one, and a
-- service with a stamp keeps them as any live service does, so a deregistration looks at their expiry only while
-- there is no stamp (deregister_instance.lua).
local function save_stamp(stamp, field, value)
  if stamp.hash then
    -- explicit calls rather than one argument table: measurably less Redis time per write (docs/benchmarks.md)
    if stamp.new_inc then -- once in a service's life
      redis.call('PERSIST', KEYS[4])
      redis.call('HSET', stamp.hash, ':incarnation', stamp.inc)
    end
    if field then
      redis.call('HSET', stamp.hash, field, value, ':revision', digits(stamp.rev), ':digest', stamp.digest)
    else
      redis.call('HSET', stamp.hash, ':revision', digits(stamp.rev), ':digest', stamp.digest)
    end
  elseif stamp.new_inc then
    redis.call('MSET', stamp.rev_key, digits(stamp.rev), stamp.inc_key, stamp.inc)
  else
    redis.call('SET', stamp.rev_key, digits(stamp.rev))
  end
  stamp.new_inc = nil
end

-- Bumps the service revision and announces one change on the service's shard channel, from a stamp read by
-- read_service: {"type":kind,"rev":..,"id":..<fields>,"instance":<instance>,"digest":..,"inc":..}. fields: more of
-- the event's JSON fields (with a leading comma), or ''; instance: the instance's JSON for an event that carries it
-- (nil: none); field and value: the instance the change writes, if any (HSET with the stamp). The event is made as
-- one string: Redis 7 hashes every byte of every string a script makes (redis/redis#9449), so the instance is not
-- copied into a string of its own first. The event carries "digest", kept in the stamp: the writer's token of the
-- write (read_service: 128 random bits the client draws for each write), or SHA-1 of the previous digest and the
-- event for an event without one (a later event of the same call; a caller that passed none). A forger cannot know
-- either before the real event is out, so a view that applied a forged event at some revision sees the real event
-- of that revision (or its reconcile sees Redis) carry another digest, and resyncs. The token spares Redis the SHA-1
-- and the string it hashes, the whole event again. The event carries "inc" too: the incarnation (see above).
local function publish(stamp, channel, kind, id, fields, instance, field, value)
  local rev = next_revision(stamp)
  local head = '{"type":"' .. kind .. '","rev":' .. digits(rev) .. ',"id":' .. cjson.encode(id) .. fields
  local member = instance and ',"instance":' or ''
  instance = instance or ''
  stamp.digest = stamp.token or redis.sha1hex(stamp.digest .. head .. member .. instance)
  stamp.token = nil
  save_stamp(stamp, field, value)
  redis.call('SPUBLISH', channel,
    head .. member .. instance .. ',"digest":"' .. stamp.digest .. '","inc":"' .. stamp.inc .. '"}')
  return rev
end
