-- read_service: reads one service atomically: its revision and its instances. Writes nothing. Used by direct reads,
-- which leave out instances past their deadline, and by views (initial load and resync), which keep them: a view
-- drops an instance only on its "expired" or "deregistered" event, so a resync never drops what the sweep will
-- announce later, and a resync at an unchanged revision never changes what a view holds.
-- KEYS[1] instances hash, KEYS[2] deadlines zset, KEYS[3] revision counter, KEYS[4] digest, KEYS[5] incarnation
-- ARGV[1] 1 = leave out instances past their deadline, 0 = keep them
-- Returns {revision, digest ('' when none), incarnation ('' when none), id1, json1, id2, json2, ...} (instances
-- ordered by id).
--#include common.lua
local instances, deadlines, rev_key = KEYS[1], KEYS[2], KEYS[3]
local live_only = ARGV[1] == '1'
local now = now_ms()

local result = {current_revision(rev_key), redis.call('GET', KEYS[4]) or '', redis.call('GET', KEYS[5]) or ''}
local all = redis.call('HGETALL', instances)
local ids = {}
local by_id = {}
for i = 1, #all, 2 do
  if not (live_only and overdue(deadlines, all[i], now)) then
    ids[#ids + 1] = all[i]
    by_id[all[i]] = all[i + 1]
  end
end
table.sort(ids)
for _, id in ipairs(ids) do
  result[#result + 1] = id
  result[#result + 1] = by_id[id]
end
return result
