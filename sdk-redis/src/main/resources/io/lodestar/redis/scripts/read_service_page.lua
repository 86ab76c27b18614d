-- read_service_page: reads one page of a service's instances (HSCAN), with the service's revision, digest and
-- incarnation at that moment, so a service of any size is read in calls that each hold Redis briefly. Writes
-- nothing. Used by direct reads, which leave out instances past their deadline, and by views (a load or resync of
-- one service), which keep them: a view drops an instance only on its "expired" or "deregistered" event, so a
-- resync never drops what the sweep will announce later, and a resync at an unchanged revision never changes what
-- a view holds. A service of at most ARGV[2] instances is read whole (HGETALL) by the first call, which then returns
-- cursor '0'. The pages of a larger service are read at different revisions: a view makes one state of them with
-- the events it heard meanwhile, a direct read reads again when the revision moved (see RegistryReads.java).
-- KEYS[1] instances hash (with the service's stamp, see read_service in stamps.lua), KEYS[2] deadlines zset
-- ARGV[1] cursor ('0' to start), ARGV[2] page size (instances), ARGV[3] 1 = tell which instances are past their
-- deadline (a direct read, which leaves them out), 0 = do not (a view, see above)
-- Returns {{revision, digest, incarnation} (each nil when none), next cursor ('0' when done), {id1, json1, ...},
-- overdue ids (only when ARGV[3] is 1)}: instances in hash order (the caller sorts; HSCAN may return an instance on
-- more than one page), the page's array as Redis returned it, not copied, so with the stamp's fields (whose names
-- start with ':', which no instance id does: the caller skips them). The overdue ids are those of the
-- service's instances whose deadline is past Redis' TIME (the caller leaves them out): all of them when there are
-- at most ARGV[2], else those of this page. The script copies nothing element by element: every step it saves is
-- time Redis spends on each direct read (docs/benchmarks/profiles/direct-read).
--#include common.lua
local instances, deadlines = KEYS[1], KEYS[2]
local cursor, page = ARGV[1], tonumber(ARGV[2])
local stamp = redis.call('HMGET', instances, ':revision', ':digest', ':incarnation')
local next_cursor, all = '0', nil
if cursor == '0' and redis.call('HLEN', instances) <= page + 3 then -- with the stamp's 3 fields
  all = redis.call('HGETALL', instances)
else
  local scanned = redis.call('HSCAN', instances, cursor, 'COUNT', page)
  next_cursor, all = scanned[1], scanned[2]
end
if ARGV[3] ~= '1' then
  return {stamp, next_cursor, all}
end
-- Nothing is overdue unless the earliest deadline is past (the common case: one call that finds none).
local overdue_ids = {}
local earliest = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
if earliest[2] then
  local now = now_ms()
  if tonumber(earliest[2]) < now then
    overdue_ids = redis.call('ZRANGEBYSCORE', deadlines, '-inf', '(' .. now, 'LIMIT', 0, page + 1)
    if #overdue_ids > page then -- many: only this page's, one ZSCORE each
      overdue_ids = {}
      for i = 1, #all, 2 do
        local deadline = redis.call('ZSCORE', deadlines, all[i])
        if deadline and tonumber(deadline) < now then
          overdue_ids[#overdue_ids + 1] = all[i]
        end
      end
    end
  end
end
return {stamp, next_cursor, all, overdue_ids}
