-- update_instance: changes metadata, status or weight of a registered instance, atomically.
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset,
-- KEYS[3] events shard channel, KEYS[4] tombstones zset (passed to every service write script, unused here),
-- KEYS[5] the bucket's due set (see file_due in due.lua)
-- ARGV[1] instance id, ARGV[2] mode: "replace" (metadata = ARGV[3]), "merge" (put ARGV[3], remove the keys of
--         the JSON array ARGV[4]), "status" (status = ARGV[3]) or "weight" (weight = ARGV[3], an integer the
--         caller validated), ARGV[5] the write's token, the digest of its event (see publish in stamps.lua; none:
--         SHA-1)
-- Returns {revision, instance JSON (public: without its owner, see with_owner in common.lua)} or {revision, false}
-- when the instance is not registered (an overdue one is expired and announced first). Publishes "updated" when
-- what readers see changed; nothing is written otherwise.
--#include common.lua
--#include stored.lua
local instances, deadlines, channel = KEYS[1], KEYS[2], KEYS[3]
local id, mode = ARGV[1], ARGV[2]

-- Everything read before the first write (each read proves its key's type, see common.lua).
local existing, stamp = read_service(instances, id, ARGV[5])
local deadline = redis.call('ZSCORE', deadlines, id)

if deadline then
  local now = now_ms()
  if tonumber(deadline) < now then
    local filed = redis.call('ZSCORE', KEYS[5], instances)
    redis.call('ZREM', deadlines, id)
    if not existing then
      file_due(deadlines, filed, deadline, nil, now, false)
      return {stamp.rev, false}
    end
    redis.call('HDEL', instances, id)
    file_due(deadlines, filed, deadline, nil, now, instance_count(stamp) == 0)
    return {publish(stamp, channel, 'expired', id, ''), false}
  end
end
if not existing then
  return {stamp.rev, false}
end

local instance = decoded(existing)
if not instance or type(instance.metadata) ~= 'table' then
  return redis.error_reply('CORRUPT ' .. instances .. ' field ' .. id .. ' does not hold an instance (deregister it)')
end
local owner = instance.owner
instance.owner = nil
local changed = false
if mode == 'replace' then
  local metadata = cjson.decode(ARGV[3])
  for key, value in pairs(metadata) do
    changed = changed or instance.metadata[key] ~= value
  end
  for key in pairs(instance.metadata) do
    changed = changed or metadata[key] == nil
  end
  instance.metadata = metadata
elseif mode == 'merge' then
  for key, value in pairs(cjson.decode(ARGV[3])) do
    changed = changed or instance.metadata[key] ~= value
    instance.metadata[key] = value
  end
  for _, key in ipairs(cjson.decode(ARGV[4])) do
    changed = changed or instance.metadata[key] ~= nil
    instance.metadata[key] = nil
  end
elseif mode == 'status' then
  changed = instance.status ~= ARGV[3]
  instance.status = ARGV[3]
elseif mode == 'weight' then
  local weight = tonumber(ARGV[3])
  changed = instance.weight ~= weight
  instance.weight = weight
else
  return redis.error_reply('ERR lodestar: unknown update mode ' .. tostring(mode))
end
if not changed then
  return {stamp.rev, public_of(existing, owner)}
end
local public = cjson.encode(instance)
local stored = owner and with_owner(public, owner) or public
return {publish(stamp, channel, 'updated', id, '', public, id, stored), public}
