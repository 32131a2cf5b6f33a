-- items.lua: items and inventories. Shows: game data as table graphs with
-- cycles. An item is a plain table of class `item`; a holder (a player, a
-- chest) keeps its items in its `bag` array, and every item points back at
-- its holder (`item.owner`), so holder -> bag -> item -> holder is a cycle.
-- Moving an item moves it between two bags and changes its owner. Bags are
-- created on first use with `default`, so a model that never saw them
-- filled (a client's prediction) still works.

local item = makeclass("item")

function item.new(kind, owner)
  local it = setmetatable({ kind = kind }, item)
  if owner then bag.put(owner, it) end
  return it
end

function item:__tostring() return self.kind end

local bag = makeclass("bag")

-- The bag of `holder` (made empty the first time).
function bag.of(holder) return default(holder, "bag", {}) end

-- Puts item `it` in `holder`'s bag; the item now knows its owner.
function bag.put(holder, it)
  local b = bag.of(holder)
  b[#b + 1] = it
  it.owner = holder
  return it
end

-- Takes one item of `kind` out of `holder`'s bag (nil if there is none).
function bag.take(holder, kind)
  local b = bag.of(holder)
  for i, it in ipairs(b) do
    if it.kind == kind then
      table.remove(b, i)
      it.owner = nil
      return it
    end
  end
  return nil
end

-- How many items of `kind` `holder` has.
function bag.count(holder, kind)
  local n = 0
  for _, it in ipairs(bag.of(holder)) do
    if it.kind == kind then n = n + 1 end
  end
  return n
end

-- "2 stone, 1 wood" (kinds in alphabetical order), or "nothing".
function bag.describe(holder)
  local counts, kinds = {}, {}
  for _, it in ipairs(bag.of(holder)) do
    if counts[it.kind] == nil then kinds[#kinds + 1] = it.kind end
    counts[it.kind] = (counts[it.kind] or 0) + 1
  end
  if #kinds == 0 then return "nothing" end
  table.sort(kinds)
  local parts = {}
  for i, k in ipairs(kinds) do parts[i] = counts[k] .. " " .. k end
  return table.concat(parts, ", ")
end
