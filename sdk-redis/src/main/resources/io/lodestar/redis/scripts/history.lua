-- history: how a config entry's history stream is read (see config_common.lua), included by the config write
-- scripts (config_common.lua) and the paged config reads (not a script of its own).

-- The version a history stream entry (as XRANGE answers it: {id, {field, value}}) keeps, and its JSON. Fails,
-- naming the key, when it is not a kept version.
local function kept_version(history, item)
  local version = string.match(item[1], '^(%d+)-0$')
  if not version or item[2][1] ~= 'entry' or not item[2][2] then
    error({err = 'CORRUPT ' .. history .. ' entry ' .. item[1] .. ' does not hold a config version'})
  end
  return version, item[2][2]
end

-- The JSON of a kept version (a number or its digits), or nil when it is not kept.
local function kept_json(history, version)
  local id = version .. '-0'
  local found = redis.call('XRANGE', history, id, id)
  return found[1] and select(2, kept_version(history, found[1])) or nil
end

-- The oldest or the newest kept version (a number; 0 when none).
local function end_version(history, newest)
  local found = newest and redis.call('XREVRANGE', history, '+', '-', 'COUNT', 1)
    or redis.call('XRANGE', history, '-', '+', 'COUNT', 1)
  return found[1] and tonumber((kept_version(history, found[1]))) or 0
end

-- Appends the JSON of the history entries after `from` (an exclusive stream ID: '(<version>-0'; or '-' / '+' for
-- the first or the last) toward `to`, oldest first (XRANGE) or newest first (reverse: XREVRANGE), to result until
-- the reply holds budget bytes (but at least one entry is added), reading the stream 2, 4, 8, ... up to 64 entries
-- at a time: few calls for a long history of small entries, and little read past the budget for large ones.
-- bytes: what the reply already holds. Returns true when entries remain for a next page.
local function append_page(result, history, from, to, reverse, bytes, budget)
  local added, batch = 0, 2
  while true do
    local full = added > 0 and bytes >= budget
    local items = redis.call(reverse and 'XREVRANGE' or 'XRANGE', history, from, to, 'COUNT', full and 1 or batch)
    if full then -- only whether more remain
      return items[1] ~= nil
    end
    for _, item in ipairs(items) do
      if added > 0 and bytes >= budget then
        return true
      end
      local _, entry = kept_version(history, item)
      result[#result + 1] = entry
      bytes, added = bytes + #entry, added + 1
    end
    if #items < batch then
      return false
    end
    from, batch = '(' .. items[#items][1], math.min(batch * 2, 64)
  end
end
