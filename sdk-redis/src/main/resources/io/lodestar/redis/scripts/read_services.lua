-- read_services: reads several services of one bucket for a view's batched load (preload, resync after a
-- reconnect): each one atomically, with the instances past their deadline kept (a view drops an instance only on its
-- "expired" or "deregistered" event, see read_service_page.lua). Writes nothing. The work of one call is
-- bounded, so no call holds Redis long: it stops before a service whose instances would take the call past ARGV[1]
-- instances in all (never before the first one; the caller asks again for the rest), and a service of more than
-- ARGV[2] instances is not read here but marked, for the caller to read page by page (read_service_page.lua).
-- A service the caller already holds at the state Redis has (same revision, digest and incarnation: the digest
-- chains every change, so the same digest is the same history) is not read again: a resync after a reconnect finds
-- most services unchanged, and re-reading them all was most of its time.
-- KEYS: the instances hash of each service (with its stamp, see read_service in stamps.lua). On a cluster every key
-- must be of one slot: the services of one bucket (see Keys.java).
-- ARGV[1] most instances returned in all, ARGV[2] most instances of one service read here, ARGV[3...] one per
-- service, in KEYS order: the state the caller holds, 'revision:digest:incarnation', or '' (read it whatever)
-- Returns one entry per service read, in KEYS order, fewer than the services given when the budget ran out:
-- {revision (as stored: the caller checks it, naming the key), digest ('' when none), incarnation ('' when none),
-- count, id1, json1, id2, json2, ...}, instances in hash order (the caller sorts), with the stamp's fields (whose
-- names start with ':', which no instance id does: the caller skips them); count -1: more than ARGV[2] instances,
-- none returned (read it page by page); count -2: unchanged, the state the caller holds, none returned.
--#include common.lua
local budget, largest = tonumber(ARGV[1]), tonumber(ARGV[2])
local result = {}
local total = 0
for at, instances in ipairs(KEYS) do
  local stamp = redis.call('HMGET', instances, ':revision', ':digest', ':incarnation')
  local revision, digest, incarnation = stamp[1] or '0', stamp[2] or '', stamp[3] or ''
  local known = ARGV[2 + at]
  local entry = {revision, digest, incarnation}
  local count
  if known ~= nil and known ~= '' and known == revision .. ':' .. digest .. ':' .. incarnation then
    count = -2
  else
    count = redis.call('HLEN', instances) - stamp_fields(stamp, 1)
    if count <= largest and total > 0 and total + count > budget then
      break
    end
  end
  if count == -2 then
    entry[4] = -2
  elseif count > largest then
    entry[4] = -1
  else
    entry[4] = count
    local all = redis.call('HGETALL', instances)
    for i = 1, #all do
      entry[4 + i] = all[i]
    end
    total = total + count
  end
  result[#result + 1] = entry
end
return result
