-- due: the deadlines and the bucket's due set (not a script of its own; see common.lua). Needs basics.lua.

-- Files the service in its bucket's due set (KEYS[5]) at its earliest deadline, or takes it out when it has no
-- ephemeral instance left; filed: the entry's score read before (nil: read it), to write only what changed.
local function refile_due(deadlines, filed)
  local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
  if first[2] then
    if filed == nil or tonumber(first[2]) ~= tonumber(filed) then
      redis.call('ZADD', KEYS[5], first[2], KEYS[1])
    end
  elseif filed ~= false then
    redis.call('ZREM', KEYS[5], KEYS[1])
  end
end

-- Keeps the service's entry in its bucket's due set (KEYS[5]; the member is the instances key, KEYS[1]) in step, so
-- the sweep looks at a service only when something of it may need doing: the entry's score is the earliest
-- deadline of the service's instances (no ephemeral instance: no entry). Called by every write that changes one
-- instance's deadline or the instance count, after its change, with filed (the entry's score, read before the
-- script's first write; false when absent), the instance's deadline before (old) and after (new), nil when none.
-- appeared_or_vanished: the write took the instance count from 0 to 1 or from 1 to 0, which its writer reports to
-- the namespace index in a second call (another slot) that a crash could prevent; the service is then due now, so
-- the next sweep reports the count instead. An entry already due (its time has come) is left for the sweep, which
-- files it again when it has looked. Costs no command when another instance holds the earliest deadline.
local function file_due(deadlines, filed, old, new, now, appeared_or_vanished)
  local score = filed and tonumber(filed)
  if score and score <= now then
    return
  end
  if appeared_or_vanished then
    redis.call('ZADD', KEYS[5], digits(now), KEYS[1])
  elseif score and new and new < score then
    redis.call('ZADD', KEYS[5], digits(new), KEYS[1]) -- the entry is at most every other deadline: this one is the earliest
  elseif not score or (old and tonumber(old) <= score) then
    refile_due(deadlines, filed) -- this instance held the earliest deadline (or the entry is missing)
  end
end
