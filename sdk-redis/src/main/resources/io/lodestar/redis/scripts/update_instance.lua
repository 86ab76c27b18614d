-- update_instance: changes metadata or status of a registered instance, atomically.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] events shard channel,
-- KEYS[5] tombstones zset (passed to every service write script, unused here), KEYS[6] digest, KEYS[7]
-- incarnation (see announce in common.lua), KEYS[8] the bucket's due set (see file_due in common.lua)
-- ARGV[1] instance id, ARGV[2] mode: "replace" (metadata = ARGV[3]), "merge" (put ARGV[3], remove the keys of
--         the JSON array ARGV[4]) or "status" (status = ARGV[3])
-- Returns {revision, instance JSON (public: without its owner, see with_owner in common.lua)} or {revision, false} when the instance is not registered (an overdue one is
-- expired and announced first). Publishes "updated" when something changed.
--#include common.lua
--#include checks.lua
local instances, deadlines, rev_key, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', rev_key, 'counter', KEYS[5], 'zset', KEYS[6], 'string',
  KEYS[7], 'string', KEYS[8], 'zset')
local id, mode = ARGV[1], ARGV[2]
local now = now_ms()

if overdue(deadlines, id, now) then
  local rev = expire(instances, deadlines, rev_key, channel, id)
  file_due(deadlines, now, redis.call('HLEN', instances) == 0)
  return {rev, false}
end
local existing = redis.call('HGET', instances, id)
if not existing then
  return {current_revision(rev_key), false}
end

local instance = decoded(existing)
if not instance or type(instance.metadata) ~= 'table' then
  return redis.error_reply('CORRUPT ' .. instances .. ' field ' .. id .. ' does not hold an instance (deregister it)')
end
local owner = instance.owner
instance.owner = nil
if mode == 'replace' then
  instance.metadata = cjson.decode(ARGV[3])
elseif mode == 'merge' then
  for key, value in pairs(cjson.decode(ARGV[3])) do
    instance.metadata[key] = value
  end
  for _, key in ipairs(cjson.decode(ARGV[4])) do
    instance.metadata[key] = nil
  end
elseif mode == 'status' then
  instance.status = ARGV[3]
else
  return redis.error_reply('ERR lodestar: unknown update mode ' .. tostring(mode))
end
local public = cjson.encode(instance)
local stored = owner and with_owner(public, owner) or public
if stored == existing then
  return {current_revision(rev_key), public}
end
redis.call('HSET', instances, id, stored)
return {announce(rev_key, channel, 'updated', id, ',"instance":' .. public), public}
