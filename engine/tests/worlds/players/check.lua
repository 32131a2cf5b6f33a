makeclass("check")

local function near(a, b) return math.abs(a - b) < 1e-9 end

-- walk() from scripts: any tangible, its class's speed, the hook.
function check.script_walk()
  local hat = newtangible("hat", 0, 0, 0)
  hat.walkspeed = 0.5
  assert(walk(hat, 3, 4) == true)          -- z stays
  local x, y, z = position(hat)
  assert(x == 0 and y == 0 and z == 0)
  local ok, err = pcall(walk, hat, "x", 1)
  assert(not ok and err:find("bad argument #2 to 'walk' %(number expected, got string%)"), err)
  ok, err = pcall(walk, nil, 1, 1)
  assert(not ok and err:find("bad argument #1 to 'walk' %(tangible expected, got no value%)"), err)
  ok, err = pcall(walk, hat, 0/0, 1)
  assert(not ok and err:find("coordinate is not finite"), err)
  hat.walkspeed = -1
  ok, err = pcall(walk, hat, 1, 1)
  assert(not ok and err:find("walkspeed of tangible %d+ is not a positive number"), err)
  return tostring(getid(hat))
end

function check.hat_at(id)
  return table.concat({position(gettangible(id))}, " ")
end
