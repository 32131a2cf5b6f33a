-- village.lua: the map. Shows: world start. `village.init` runs once, when
-- the master world is created (never on a reload, never in a client), and
-- places the things of the village; after that they live in the world
-- (and are kept with it), whatever the scripts do. The sign shows the
-- reloadable text of tuning.lua.

local village = makeclass("village")

local sign = maketangible("sign")
sign.glyph = "?"

-- /read: the sign on the square.
function sign:read()
  if util.user(self) == nil then return end
  print("The sign reads: " .. tuning.motd)
end
permit_invoke(sign, "read")

function village.init()
  newtangible(sign, 0, 1, 0)
  newtangible("workbench", 5, 0, 0)
  newtangible("chest", -5, 0, 0)
  newtangible("cat", 2, 3, 0)
  for _, p in ipairs({ { 8, 5 }, { 11, 6 }, { 14, 4 }, { 9, 8 }, { -9, 6 }, { -15, 2 } }) do
    newtangible("tree", p[1], p[2], 0)
  end
  for _, p in ipairs({ { 10, -5 }, { 13, -7 }, { -6, -7 } }) do
    newtangible("rock", p[1], p[2], 0)
  end
end
