-- sweep_state: helpers of the sweep scripts for the sweep's own state (not a script of its own): the outage list,
-- keys of another type, the master a bucket's sweep runs on. Kept apart from common.lua so that the write scripts do
-- not define them on every call (see common.lua).

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
