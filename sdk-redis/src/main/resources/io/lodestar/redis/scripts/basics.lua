-- basics: helpers of every write script (not a script of its own; see common.lua).

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function current_revision(rev_key)
  return tonumber(redis.call('GET', rev_key) or '0')
end
