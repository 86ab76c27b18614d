-- stored: what a script reads out of a stored instance's JSON (not a script of its own), for the scripts that call
-- it (deregister, update, renew, the sweep), not every script that includes common.lua: Redis runs a script's whole
-- text on every call, and each function defined costs it a closure. Needs instances.lua.

-- A stored instance's JSON decoded, or nil when it is not a JSON object (another program wrote it): what a script
-- cannot read it still removes (deregister, evict, expiry), and it never stops a script after its first write.
local function decoded(stored)
  local ok, instance = pcall(cjson.decode, stored)
  if ok and type(instance) == 'table' then
    return instance
  end
  return nil
end

-- The TTL (ms) in a stored instance's JSON; 0 when it is persistent or unreadable. Our writers put "ttl" at the top
-- level only (metadata values are strings), so a match is the instance's own; anything else is decoded.
local function ttl_of(stored)
  local ttl = string.match(stored, '"ttl":(%d+)')
  if ttl then
    return tonumber(ttl)
  end
  local instance = decoded(stored)
  return instance and tonumber(instance.ttl) or 0
end

-- The public JSON of a stored instance whose owner (decoded from it) is owner, or nil.
local function public_of(stored, owner)
  if owner == nil then
    return stored
  end
  return string.sub(stored, 1, #stored - #owner_suffix(owner)) .. '}'
end
