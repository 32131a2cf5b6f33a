-- cat.lua: the village cat. Shows: an animation queue built by a script:
-- /pet queues three `moveto` steps that carry the cat away from whoever
-- petted it, and every model computes the same positions from them, tick
-- by tick, with no further messages.

local cat = maketangible("cat")
cat.glyph = "c"

-- /pet: the cat purrs and trots off, away from you, in three hops.
function cat:pet()
  local who = util.user(self)
  if who == nil then return end
  local cx, cy, cz = position(self)
  local px, py = position(who)
  local dx = cx >= px and 1 or -1
  local dy = cy >= py and 1 or -1
  local f = tuning.fence
  local function clampx(x) return math.max(f.xmin, math.min(f.xmax, x)) end
  local function clampy(y) return math.max(f.ymin, math.min(f.ymax, y)) end
  halt(self)
  moveto(self, clampx(cx + 2 * dx), cy, cz, 3)
  moveto(self, clampx(cx + 2 * dx), clampy(cy + 2 * dy), cz, 3)
  moveto(self, clampx(cx + 4 * dx), clampy(cy + 2 * dy), cz, 4)
  self.petted = (self.petted or 0) + 1
  print("Purr. The cat has been petted " .. self.petted .. " times; off it trots.")
  util.announce(who, util.label(who) .. " pets the cat.")
end
permit_invoke(cat, "pet")
