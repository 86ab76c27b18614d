-- basics: helpers of every write script (not a script of its own; see common.lua).

-- A whole number (a time, a revision) as its digits, for a command's argument or an event's text. Redis 7.0 turns
-- a number passed to redis.call into text by snprintf("%.17g"), Lua a number it concatenates by "%.14g": glibc's
-- exact floating-point formatting, a measurable part of a write's time when a script does it a few times
-- (docs/benchmarks.md); "%d" is integer formatting.
local function digits(n)
  return string.format('%d', n)
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function current_revision(rev_key)
  return tonumber(redis.call('GET', rev_key) or '0')
end
