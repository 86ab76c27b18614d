-- config_common: helpers included by every config write script, after common.lua (not a script of its own).
-- One config entry is: the current hash (version, format, hash, createdAt, updatedAt, content; absent after a
-- remove), every content version as JSON in the history hash (version -> entry JSON, newest N kept), the kept
-- version numbers in the versions sorted set, and the revision counter, which numbers every change of the entry
-- (set, rollback, remove), survives a remove and never goes back. Entry JSON:
-- {"version":7,"format":"YAML","hash":"<sha1 hex>","createdAt":<ms>,"updatedAt":<ms>,"content":"...","from":3}
-- ("from" only on a rollback: the version whose content it restored).
-- As in common.lua, a script reads what it depends on before its first write, and that read proves the key's type.

-- The current entry's header: version (0 when there is no current entry), hash, format, createdAt, updatedAt.
-- Fails, naming the key, when the hash is of another type or is not an entry's header.
local function current_header(current)
  local h = redis.call('HMGET', current, 'version', 'hash', 'format', 'createdAt', 'updatedAt')
  if not h[1] then
    return 0, nil, nil, nil, nil
  end
  if not string.match(h[1], '^%d+$') then
    error({err = 'CORRUPT ' .. current .. ' field version does not hold a number'})
  end
  local version, created_at, updated_at = tonumber(h[1]), tonumber(h[4]), tonumber(h[5])
  if not (created_at and updated_at and h[2] and h[3]) then
    error({err = 'CORRUPT ' .. current .. ' does not hold a config entry (version, hash, format, createdAt, updatedAt)'})
  end
  return version, h[2], h[3], created_at, updated_at
end

-- A kept version's entry, decoded, and its JSON; nil when it is not kept. Fails, naming the key, when the history
-- is of another type or the version's JSON is not an entry's.
local function history_entry(history, version)
  local stored = redis.call('HGET', history, version)
  if not stored then
    return nil, nil
  end
  local ok, entry = pcall(cjson.decode, stored)
  if not ok or type(entry) ~= 'table' or type(entry.content) ~= 'string' or type(entry.format) ~= 'string'
      or type(entry.hash) ~= 'string' or not tonumber(entry.createdAt) then
    error({err = 'CORRUPT ' .. history .. ' field ' .. version .. ' does not hold a config version'})
  end
  return entry, stored
end

-- When an entry that has no current version is set (again): a removed entry keeps its history and its version
-- numbers go on, so it keeps its creation time too (that of its newest kept version); a new one is created now.
local function creation_time(history, versions, now)
  local newest = redis.call('ZREVRANGE', versions, 0, 0)
  local entry = newest[1] and history_entry(history, newest[1])
  return entry and tonumber(entry.createdAt) or now
end

-- Makes content the current entry under the next version, keeps it in history (trimmed to the newest `limit`
-- versions, in this same call) and announces it on the entry's channel: {"type":"changed","rev":7,"id":...,
-- "entry":{...}}, or "rolledback" with "from" when `from` (the restored version) is given. stamp: the entry's
-- (read_stamp in common.lua), kept: how many versions the versions set held, both read before. Returns the new
-- version and its entry JSON. Every event carries the entry's incarnation ("inc", see common.lua).
local function write_version(k, stamp, kept, id, content, format, hash, created_at, now, limit, from)
  local version = next_revision(stamp)
  local entry = cjson.encode({version = version, format = format, hash = hash, createdAt = created_at,
    updatedAt = now, content = content, from = from})
  local number = digits(version)
  redis.call('HSET', k.history, number, entry) -- the first write: history may be the one key not read before
  redis.call('HSET', k.current, 'version', number, 'format', format, 'hash', hash, 'createdAt', digits(created_at),
    'updatedAt', digits(now), 'content', content)
  redis.call('ZADD', k.versions, number, number)
  local excess = kept + 1 - limit
  if excess > 0 then
    local oldest = redis.call('ZPOPMIN', k.versions, digits(excess))
    local trimmed = {}
    for i = 1, #oldest, 2 do
      trimmed[#trimmed + 1] = oldest[i]
    end
    redis.call('HDEL', k.history, unpack(trimmed))
  end
  save_stamp(stamp)
  local kind = from and '"rolledback","from":' .. from or '"changed"'
  redis.call('SPUBLISH', k.channel, '{"type":' .. kind .. ',"rev":' .. number .. ',"id":' .. cjson.encode(id)
    .. ',"inc":"' .. stamp.inc .. '","entry":' .. entry .. '}')
  return version, entry
end

-- KEYS of every config write script, in the order Keys.ConfigKeys.all() gives them.
local function config_keys()
  return {current = KEYS[1], history = KEYS[2], versions = KEYS[3], revision = KEYS[4], channel = KEYS[5],
    incarnation = KEYS[6], log = KEYS[7], gray = KEYS[8], gray_revision = KEYS[9], gray_channel = KEYS[10]}
end

-- The audit trail: every config write appends one record to the entry's log stream (same hash tag), trimmed to
-- about AUDIT_LIMIT records by MAXLEN ~ (Redis trims whole blocks: cheap, a few more may stay) by every
-- AUDIT_TRIM_EVERY-th version and by every gray release write: the trim's check, on every write, was a measurable part
-- of a config write's Redis time, and AUDIT_TRIM_EVERY - 1 more records cost little (versions count every set,
-- rollback and remove; a gray write leaves the version as it is, so it trims itself). The writer's client name and
-- host are the last two ARGV of every write script. Called after the script's reads and before its other writes, so
-- a corrupt log key (WRONGTYPE) stops the script before it changed anything; a corrupt key written after it (the
-- history, never read by an update) can leave the record of a write that then failed.
local AUDIT_LIMIT, AUDIT_TRIM_EVERY = 1000, 100
local function audit(k, op, hash, previous, version)
  local record = {'op', op, 'client', ARGV[#ARGV - 1], 'host', ARGV[#ARGV], 'hash', hash or '', 'prev',
    type(previous) == 'number' and digits(previous) or previous, 'version', digits(version)} -- remove: stored text
  if version % AUDIT_TRIM_EVERY == 0 or string.sub(op, 1, 5) == 'gray-' then
    redis.call('XADD', k.log, 'MAXLEN', '~', AUDIT_LIMIT, '*', unpack(record))
  else
    redis.call('XADD', k.log, '*', unpack(record))
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

-- Takes the gray release's next revision (its own counter, which survives the release like the entry's; events
-- carry the entry's incarnation), saves it and announces on the gray channel:
-- {"type":"gray"|"promoted"|"aborted","rev":<gray rev>,"id":...,"inc":...<body>}.
local function publish_gray(k, stamp, kind, id, body)
  local rev = next_revision(stamp)
  save_stamp(stamp)
  redis.call('SPUBLISH', k.gray_channel, '{"type":"' .. kind .. '","rev":' .. rev .. ',"id":' .. cjson.encode(id)
    .. ',"inc":"' .. stamp.inc .. '"' .. body .. '}')
  return rev
end

-- The entry's stamp (revision counter and incarnation, see read_stamp in common.lua).
local function config_stamp(k)
  return read_stamp(k.revision, k.incarnation)
end
