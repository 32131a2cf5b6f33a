-- Called by the Rust test (engine/tests/worlds.rs), which advances the
-- clock between the calls (World::tick).
makeclass("check")

local function at(t, x, y, z)
  local px, py, pz = position(t)
  assert(px == x and py == y and pz == z,
    string.format("tick %d: at %g,%g,%g, expected %g,%g,%g", now(), px, py, pz, x, y, z))
end

local function ids(list)
  local out = {}
  for i, t in ipairs(list) do out[i] = getid(t) end
  return table.concat(out, ",")
end

-- Tick 0: a walker at the origin goes to (10, 0, 0) in 10 ticks, then to
-- (10, 20, 0) in 5 more; a post stands at (5, 0, 0); a runner teleports.
function check.start()
  assert(now() == 0)
  local g = global("m")
  g.w = newtangible(walker, 0, 0, 0)
  g.post = newtangible(walker, 5, 0, 0)
  g.far = newtangible(walker, 1000, 1000, 1000)
  g.w:walk(10, 0, 0, 10)
  moveto(g.w, 10, 20, 0, 5)
  at(g.w, 0, 0, 0)
  moveto(g.far, 0, 0, 1, 0)        -- 0 ticks: a teleport, at once
  at(g.far, 0, 0, 1)
  assert(ids(scanradius(0, 0, 0, 1)) == "1,3", ids(scanradius(0, 0, 0, 1)))
  assert(ids(scanradius(g.post, 5)) == "1,2", "inclusive at exactly 5; the post itself")
  assert(ids(scanradius(g.post, 4.9)) == "2")
  return true
end

-- Tick 5: halfway along the first step.
function check.t5()
  local g = global("m")
  assert(now() == 5)
  at(g.w, 5, 0, 0)
  assert(ids(scanradius(g.post, 0)) == "1,2", "the walker is on the post")
  assert(ids(scanradius(0, 0, 0, 4.9)) == "3")
  return true
end

-- Tick 12: on the second step, 2 of 5 ticks along.
function check.t12()
  local g = global("m")
  at(g.w, 10, 8, 0)
  assert(ids(scanradius(10, 10, 0, 2)) == "1")
  assert(ids(scanradius(10, 20, 0, 5)) == "")
  return true
end

-- Tick 20: arrived (the queue settled at tick 15). A new move departs now.
function check.t20()
  local g = global("m")
  at(g.w, 10, 20, 0)
  assert(ids(scanradius(10, 20, 0, 0)) == "1")
  moveto(g.w, 10, 20, 30, 3)
  at(g.w, 10, 20, 0)
  return true
end

-- Tick 21: a third of the way up.
function check.t21()
  local g = global("m")
  at(g.w, 10, 20, 10)
  return true
end
