-- __gc finalizers: run on collectgarbage(), reverse order of marking,
-- only when __gc is present at setmetatable time, once per object,
-- resurrection.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
-- The collector is stopped for the whole file so that automatic steps never
-- split a batch of objects across cycles; explicit collectgarbage() calls
-- still perform full collections and run pending finalizers.
collectgarbage("stop")
local log = ""
local function mk(name)
  return setmetatable({name = name}, {__gc = function(o) log = log .. o.name .. ";" end})
end
local function full() collectgarbage() collectgarbage() end

-- finalizers run in reverse order of marking (setmetatable order)
do
  local function make() mk("a") mk("b") mk("c") end
  log = ""
  make()
  full()
  eq(log, "c;b;a;", "reverse order of setmetatable")
end

-- reachable objects are not finalized
do
  log = ""
  local keep = mk("kept")
  local function make() mk("1") mk("2") end
  make()
  full()
  eq(log, "2;1;", "only unreachable objects finalized")
  keep = nil
  full()
  eq(log, "2;1;kept;", "finalized once unreachable")
end

-- __gc must be present when setmetatable is called
do
  log = ""
  local function make()
    local mt = {}
    setmetatable({name = "late"}, mt)
    mt.__gc = function(o) log = log .. o.name .. ";" end
  end
  make()
  full()
  eq(log, "", "object not marked for finalization")
  -- a __gc field set to a non-function value at setmetatable time still marks it
  local function make2()
    local mt = {__gc = true}
    setmetatable({name = "marked"}, mt)
    mt.__gc = function(o) log = log .. o.name .. ";" end
  end
  make2()
  full()
  eq(log, "marked;", "placeholder __gc marks the object")
end

-- each object is finalized only once, even if resurrected
do
  log = ""
  local saved
  local function make()
    setmetatable({name = "phoenix"}, {__gc = function(o)
      log = log .. o.name .. ";"
      saved = o -- resurrect
    end})
  end
  make()
  full()
  eq(log, "phoenix;", "finalized")
  eq(saved.name, "phoenix", "resurrected object is usable")
  saved = nil
  full()
  eq(log, "phoenix;", "not finalized again")
end

-- errors in finalizers do not propagate (they are warnings in 5.4)
do
  local function make()
    setmetatable({}, {__gc = function() error("gc error") end})
  end
  make()
  local ok = pcall(full)
  eq(ok, true, "collectgarbage does not raise finalizer errors")
end

-- finalizers can allocate and see other objects
do
  log = ""
  local registry = {}
  local function make()
    for i = 1, 3 do
      setmetatable({id = i}, {__gc = function(o) registry[#registry + 1] = {o.id} end})
    end
  end
  make()
  full()
  eq(#registry, 3, "three finalizers ran")
  eq(registry[1][1], 3, "last created first")
  eq(registry[3][1], 1, "first created last")
end

-- finalizer order across a large batch
do
  local order = {}
  local function make()
    for i = 1, 100 do
      setmetatable({}, {__gc = function() order[#order + 1] = i end})
    end
  end
  make()
  full()
  eq(#order, 100, "100 finalizers")
  local ok = true
  for i = 1, 100 do if order[i] ~= 101 - i then ok = false end end
  eq(ok, true, "strict reverse order")
end

-- objects referenced by a finalized object stay valid inside the finalizer
do
  local seen
  local function make()
    local inner = {value = "inner"}
    setmetatable({ref = inner}, {__gc = function(o) seen = o.ref.value end})
  end
  make()
  full()
  eq(seen, "inner", "referenced object accessible in finalizer")
end

collectgarbage("restart")
return "OK"
