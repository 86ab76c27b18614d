-- purge_service: removes the keys a service left behind once it has no instance (its instances hash, which then
-- holds only the service's stamp, and its deadlines), so services that are gone for good cost Redis nothing.
-- Refused while any instance is registered (an overdue one too, until the sweep expires it). Tombstones that still
-- run are kept, so an owner's renewal cannot bring back what was deregistered or evicted: their key then expires with
-- the last of them. A service written again afterwards counts its revisions from 1 under a new incarnation (see
-- stamps.lua).
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset,
-- KEYS[3] events shard channel, KEYS[4] tombstones zset, KEYS[5] the bucket's due set (all share one hash tag)
-- ARGV[1] service id
-- Returns {'conflict', revision, instance count} while instances remain (nothing written); else
-- {'purged', revision the service had (0 = none), number of keys removed}.
-- Publishes {"type":"purged","rev":<that revision>,"inc":...} when the service had a revision, so views holding it
-- re-read it (they then hold it empty at revision 0).
--#include common.lua
--#include checks.lua
local instances, deadlines, channel, tombstones = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
check_keys(instances, 'hash', deadlines, 'zset', tombstones, 'zset', KEYS[5], 'zset')
local _, stamp = read_service(instances)
local revision, inc = stamp.rev, stamp.inc
local count = instance_count(stamp)
if count > 0 then
  return {'conflict', revision, count}
end
local removed = redis.call('DEL', instances, deadlines)
redis.call('ZREM', KEYS[5], instances)
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', tombstones, '-inf', '(' .. now)
local last = redis.call('ZRANGE', tombstones, -1, -1, 'WITHSCORES')
if last[2] then -- deregister_instance.lua lengthens this when it adds a tombstone
  redis.call('PEXPIRE', tombstones, math.floor(tonumber(last[2])) - now + 1)
end
if revision > 0 then
  local event = '{"type":"purged","rev":' .. revision
  if inc then
    event = event .. ',"inc":"' .. inc .. '"'
  end
  redis.call('SPUBLISH', channel, event .. '}')
end
return {'purged', revision, removed}
