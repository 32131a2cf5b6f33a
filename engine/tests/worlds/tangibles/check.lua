-- Called by the Rust test (engine/tests/worlds.rs), in order.
makeclass("check")

-- f() must fail with a message containing `want` (plain text). The calls
-- are wrapped in closures so that messages name the function, as in Lua.
local function fails(want, f)
  local ok, err = pcall(f)
  assert(not ok, "expected an error: " .. want)
  assert(string.find(err, want, 1, true), "got: " .. tostring(err) .. "\nwanted: " .. want)
end

function check.create()
  local a = newtangible(torch, 1, 2, 3)
  local b = newtangible("lamp", -1, 0.5, 0)
  assert(type(a) == "table" and type(b) == "table")
  local ia, ib = getid(a), getid(b)
  assert(math.type(ia) == "integer" and ia >= 1 and ib ~= ia)
  assert(gettangible(ia) == a and gettangible(ib) == b)
  assert(gettangible(ib + 1000) == nil)
  assert(gettangible(ia + 0.0) == a, "a float with an integer value is an id")
  local x, y, z = position(a)
  assert(x == 1 and y == 2 and z == 3)
  -- Methods come from the class, script data is the script's: every key.
  assert(a:light() == "lit " .. ia and a.lit == true)
  a.__id, a.__index, a.threads, a[1] = "mine", "mine too", 5, "one"
  assert(a.__id == "mine" and a.__index == "mine too" and a.threads == 5 and a[1] == "one")
  assert(getid(a) == ia, "script keys do not touch the engine's")
  assert(a.action.douse and b:light() == "lamp " .. ib)
  local g = global("things")
  g.a, g.b = a, b
  return ia .. "," .. ib
end

function check.protected()
  local a = global("things").a
  assert(getmetatable(a) == "tangible", "getmetatable gives the protection string")
  fails("cannot change a protected metatable", function() return setmetatable(a, {}) end)
  fails("cannot change a protected metatable", function() return setmetatable(a, nil) end)
  assert(getid(a) and a.light, "still a tangible")
  -- A look-alike table is not a tangible.
  local fake = setmetatable({}, {__id = getid(a), __metatable = "tangible"})
  fails("bad argument #1 to 'getid' (tangible expected, got table)", function() return getid(fake) end)
  return true
end

function check.setclass()
  local a = global("things").a
  setclass(a, lamp)
  assert(a:light() == "lamp " .. getid(a))
  assert(getmetatable(a) == "tangible")
  fails("cannot change a protected metatable", function() return setmetatable(a, {}) end)
  setclass(a, "torch")
  assert(a:light() == "lit " .. getid(a))
  setclass(a, plain)
  assert(a.light == nil)
  setclass(a, torch)
  return true
end

function check.errors()
  local a = global("things").a
  fails("bad argument #1 to 'moveto' (tangible expected, got nil)", function() return moveto(nil, 1, 2, 3, 4) end)
  fails("bad argument #1 to 'getid' (tangible expected, got table)", function() return getid({}) end)
  fails("bad argument #1 to 'position' (tangible expected, got number)", function() return position(5) end)
  fails("bad argument #1 to 'newtangible' (class or class name expected, got nil)", function() return newtangible(nil, 0, 0, 0) end)
  fails("bad argument #1 to 'newtangible' (no class 'dragon')", function() return newtangible("dragon", 0, 0, 0) end)
  fails("bad argument #1 to 'newtangible' (table is not a class", function() return newtangible({}, 0, 0, 0) end)
  fails("bad argument #3 to 'newtangible' (number expected, got no value)", function() return newtangible(torch, 1) end)
  fails("bad argument #2 to 'newtangible' (coordinate is not finite)", function() return newtangible(torch, 0/0, 0, 0) end)
  fails("bad argument #5 to 'moveto' (number expected, got no value)", function() return moveto(a, 1, 2, 3) end)
  fails("bad argument #5 to 'moveto' (ticks must not be negative)", function() return moveto(a, 1, 2, 3, -1) end)
  fails("bad argument #5 to 'moveto' (number has no integer representation)", function() return moveto(a, 1, 2, 3, 1.5) end)
  fails("bad argument #2 to 'setclass' (no class 'dragon')", function() return setclass(a, "dragon") end)
  fails("bad argument #2 to 'scanradius' (radius must be a non-negative number)", function() return scanradius(a, -1) end)
  fails("bad argument #4 to 'scanradius' (number expected, got no value)", function() return scanradius(1, 2, 3) end)
  fails("bad argument #1 to 'gettangible' (number expected, got string)", function() return gettangible("x") end)
  -- Not entries of the environment, and the guard still holds.
  assert(rawget(_G, "newtangible") == nil and rawget(_G, "scanradius") == nil)
  fails("cannot assign global 'now'", function() now = 5 end)
  return true
end

function check.destroy()
  local g = global("things")
  local a, b = g.a, g.b
  local ia = getid(a)
  destroy(a)
  assert(gettangible(ia) == nil)
  assert(a.lit == true, "script data stays readable")
  local msg = "tangible " .. ia .. " was destroyed"
  fails("bad argument #1 to 'getid' (" .. msg .. ")", function() return getid(a) end)
  fails("bad argument #1 to 'position' (" .. msg .. ")", function() return position(a) end)
  fails("bad argument #1 to 'moveto' (" .. msg .. ")", function() return moveto(a, 0, 0, 0, 1) end)
  fails("bad argument #1 to 'destroy' (" .. msg .. ")", function() return destroy(a) end)
  fails("bad argument #1 to 'setclass' (" .. msg .. ")", function() return setclass(a, lamp) end)
  fails("bad argument #1 to 'scanradius' (" .. msg .. ")", function() return scanradius(a, 10) end)
  -- The other one is unaffected; new ids are never reused.
  assert(gettangible(getid(b)) == b)
  local c = newtangible(torch, 0, 0, 0)
  assert(getid(c) > getid(b) and getid(c) ~= ia)
  g.c = c
  return tostring(getid(c))
end
