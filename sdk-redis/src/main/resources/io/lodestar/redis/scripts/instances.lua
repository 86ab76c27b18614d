-- instances: the stored form of an instance, as writers build it (not a script of its own; see common.lua); reading
-- one back is stored.lua's.

-- The stored form of an instance: its public JSON (what events carry and readers read) with, last, the token of the
-- client whose lease renews it ("owner", see renew_instance.lua), which readers skip and events never carry. A
-- stored instance ends with owner_suffix(owner): renew_instance.lua compares that end only.
local function owner_suffix(owner)
  return ',"owner":"' .. owner .. '"}'
end

local function with_owner(public, owner)
  return string.sub(public, 1, -2) .. owner_suffix(owner)
end

-- True when a stored instance shows readers what public shows: the same JSON, apart from its owner (see with_owner).
-- Compares lengths and substrings (no pattern over the whole JSON: that costs Redis more than the write's commands).
local function same_public(stored, public)
  local n = #public - 1
  return stored == public or (string.sub(stored, 1, n) == string.sub(public, 1, n)
    and string.find(stored, '^,"owner":"%x*"}$', n + 1) ~= nil)
end
