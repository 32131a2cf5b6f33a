-- To-be-closed variables whose __close yields, errors, or both: on block exit,
-- return, break, error unwinding to a pcall inside a coroutine, coroutine.close.
-- Expected output recorded from lua5.4.
local function closer(name, fail, yield)
  return setmetatable({}, {__close = function(o, e)
    print("close", name, e)
    if yield then local r = coroutine.yield("y-" .. name) print("resumed", name, r) end
    if fail then error(fail, 0) end
  end})
end
local function run(f, ...)
  local co = coroutine.create(f)
  local r = {coroutine.resume(co, ...)}
  while true do
    print("->", r[1], type(r[2]) == "table" and "tbl" or r[2], r[3])
    if coroutine.status(co) == "dead" then break end
    r = {coroutine.resume(co, "val")}
  end
end
-- normal block exit with yields
run(function()
  do
    local a <close> = closer("a", nil, true)
    local b <close> = closer("b", nil, true)
  end
  return "done1"
end)
-- return with values and yields
run(function()
  local a <close> = closer("a", nil, true)
  local b <close> = closer("b", nil, true)
  return 1, 2, 3
end)
-- return multret with yields
local function three() return 7, 8, 9 end
run(function()
  local a <close> = closer("a", nil, true)
  return three()
end)
-- break in loop
run(function()
  for i = 1, 3 do
    local a <close> = closer("loop" .. i, nil, true)
    if i == 2 then break end
  end
  return "after loop"
end)
-- error unwinding to pcall inside coroutine with yields
run(function()
  local ok, e = pcall(function()
    local a <close> = closer("a", nil, true)
    local b <close> = closer("b", "eb", true)
    error("body", 0)
  end)
  print("pcall ->", ok, e)
  return "after pcall"
end)
-- error in close on normal return, with yields
run(function()
  local ok, e = pcall(function()
    local a <close> = closer("a", nil, true)
    local b <close> = closer("b", "eb", true)
    return "normal"
  end)
  print("pcall ->", ok, e)
  return "x"
end)
-- generic for closing value with yield
run(function()
  local function iter() local i = 0 return function() i = i + 1 if i < 3 then return i end end, nil, nil, closer("for", nil, true) end
  for i in iter() do print("it", i) end
  return "forend"
end)
-- xpcall handler with close errors
run(function()
  print(xpcall(function()
    local a <close> = closer("a", "ea", true)
    error("body", 0)
  end, function(m) print("handler", m) return "H:" .. tostring(m) end))
  return "xp"
end)
-- coroutine.yield directly as __close
run(function()
  do local x <close> = setmetatable({}, {__close = coroutine.yield}) end
  return "direct"
end)
-- coroutine.close on coroutine suspended in a __close
do
  local co = coroutine.create(function()
    local a <close> = closer("A")
    local b <close> = closer("B", nil, true)
    return 1
  end)
  print(coroutine.resume(co))
  print(coroutine.close(co))
  print(coroutine.status(co))
end

-- errors of every type through close
for _, v in ipairs({1, 2.5, true, "s", {}, false}) do
  print(pcall(function() local a <close> = closer("a") error(v) end))
end
print(pcall(function() local a <close> = closer("a") error() end))
print(pcall(function() local a <close> = closer("a") error(nil) end))
-- nested pcall inside __close
print(pcall(function()
  local a <close> = setmetatable({}, {__close = function(_, e)
    print("inner pcall", pcall(error, "inner"))
    print("e is", e)
  end})
  error("outer", 0)
end))
-- __close that errors with the tbc removed metamethod
do
  local mt = {__close = function() end}
  print(pcall(function() local x <close> = setmetatable({}, mt); mt.__close = nil; error("E", 0) end))
end
-- coroutine wrap erroring with close
local w = coroutine.wrap(function()
  local a <close> = closer("wa")
  error("werr", 0)
end)
print(pcall(w))
local w2 = coroutine.wrap(function()
  local a <close> = closer("wb", "wbfail")
  error("werr2", 0)
end)
print(pcall(w2))
-- close errors in coroutine.close
local co = coroutine.create(function()
  local a <close> = closer("c1", "f1")
  local b <close> = closer("c2", "f2")
  coroutine.yield()
end)
coroutine.resume(co)
print(coroutine.close(co))
-- dead coroutine with error: close reports it
local co2 = coroutine.create(function()
  local a <close> = closer("d1")
  error("dead err", 0)
end)
print(coroutine.resume(co2))
print(coroutine.close(co2))
print(coroutine.close(co2))
-- tbc in main thread, goto
do
  local i = 0
  ::top::
  do
    local x <close> = closer("g" .. i)
    i = i + 1
    if i < 3 then goto top end
  end
end
-- closing while returning from a deep pcall chain
local function deep(n)
  local a <close> = closer("deep" .. n)
  if n == 0 then error("bottom", 0) end
  return deep(n - 1)
end
print(pcall(deep, 3))
-- yield across pcall inside __close in coroutine
local co3 = coroutine.wrap(function()
  local a <close> = setmetatable({}, {__close = function()
    local ok, v = pcall(coroutine.yield, "in-close-pcall")
    print("got", ok, v)
  end})
  return "co3 done"
end)
print(co3())
print(co3("back"))
-- error in __close after yield
local co4 = coroutine.create(function()
  local a <close> = setmetatable({}, {__close = function()
    coroutine.yield("y")
    error("after yield", 0)
  end})
  return "never"
end)
print(coroutine.resume(co4))
print(coroutine.resume(co4))
print(coroutine.status(co4))
print(coroutine.close(co4))

local function func2close (f) return setmetatable({}, {__close = f}) end
local function overflow (n) overflow(n + 1) end
local function errorh (m)
  print("handler", m)
  local x <close> = func2close(function (o) print("closing x") o[1] = 10 end)
  return x
end
local flag
local st, obj
local co = coroutine.wrap(function ()
  local y <close> = func2close(function (obj, msg)
    print("closing y", msg)
    obj[1] = 100
    flag = obj
  end)
  st, obj = xpcall(overflow, errorh, 0)
  print("xpcall", st, obj)
end)
co()
print(st, obj and obj[1], flag and flag[1])
-- a coroutine being closed is running: resuming it from its own __close fails
do
  local co
  co = coroutine.wrap(function()
    local x <close> = setmetatable({}, {__close = function() print(pcall(co)) end})
    error(111)
  end)
  print(pcall(co))
  print(pcall(co))
end
