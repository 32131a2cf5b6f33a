-- chest.lua: the village chest. Shows: shared data. The chest is one
-- tangible that every player sees; its `bag` holds items whose `owner` is
-- the chest, so putting and taking moves an item between two table graphs
-- (player -> bag -> item -> owner) and everyone near sees the change.

local chest = maketangible("chest")
chest.glyph = "C"

-- /open: what is in the chest.
function chest:open()
  if util.user(self) == nil then return end
  print("The chest holds " .. bag.describe(self) .. ".")
end
permit_invoke(chest, "open")

-- /put KIND: moves one of your items into the chest.
function chest:put(kind)
  local who = util.user(self)
  if who == nil then return end
  local it = bag.take(who, tostring(kind))
  if it == nil then print("You have no " .. tostring(kind) .. ".") return end
  bag.put(self, it)
  print("You put a " .. it.kind .. " in the chest.")
  util.announce(who, util.label(who) .. " puts a " .. it.kind .. " in the chest.")
end
permit_invoke(chest, "put")

-- /take KIND: takes one item of that kind from the chest.
function chest:take(kind)
  local who = util.user(self)
  if who == nil then return end
  local it = bag.take(self, tostring(kind))
  if it == nil then print("The chest has no " .. tostring(kind) .. ".") return end
  bag.put(who, it)
  print("You take a " .. it.kind .. " from the chest.")
  util.announce(who, util.label(who) .. " takes a " .. it.kind .. " from the chest.")
end
permit_invoke(chest, "take")
