-- flat_config_set: a config set's six commands with none of its logic (a yardstick, keeps no guarantee; issue 27).
-- The current scripts' layout (KEYS as Keys.ConfigKeys.all(): 1 current hash, 2 history stream, 3 events channel,
-- 4 audit log; ARGV as set_config.lua's): HMGET of the header and stamp, TIME, XADD of the version (its content in a
-- field of its own, not escaped into a JSON), HSET of the current entry and stamp, XADD of the audit record, SPUBLISH
-- of the event with the content escaped once. No compare-and-set, no unchanged check, no incarnation, no validation.
-- What set_config.lua costs beyond it is what its checks and its entry JSON cost (docs/benchmarks.md, "What each
-- step of a write costs"). Run as the "before" set_config.lua of compare_scripts.py (README.md).
local h = redis.call('HMGET', KEYS[1], 'version', 'hash', 'format', 'createdAt', 'updatedAt', ':revision',
  ':incarnation')
local rev = tonumber(h[6] or '0') + 1
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local v = string.format('%d', rev)
local created = h[4] or now
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], v .. '-0', 'format', ARGV[3], 'hash', ARGV[6], 'createdAt', created,
  'updatedAt', now, 'content', ARGV[2])
redis.call('HSET', KEYS[1], 'version', v, 'format', ARGV[3], 'hash', ARGV[6], 'createdAt', created, 'updatedAt', now,
  'content', ARGV[2], ':revision', v)
redis.call('XADD', KEYS[4], '*', 'op', 'set', 'client', ARGV[7], 'host', ARGV[8], 'hash', ARGV[6], 'prev',
  h[1] or '0', 'version', v)
redis.call('SPUBLISH', KEYS[3], '{"type":"changed","rev":' .. v .. ',"id":' .. cjson.encode(ARGV[1]) .. ',"inc":"'
  .. (h[7] or 'x') .. '","entry":{"version":' .. v .. ',"format":"' .. ARGV[3] .. '","hash":"' .. ARGV[6]
  .. '","createdAt":' .. created
  .. ',"updatedAt":' .. now .. ',"content":' .. cjson.encode(ARGV[2]) .. '}}')
return {'changed', rev}
