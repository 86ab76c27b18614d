-- read_checks: included by read scripts (not a script of its own). A read that meets a key of another type (written
-- by another program) fails naming the key and both types, as a write's checks do (checks.lua), instead of Redis'
-- bare "WRONGTYPE Operation against a key holding the wrong kind of value". No call more than the read's own: the
-- type is asked only once the command failed.

-- redis.call(command, key, ...) on a key Lodestar keeps as a `want` (hash, zset, string).
local function read_as(want, command, key, ...)
  local reply = redis.pcall(command, key, ...)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) == 'WRONGTYPE' then
      error({err = 'WRONGTYPE ' .. key .. ' is a ' .. redis.call('TYPE', key).ok .. ' where Lodestar keeps a ' .. want})
    end
    error(reply)
  end
  return reply
end
