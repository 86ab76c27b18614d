-- page_entries: a helper included by the paged config reads (not a script of its own).
-- Appends the history entries of the given versions to result, in order, until the reply holds budget bytes (but at
-- least one entry is added). bytes: what the reply already holds. Returns true when versions remain for a next page.
local function append_page(result, history, versions, bytes, budget)
  for i, version in ipairs(versions) do
    if i > 1 and bytes >= budget then
      return true
    end
    local entry = redis.call('HGET', history, version)
    if entry then
      result[#result + 1] = entry
      bytes = bytes + #entry
    end
  end
  return false
end
