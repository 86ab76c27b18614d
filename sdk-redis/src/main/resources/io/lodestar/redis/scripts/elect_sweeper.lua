-- elect_sweeper: elects the client that sweeps the namespace this interval (a short lock, which its holder keeps
-- while it runs this every interval, so one client sweeps each interval, not two whose schedules drift), and keeps the
-- namespace's "last outage seen" marker, which every sweep reads: the sweep spares instances whose owners may not
-- have had the chance to renew since Redis came back (see sweep_service.lua). Every client runs this each
-- interval, so every client that came back from an outage notes it within one interval, whether it wins or not,
-- and the winner notes its own outage before it sweeps.
-- It also says when the winner should look at every service of the namespace rather than only those due (a full
-- pass: it repairs what the due sets could miss, see Sweeper): once per full-pass period, counted from the first
-- round of the namespace, which does not run one.
-- KEYS[1] sweeper lock, KEYS[2] outage marker (epoch ms, Redis time), KEYS[3] when the next full pass is due
-- (epoch ms, Redis time)
-- ARGV[1] this client's id, ARGV[2] lock time in ms, ARGV[3] 1 = this client lost its connection since it last
-- ran this script (or started while Redis was unreachable), else 0, ARGV[4] the full-pass period in ms
-- Returns {1 if this client sweeps this interval else 0, the outage marker (0 = none), 1 if the lock had no expiry
-- (another program wrote it: it then gets one, so it cannot stop expiry in the namespace for good) else 0,
-- 1 if the winner makes a full pass this interval else 0}.
-- Publishes nothing. A marker that is not a number (corrupt) counts as none.
local lock, marker = KEYS[1], KEYS[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local last = tonumber(redis.call('GET', marker) or '0') or 0
if ARGV[3] == '1' and now > last then
  redis.call('SET', marker, now)
  last = now
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
return {won and 1 or 0, last, unstuck, full}
