-- elect_sweeper: elects the client that sweeps the namespace this interval (a short lock, which its holder keeps
-- while it runs this every interval, so one client sweeps each interval, not two whose schedules drift), and keeps
-- the namespace's list of outages, which every sweep reads: the sweep spares the instances whose leases were live
-- when an outage began, until their owners had the chance to renew after it (see sweep_service.lua). Every client
-- runs this each interval, so every client that could not reach Redis notes it within one interval of being back,
-- whether it wins or not, and the winner notes its own outage before it sweeps.
-- The list (KEYS[2]) is a string "began:ended,began:ended,..." (epoch ms, Redis time; see outages_of in sweep_state.lua),
-- ordered by beginning; outages that overlap (clients that saw one outage at different times, or noted a long one
-- once per interval) are one; those whose grace ended for any TTL are forgotten, and the key expires when no outage
-- was noted for that long; beyond 32 outages the oldest two are taken for one.
-- It also says when the winner should look at every service of the namespace rather than only those due (a full
-- pass: it repairs what the due sets could miss, see Sweeper): once per full-pass period, counted from the first
-- round of the namespace, which does not run one.
-- KEYS[1] sweeper lock, KEYS[2] outages, KEYS[3] when the next full pass is due (epoch ms, Redis time)
-- ARGV[1] this client's id, ARGV[2] lock time in ms, ARGV[3] how many ms ago the outage this client saw began
-- (it lasted until now), or '' when it saw none since it last ran this script, ARGV[4] the full-pass period in ms,
-- ARGV[5] how long an outage can matter after its end, in ms (the reconnect allowance + the longest TTL)
-- Returns {1 if this client sweeps this interval else 0, the outages (text, '' = none), 1 if the lock had no expiry
-- (another program wrote it: it then gets one, so it cannot stop expiry in the namespace for good) else 0,
-- 1 if the winner makes a full pass this interval else 0}.
-- 5th, the keys it replaced because they held another type (see replace_corrupt in sweep_state.lua), as
-- "<key> was a <type>".
-- Publishes nothing.
--#include common.lua
--#include sweep_state.lua
local lock, marker = KEYS[1], KEYS[2]
local now = now_ms()
local replaced = {}
for _, key in ipairs(KEYS) do
  local found = replace_corrupt(key, 'string')
  if found then
    replaced[#replaced + 1] = key .. ' was a ' .. found
  end
end

local noted = redis.call('GET', marker) or ''
if ARGV[3] ~= '' then
  local horizon = tonumber(ARGV[5])
  local outages = outages_of(noted)
  outages[#outages + 1] = {now - tonumber(ARGV[3]), now}
  table.sort(outages, function(a, b) return a[1] < b[1] end)
  local kept = {}
  for _, outage in ipairs(outages) do
    local last = kept[#kept]
    if last and outage[1] <= last[2] then
      last[2] = math.max(last[2], outage[2])
    elseif outage[2] >= now - horizon then
      kept[#kept + 1] = {outage[1], outage[2]}
    end
  end
  while #kept > 32 do -- bounds what every sweep reads: the two oldest become one, which spares more, never less
    kept[2][1] = kept[1][1]
    table.remove(kept, 1)
  end
  local text = {}
  for i, outage in ipairs(kept) do
    text[i] = string.format('%.0f:%.0f', outage[1], outage[2])
  end
  noted = table.concat(text, ',')
  redis.call('SET', marker, noted, 'PX', horizon)
end
local won = redis.call('SET', lock, ARGV[1], 'NX', 'PX', tonumber(ARGV[2]))
if not won and redis.call('GET', lock) == ARGV[1] then
  redis.call('PEXPIRE', lock, tonumber(ARGV[2])) -- the sweeper of the last interval keeps the lock while it lives
  won = true
end
local unstuck = 0
if not won and redis.call('PTTL', lock) == -1 then
  redis.call('PEXPIRE', lock, tonumber(ARGV[2]))
  unstuck = 1
end
local full = 0
if won then
  local period = tonumber(ARGV[4])
  local next_full = tonumber(redis.call('GET', KEYS[3]) or '')
  if next_full and now >= next_full then
    full = 1
  end
  if not next_full or full == 1 then
    redis.call('SET', KEYS[3], now + period, 'PX', 2 * period)
  end
end
return {won and 1 or 0, noted, unstuck, full, replaced}
