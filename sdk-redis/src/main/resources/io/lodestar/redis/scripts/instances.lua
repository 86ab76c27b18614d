-- instances: the stored form of an instance (not a script of its own; see common.lua).

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

-- The stored form of an instance: its public JSON (what events carry and readers read) with, last, the token of the
-- client whose lease renews it ("owner", see renew_instance.lua), which readers skip and events never carry. A
-- stored instance ends with owner_suffix(owner): renew_instance.lua compares that end only.
local function owner_suffix(owner)
  return ',"owner":"' .. owner .. '"}'
end

local function with_owner(public, owner)
  return string.sub(public, 1, -2) .. owner_suffix(owner)
end

-- The public JSON of a stored instance whose owner (decoded from it) is owner, or nil.
local function public_of(stored, owner)
  if owner == nil then
    return stored
  end
  return string.sub(stored, 1, #stored - #owner_suffix(owner)) .. '}'
end

-- True when a stored instance shows readers what public shows: the same JSON, apart from its owner (see with_owner).
-- Compares lengths and substrings (no pattern over the whole JSON: that costs Redis more than the write's commands).
local function same_public(stored, public)
  local n = #public - 1
  return stored == public or (string.sub(stored, 1, n) == string.sub(public, 1, n)
    and string.find(stored, '^,"owner":"%x*"}$', n + 1) ~= nil)
end
