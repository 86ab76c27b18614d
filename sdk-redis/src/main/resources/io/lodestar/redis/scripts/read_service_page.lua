-- read_service_page: reads one page of a service's instances (HSCAN), with the service's revision, digest and
-- incarnation at that moment, so a service of any size is read in calls that each hold Redis briefly. Writes
-- nothing. Used by direct reads, which leave out instances past their deadline, and by views (a load or resync of
-- one service), which keep them: a view drops an instance only on its "expired" or "deregistered" event, so a
-- resync never drops what the sweep will announce later, and a resync at an unchanged revision never changes what
-- a view holds. A service of at most ARGV[2] instances is read whole (HGETALL) by the first call, which then returns
-- cursor '0'. The pages of a larger service are read at different revisions: a view makes one state of them with
-- the events it heard meanwhile, a direct read reads again when the revision moved (see RegistryReads.java).
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] digest, KEYS[5] incarnation
-- ARGV[1] cursor ('0' to start), ARGV[2] page size (instances), ARGV[3] 1 = leave out instances past their
-- deadline (a direct read), 0 = keep them (a view, see above)
-- Returns {revision, digest ('' when none), incarnation ('' when none), next cursor ('0' when done), id1, json1,
-- ...}, instances in hash order (the caller sorts; HSCAN may return an instance on more than one page).
--#include common.lua
local instances, deadlines = KEYS[1], KEYS[2]
local cursor, page, live_only = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local result = {current_revision(KEYS[3]), redis.call('GET', KEYS[4]) or '', redis.call('GET', KEYS[5]) or ''}
local all
if cursor == '0' and redis.call('HLEN', instances) <= page then
  result[4] = '0'
  all = redis.call('HGETALL', instances)
else
  local scanned = redis.call('HSCAN', instances, cursor, 'COUNT', page)
  result[4] = scanned[1]
  all = scanned[2]
end
-- A direct read leaves out the overdue: one range read of them when they are few (the common case: none), rather
-- than a ZSCORE per instance returned.
local overdue_ids
if live_only then
  local now = now_ms()
  local late_ids = redis.call('ZRANGEBYSCORE', deadlines, '-inf', '(' .. now, 'LIMIT', 0, page + 1)
  if #late_ids <= page then
    overdue_ids = {}
    for _, id in ipairs(late_ids) do
      overdue_ids[id] = true
    end
  end
  for i = 1, #all, 2 do
    local late
    if overdue_ids then
      late = overdue_ids[all[i]]
    else
      late = overdue(deadlines, all[i], now)
    end
    if not late then
      result[#result + 1] = all[i]
      result[#result + 1] = all[i + 1]
    end
  end
  return result
end
for i = 1, #all do
  result[#result + 1] = all[i]
end
return result
