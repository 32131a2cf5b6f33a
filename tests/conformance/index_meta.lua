-- __index / __newindex: tables and functions, chains, depth, rawget/rawset.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end

-- __index table
do
  local base = {x = 1, y = 2}
  local t = setmetatable({y = 20}, {__index = base})
  eq(t.x, 1, "inherited")
  eq(t.y, 20, "own field shadows")
  eq(t.z, nil, "missing in both")
  eq(rawget(t, "x"), nil, "rawget skips __index")
  base.z = 3
  eq(t.z, 3, "lookup is dynamic")
end

-- __index function gets (table, key)
do
  local calls = 0
  local t = setmetatable({}, {__index = function(tab, k)
    calls = calls + 1
    return k .. "!"
  end})
  eq(t.abc, "abc!", "__index function")
  eq(t[1], "1!", "numeric key")
  eq(calls, 2, "called per access")
  t.abc = "own"
  eq(t.abc, "own", "existing key no call")
  eq(calls, 2, "no extra call")
  -- only first result of the function is used
  local u = setmetatable({}, {__index = function() return 1, 2, 3 end})
  local a, b = u.x
  eq(a, 1, "first result")
  eq(b, nil, "single value")
end

-- chains of depth 100
do
  local root = {answer = 42}
  local t = root
  for i = 1, 100 do
    t = setmetatable({["level" .. i] = i}, {__index = t})
  end
  eq(t.answer, 42, "deep chain")
  eq(t.level1, 1, "deep chain level1")
  eq(t.level100, 100, "own level")
  eq(t.missing, nil, "deep chain miss")
end

-- mixed chain: table -> function
do
  local log = ""
  local f = setmetatable({}, {__index = function(_, k) log = log .. k return "fn:" .. k end})
  local mid = setmetatable({m = "mid"}, {__index = f})
  local top = setmetatable({}, {__index = mid})
  eq(top.m, "mid", "mid level")
  eq(top.q, "fn:q", "function at end of chain")
  eq(log, "q", "function called with key")
  -- the function receives the table where it is installed, not the original
  local got
  local g = setmetatable({}, {__index = function(tab) got = tab return 0 end})
  local h = setmetatable({}, {__index = g})
  local _ = h.foo
  assert(rawequal(got, g), "__index function receives the table that owns the metatable")
end

-- __newindex table: assignment goes to the other table
do
  local store = {}
  local t = setmetatable({}, {__newindex = store})
  t.a = 1
  eq(rawget(t, "a"), nil, "not stored in t")
  eq(store.a, 1, "stored in store")
  rawset(t, "b", 2)
  eq(t.b, 2, "rawset bypasses")
  t.b = 3
  eq(t.b, 3, "existing key updated directly")
  eq(store.b, nil, "__newindex not called for existing key")
end

-- __newindex function
do
  local log = ""
  local t = setmetatable({}, {__newindex = function(tab, k, v)
    log = log .. k .. "=" .. tostring(v) .. ";"
    rawset(tab, k, v and v * 2)
  end})
  t.x = 5
  t.x = 6
  eq(t.x, 6, "second assignment direct")
  eq(log, "x=5;", "called once")
  t[1] = 1
  eq(t[1], 2, "integer key through __newindex")
  -- assigning nil to an absent key still calls __newindex
  t.y = nil
  eq(log, "x=5;1=1;y=nil;", "nil assignment")
end

-- __newindex chain: table with its own __newindex
do
  local log = ""
  local last = setmetatable({}, {__newindex = function(_, k, v) log = log .. k end})
  local mid = setmetatable({}, {__newindex = last})
  local top = setmetatable({}, {__newindex = mid})
  top.hello = 1
  eq(log, "hello", "newindex chain reaches function")
  eq(rawget(mid, "hello"), nil, "not stored in mid")
end

-- read-only proxy pattern
do
  local function readonly(t)
    return setmetatable({}, {
      __index = t,
      __newindex = function(_, k) error("attempt to update a read-only table", 2) end,
      __len = function() return #t end,
    })
  end
  local days = readonly({"Sun", "Mon", "Tue"})
  eq(days[2], "Mon", "proxy read")
  eq(#days, 3, "proxy len")
  eq(errof(function() days[4] = "x" end), "index_meta.lua:130: attempt to update a read-only table", "proxy write level 2")
end

-- default values
do
  local defaults = setmetatable({}, {__index = function() return 0 end})
  local counts = setmetatable({}, {__index = defaults})
  for _, w in ipairs({"a", "b", "a", "c", "a"}) do counts[w] = counts[w] + 1 end
  eq(counts.a, 3, "count a")
  eq(counts.b, 1, "count b")
  eq(counts.z, 0, "default")
end

-- __index on non-table values via metatables is not available for numbers/booleans
eq(errof(function(x) return x.y end, 5), "index_meta.lua:144: attempt to index a number value (local 'x')", "index number")
eq(errof(function(x) x.y = 1 end, true), "index_meta.lua:145: attempt to index a boolean value (local 'x')", "newindex boolean")

-- a too-long __index chain (loop) is detected
do
  local a, b = {}, {}
  setmetatable(a, {__index = b})
  setmetatable(b, {__index = a})
  eq(errof(function() return a.x end), "index_meta.lua:152: '__index' chain too long; possible loop", "__index loop")
  setmetatable(a, {__newindex = b})
  setmetatable(b, {__newindex = a})
  eq(errof(function() a.x = 1 end), "index_meta.lua:155: '__newindex' chain too long; possible loop", "__newindex loop")
end

-- __index with integer keys and array part
do
  local proto = {10, 20, 30}
  local t = setmetatable({nil, 2}, {__index = proto})
  eq(t[1], 10, "missing array slot goes to __index")
  eq(t[2], 2, "present slot")
  eq(t[3], 30, "beyond")
end

-- classes
do
  local Animal = {}
  Animal.__index = Animal
  function Animal.new(name, sound) return setmetatable({name = name, sound = sound}, Animal) end
  function Animal:speak() return self.name .. " says " .. self.sound end
  local Dog = setmetatable({}, {__index = Animal})
  Dog.__index = Dog
  function Dog.new(name) local d = Animal.new(name, "woof") return setmetatable(d, Dog) end
  function Dog:fetch() return self.name .. " fetches" end
  local d = Dog.new("Rex")
  eq(d:speak(), "Rex says woof", "inherited method")
  eq(d:fetch(), "Rex fetches", "own method")
  eq(getmetatable(d), Dog, "metatable")
end

return "OK"
