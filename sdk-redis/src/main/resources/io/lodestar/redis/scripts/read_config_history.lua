-- read_config_history: reads one page of the kept versions of a config atomically. Writes nothing. A page stops
-- once it holds ARGV[2] bytes (but has at least one entry), so no reply comes near Redis' output-buffer limits
-- however large contents and history are; the caller asks for the next page below the last version it got.
-- KEYS[1] history stream (see config_common.lua)
-- ARGV[1] read versions below this one ('+inf' for the first page), ARGV[2] page budget in bytes
-- Returns {1 if older versions remain else 0, entry JSON, ...}, newest first (see config_common.lua).
--#include history.lua
local below = ARGV[1] == '+inf' and '+' or '(' .. ARGV[1] .. '-0'
local result = {0}
if append_page(result, KEYS[1], below, '-', true, 0, tonumber(ARGV[2])) then
  result[1] = 1
end
return result
