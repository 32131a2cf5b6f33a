-- nature.lua: trees and rocks. Shows: predicted commands that change the
-- world (a client sees its wood at once, before the server confirms), and
-- `setclass` with a sleeping thread: a chopped tree becomes a stump (its
-- class, so its glyph and its methods, change), the command's thread
-- sleeps `tuning.regrow` ticks, and the stump grows back into a tree.

local tree = maketangible("tree")
tree.glyph = "T"
local stump = maketangible("stump")
stump.glyph = "t"
local rock = maketangible("rock")
rock.glyph = "R"
local rubble = maketangible("rubble")
rubble.glyph = "r"

-- Harvests `thing`: gives the player `n` items of `kind`, turns the thing
-- into `spent` until it regrows, then back into `class`.
local function harvest(thing, kind, n, spent, class, verb)
  local who = util.user(thing)
  if who == nil then return end
  for _ = 1, n do item.new(kind, who) end
  print("You " .. verb .. " " .. n .. " " .. kind .. " (you have " .. bag.count(who, kind) .. ").")
  setclass(thing, spent)
  sleep(tuning.regrow)
  setclass(thing, class)
end

-- /chop: wood from a tree (more with an axe).
function tree:chop()
  local who = actor()
  local n = (who and bag.count(who, "axe") > 0) and tuning.axe_bonus or 1
  harvest(self, "wood", n, stump, tree, "chop")
end
permit_invoke(tree, "chop")

-- /mine: stone from a rock.
function rock:mine()
  harvest(self, "stone", 1, rubble, rock, "mine")
end
permit_invoke(rock, "mine")

local function regrowing(self)
  print("Nothing left here; it grows back soon.")
end
stump.chop = regrowing
rubble.mine = regrowing
permit_invoke(stump, "chop")
permit_invoke(rubble, "mine")
