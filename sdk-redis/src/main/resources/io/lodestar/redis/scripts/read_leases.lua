-- read_leases: one page of a service's deadlines, with Redis' clock, so that a reader can tell how long each
-- ephemeral instance has left before it expires unless renewed (operator tools: "TTL left"). Writes nothing.
-- KEYS[1] deadlines zset
-- ARGV[1] offset, ARGV[2] page size (pages keep one call short on services with very many instances)
-- Returns {now (epoch ms, Redis time), id1, deadline1, id2, deadline2, ...}, ordered by deadline.
--#include common.lua
local offset, size = tonumber(ARGV[1]), tonumber(ARGV[2])
local page = redis.call('ZRANGE', KEYS[1], offset, offset + size - 1, 'WITHSCORES')
table.insert(page, 1, now_ms())
return page
