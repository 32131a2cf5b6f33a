-- The 200 nested C calls (LUAI_MAXCCALLS) and what counts toward them:
-- resumes, calls from natives (pcall, xpcall, table.sort, string.gsub),
-- metamethods, __call (which does not count) and a script's own two
-- levels. Each line reports how deep a recursion got before the limit.
-- An error rethrown at each level gathers one position per level: print
-- how many, with the message left.
local function summary(err)
  local msg, positions = tostring(err):gsub("c_stack_levels%.lua:%d+: ", "")
  return msg .. " (" .. positions .. " positions)"
end

local function report(name, f)
  local depth = 0
  local function bump() depth = depth + 1 end
  local ok, err = pcall(f, bump)
  print(name, ok, summary(err), depth)
end

-- Nested resumes: each coroutine starts the next.
report("resume", function(bump)
  local function nest()
    bump()
    local co = coroutine.create(nest)
    local ok, e = coroutine.resume(co)
    if not ok then error(e, 0) end
    return e
  end
  return nest()
end)

-- A chain of generators, each pulling from the one below (a prime sieve).
local function sieve(n)
  local gen = coroutine.wrap(function()
    local i = 2
    while true do coroutine.yield(i); i = i + 1 end
  end)
  local found = {}
  for _ = 1, n do
    local src = gen
    local ok, p = pcall(src)
    if not ok then found[#found + 1] = summary(p); break end
    found[#found + 1] = p
    gen = coroutine.wrap(function()
      while true do
        local v = src()
        if v % p ~= 0 then coroutine.yield(v) end
      end
    end)
  end
  return found
end
local primes = sieve(230)
print(#primes, primes[#primes - 1], primes[#primes])

-- Started with a yield, then resumed under pcall: two levels per step.
report("wrap+pcall", function(bump)
  local function nest()
    bump()
    local co = coroutine.wrap(function() coroutine.yield(0); return nest() end)
    co()
    return co()
  end
  return nest()
end)

report("pcall", function(bump)
  local function pc() bump(); local ok, e = pcall(pc); if not ok then error(e, 0) end end
  return pc()
end)

report("xpcall", function(bump)
  local function xp()
    bump()
    local ok, e = xpcall(xp, function(m) return m end)
    if not ok then error(e, 0) end
  end
  return xp()
end)

report("__index", function(bump)
  local t = setmetatable({}, {__index = function(t, k) bump(); return t[k + 1] end})
  return t[1]
end)

report("__add", function(bump)
  local mt = {}
  mt.__add = function(a, b) bump(); return a + 1 end
  return setmetatable({}, mt) + 1
end)

report("__lt", function(bump)
  local o = setmetatable({}, {__lt = function(a, b) bump(); return a < b end})
  return o < o
end)

report("__concat", function(bump)
  local o = setmetatable({}, {__concat = function(a, b) bump(); return a .. b end})
  return o .. "x"
end)

report("__newindex", function(bump)
  local o = setmetatable({}, {__newindex = function(t, k, v) bump(); t[k] = v end})
  o.x = 1
end)

report("sort", function(bump)
  local function s() bump(); table.sort({3, 2, 1}, function(a, b) s(); return a < b end) end
  return s()
end)

report("gsub", function(bump)
  local function g() bump(); return (string.gsub("a", "a", g)) end
  return g()
end)

-- Mixed: a metamethod that resumes a coroutine that calls pcall.
report("mixed", function(bump)
  local mt = {}
  local function step()
    bump()
    local co = coroutine.wrap(function()
      local ok, e = pcall(function() return setmetatable({}, mt) + 1 end)
      if not ok then error(e, 0) end
      return e
    end)
    return co()
  end
  mt.__add = function() return step() end
  return step()
end)

-- After an error is caught inside a coroutine, the count is the resume's.
report("caught", function(bump)
  local co = coroutine.wrap(function()
    local function deep(n) if n == 0 then error("bottom") end; return pcall(deep, n - 1) end
    print("inner", select("#", deep(150)), select(-1, deep(150)))
    local function nest() bump(); local ok, e = pcall(nest); if not ok then error(e, 0) end end
    return nest()
  end)
  return co()
end)

-- A coroutine that yields inside pcall: once resumed, the pending pcall
-- holds no level (the resume resets the count).
report("yield in pcall", function(bump)
  local co = coroutine.wrap(function()
    local ok, e = pcall(function()
      coroutine.yield()
      local function pc() bump(); local ok, e = pcall(pc); if not ok then error(e, 0) end end
      return pc()
    end)
    error(e, 0)
  end)
  co()
  return co()
end)

-- The same with a metamethod pending, and the recursion after it returns.
report("yield in __index", function(bump)
  local t = setmetatable({}, {__index = function(_, k) coroutine.yield(); return k end})
  local co = coroutine.wrap(function()
    local v = t.x
    local function pc() bump(); local ok, e = pcall(pc); if not ok then error(e, 0) end end
    return v, pc()
  end)
  co()
  return co()
end)

-- Errors caught at every level leave the count where it was.
report("after errors", function(bump)
  for _ = 1, 300 do pcall(error, "x") end
  for _ = 1, 50 do pcall(function() return setmetatable({}, {__index = function() error("y") end}).k end) end
  local function pc() bump(); local ok, e = pcall(pc); if not ok then error(e, 0) end end
  return pc()
end)

-- A message handler that fails runs again on its own error, a level
-- deeper each time, until "error in error handling".
do
  local n = 0
  print("handler errors", xpcall(error, function(e) n = n + 1; error(e, 0) end, "x"))
  print("handler runs", n)
end
