-- config_common: helpers included by every config write script, after basics.lua and stamps.lua (not a script of its
-- own). One config entry is two keys (and its audit log and gray release, below):
-- - the current hash: the current entry (version, format, hash, createdAt, updatedAt, content; absent after a
--   remove) and the entry's stamp, in fields no entry field has: `:revision`, which numbers every change of the entry
--   (set, rollback, remove), survives a remove and never goes back, and `:incarnation` (see stamps.lua);
-- - the history stream: one stream entry per content version, ID `<version>-0`, field `entry` = the entry JSON:
--   {"version":7,"format":"YAML","hash":"<sha1 hex>","createdAt":<ms>,"updatedAt":<ms>,"content":"...","from":3}
--   ("from" only on a rollback: the version whose content it restored), the newest N kept.
-- Two keys, not five (a hash of versions, a sorted set of their numbers, a counter and an incarnation beside the
-- current hash), because a config write's Redis time is mostly its calls (docs/redis.md, "What a write costs Redis"):
-- the header and the stamp are one HMGET and one HSET, and XADD's MAXLEN keeps and trims the history in one call.
-- As in common.lua, a script reads what it depends on before its first write, and that read proves the key's type;
-- the history is the one key a write does not read first, and its XADD is the write's first write.
--#include history.lua

-- An entry's stamp from its current hash's :revision and :incarnation as read ({rev, inc, inc_key}, see
-- next_revision in stamps.lua). Fails, naming the key, on a revision that is not a number.
local function entry_stamp(current, revision, incarnation)
  if revision and not string.match(revision, '^%d+$') then
    error({err = 'CORRUPT ' .. current .. ' field :revision does not hold a revision number'})
  end
  return {inc_key = current, rev = tonumber(revision or '0'), inc = incarnation}
end

-- Saves the incarnation a write just made (once in an entry's life, see next_revision in stamps.lua).
local function save_new_incarnation(k, stamp)
  if stamp.new_inc then
    redis.call('HSET', k.current, ':incarnation', stamp.inc)
    stamp.new_inc = nil
  end
end

-- The current entry's header and the entry's stamp, in one HMGET: version (0 when there is no current entry), hash,
-- format, createdAt, updatedAt, and the stamp (entry_stamp). Fails, naming the key, when the hash is of another type
-- or its header or revision is not an entry's.
local function current_header(k)
  local h = redis.call('HMGET', k.current, 'version', 'hash', 'format', 'createdAt', 'updatedAt', ':revision',
    ':incarnation')
  local stamp = entry_stamp(k.current, h[6], h[7])
  if not h[1] then
    return 0, nil, nil, nil, nil, stamp
  end
  if not string.match(h[1], '^%d+$') then
    error({err = 'CORRUPT ' .. k.current .. ' field version does not hold a number'})
  end
  local version, created_at, updated_at = tonumber(h[1]), tonumber(h[4]), tonumber(h[5])
  if not (created_at and updated_at and h[2] and h[3]) then
    error({err = 'CORRUPT ' .. k.current
      .. ' does not hold a config entry (version, hash, format, createdAt, updatedAt)'})
  end
  return version, h[2], h[3], created_at, updated_at, stamp
end

-- A kept version's entry, decoded, and its JSON; nil when it is not kept. Fails, naming the key, when the history
-- is of another type or the version's JSON is not an entry's.
local function history_entry(history, version)
  local stored = kept_json(history, version)
  if not stored then
    return nil, nil
  end
  local ok, entry = pcall(cjson.decode, stored)
  if not ok or type(entry) ~= 'table' or type(entry.content) ~= 'string' or type(entry.format) ~= 'string'
      or type(entry.hash) ~= 'string' or not tonumber(entry.createdAt) then
    error({err = 'CORRUPT ' .. history .. ' entry ' .. version .. '-0 does not hold a config version'})
  end
  return entry, stored
end

-- When an entry that has no current version is set (again): a removed entry keeps its history and its version
-- numbers go on, so it keeps its creation time too (that of its newest kept version); a new one is created now.
local function creation_time(history, now)
  local newest = end_version(history, true)
  local entry = newest > 0 and history_entry(history, newest)
  return entry and tonumber(entry.createdAt) or now
end

-- Makes content the current entry under the next version, keeps it in history (trimmed to the newest `limit`
-- versions by the same XADD) and announces it on the entry's channel: {"type":"changed","rev":7,"id":...,
-- "entry":{...}}, or "rolledback" with "from" when `from` (the restored version) is given. stamp: the entry's (from
-- current_header), read before. Returns the new version and its entry JSON. Every event carries the entry's
-- incarnation ("inc", see stamps.lua). An entry whose stamp was lost while its history was not (keys another
-- program deleted) goes on after its newest kept version, under a new incarnation: a version number is never
-- reused.
local function write_version(k, stamp, id, content, format, hash, created_at, now, limit, from)
  if not stamp.inc then -- once in an entry's life
    stamp.rev = math.max(stamp.rev, end_version(k.history, true))
  end
  local version = next_revision(stamp)
  local entry = cjson.encode({version = version, format = format, hash = hash, createdAt = created_at,
    updatedAt = now, content = content, from = from})
  local number = digits(version)
  redis.call('XADD', k.history, 'MAXLEN', digits(limit), number .. '-0', 'entry', entry) -- the first write
  save_new_incarnation(k, stamp)
  redis.call('HSET', k.current, 'version', number, 'format', format, 'hash', hash, 'createdAt', digits(created_at),
    'updatedAt', digits(now), 'content', content, ':revision', number)
  local kind = from and '"rolledback","from":' .. from or '"changed"'
  redis.call('SPUBLISH', k.channel, '{"type":' .. kind .. ',"rev":' .. number .. ',"id":' .. cjson.encode(id)
    .. ',"inc":"' .. stamp.inc .. '","entry":' .. entry .. '}')
  return version, entry
end

-- KEYS of every config write script, in the order Keys.ConfigKeys.all() gives them.
local function config_keys()
  return {current = KEYS[1], history = KEYS[2], channel = KEYS[3], log = KEYS[4], gray = KEYS[5],
    gray_revision = KEYS[6], gray_channel = KEYS[7]}
end

-- The audit trail: every config write appends one record to the entry's log stream (same hash tag), trimmed to
-- about AUDIT_LIMIT records by MAXLEN ~ (Redis trims whole blocks: cheap, a few more may stay) by every
-- AUDIT_TRIM_EVERY-th version and by every gray release write: the trim's check, on every write, was a measurable part
-- of a config write's Redis time, and AUDIT_TRIM_EVERY - 1 more records cost little (versions count every set,
-- rollback and remove; a gray write leaves the version as it is, so it trims itself). The writer's client name and
-- host are the last two ARGV of every write script. Called after the script's reads and before its other writes, so
-- a corrupt log key (WRONGTYPE) stops the script before it changed anything; a corrupt key written after it (the
-- history, never read by an update) can leave the record of a write that then failed. The record's fields are
-- passed as explicit arguments, not through a table and unpack: measurably less Redis time (docs/benchmarks.md).
local AUDIT_LIMIT, AUDIT_TRIM_EVERY = '1000', 100
local function audit(k, op, hash, previous, version)
  local client, host = ARGV[#ARGV - 1], ARGV[#ARGV]
  local prev = type(previous) == 'number' and digits(previous) or previous -- remove: the version as stored
  if version % AUDIT_TRIM_EVERY == 0 or string.sub(op, 1, 5) == 'gray-' then
    redis.call('XADD', k.log, 'MAXLEN', '~', AUDIT_LIMIT, '*', 'op', op, 'client', client, 'host', host, 'hash',
      hash or '', 'prev', prev, 'version', digits(version))
  else
    redis.call('XADD', k.log, '*', 'op', op, 'client', client, 'host', host, 'hash', hash or '', 'prev', prev,
      'version', digits(version))
  end
end

-- The gray release of an entry, decoded, and its JSON; nil when there is none. JSON:
-- {"content":...,"format":...,"hash":...,"rule":"<GrayRule text>","salt":...,"base":<version>,"rev":<gray rev>,
-- "startedAt":<ms>,"updatedAt":<ms>}. Fails, naming the key, when it is not a release.
local function gray_release(k)
  local stored = redis.call('GET', k.gray)
  if not stored then
    return nil, nil
  end
  local ok, gray = pcall(cjson.decode, stored)
  if not ok or type(gray) ~= 'table' or type(gray.content) ~= 'string' or type(gray.rule) ~= 'string' then
    error({err = 'CORRUPT ' .. k.gray .. ' does not hold a gray release'})
  end
  return gray, stored
end

-- The gray release's stamp: its own counter (which survives the release like the entry's) and the entry's
-- incarnation, read with the entry's header (current_header). Fails, naming the key, on a counter that is not a
-- number.
local function gray_stamp(k, entry_stamp)
  local rev = redis.call('GET', k.gray_revision)
  if rev and not string.match(rev, '^%d+$') then
    error({err = 'CORRUPT ' .. k.gray_revision .. ' does not hold a revision number'})
  end
  return {rev = tonumber(rev or '0'), entry = entry_stamp}
end

-- Takes the gray release's next revision, saves it and announces on the gray channel:
-- {"type":"gray"|"promoted"|"aborted","rev":<gray rev>,"id":...,"inc":...<body>}.
local function publish_gray(k, stamp, kind, id, body)
  stamp.rev = stamp.rev + 1
  local rev = digits(stamp.rev)
  redis.call('SET', k.gray_revision, rev)
  redis.call('SPUBLISH', k.gray_channel, '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id)
    .. (stamp.entry.inc and ',"inc":"' .. stamp.entry.inc .. '"' or '') .. body .. '}')
  return stamp.rev
end
