-- basic resume/yield
local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got2", d, e)
  return "done", 99
end)
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, "x", "y"))
print(coroutine.status(co))
print(coroutine.resume(co))
-- yield across pcall
local co2 = coroutine.wrap(function()
  local ok, v = pcall(function()
    local x = coroutine.yield("in pcall")
    error("boom " .. x)
  end)
  print("pcall result", ok, v)
  local ok2, v2 = pcall(function() return coroutine.yield("again") end)
  print("pcall2", ok2, v2)
  return "end"
end)
print(co2())
print(co2("X"))
print(co2("Y"))
-- yield inside metamethods
local mt = {
  __index = function(t, k) return coroutine.yield("index " .. k) end,
  __add = function(a, b) return coroutine.yield("add") end,
  __lt = function(a, b) return coroutine.yield("lt") end,
  __concat = function(a, b) return coroutine.yield("concat") end,
  __eq = function(a, b) return coroutine.yield("eq") end,
  __len = function(a) return coroutine.yield("len") end,
  __newindex = function(t, k, v) coroutine.yield("newindex " .. k) end,
  __call = function(self, x) return coroutine.yield("call " .. x) end,
}
local co3 = coroutine.wrap(function()
  local t = setmetatable({}, mt)
  local u = setmetatable({}, mt)
  print("idx", t.foo)
  print("add", t + 1)
  print("lt", t < u)
  print("concat", "a" .. t .. "b")
  print("eq", t == u)
  print("len", #t)
  t.bar = 5
  print("call", t(7))
  return "fin"
end)
local r = co3()
while r ~= "fin" do
  print("yielded:", r)
  if r == "lt" or r == "eq" then r = co3(true) else r = co3(r .. "!") end
end
-- yield inside for-in iterator
local function gen(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
end
local sum = 0
for i in gen(5) do sum = sum + i end
print("sum", sum)
local co4 = coroutine.wrap(function()
  for k in function(s, c) if c < 3 then return coroutine.yield(c) + 1 end end, nil, 0 do
    print("loop", k)
  end
  return "iter done"
end)
print(co4())
print(co4(1))
print(co4(2))

-- errors
print(coroutine.resume(coroutine.create(function() error("oops") end)))
print(coroutine.resume(coroutine.create(function() error({}) end)))
local dead = coroutine.create(function() end)
coroutine.resume(dead)
print(coroutine.resume(dead))
print(pcall(coroutine.yield, 1))
print(coroutine.isyieldable())
print(coroutine.wrap(function() return coroutine.isyieldable() end)())
local main, ismain = coroutine.running()
print(type(main), ismain)
print(coroutine.status(main))
print(coroutine.wrap(function() return coroutine.status(main) end)())
local w = coroutine.wrap(function() error("werr") end)
print(pcall(w))
local w2 = coroutine.wrap(function() return 1 end)
w2()
print(pcall(w2))
-- close
local co5 = coroutine.create(function()
  local x <close> = setmetatable({}, {__close = function(_, e) print("closing x", e) end})
  coroutine.yield(1)
end)
coroutine.resume(co5)
print(coroutine.close(co5), coroutine.status(co5))
print(pcall(coroutine.close, coroutine.running()))
local co6 = coroutine.create(function()
  local y <close> = setmetatable({}, {__close = function() error("cerr", 0) end})
  coroutine.yield()
end)
coroutine.resume(co6)
print(coroutine.close(co6))
-- resume running / normal
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function()
    print("outer status from inner", coroutine.status(outer))
    print(coroutine.resume(outer))
  end)
  coroutine.resume(inner)
end)
coroutine.resume(outer)
-- yield across C boundary
local co7 = coroutine.create(function()
  local t = setmetatable({}, {__tostring = function() coroutine.yield() return "x" end})
  return tostring(t)
end)
print(coroutine.resume(co7))
-- many values
local co8 = coroutine.wrap(function(...) local n = select('#', coroutine.yield(...)) return n end)
print(select('#', co8(1, 2, 3, nil, nil)))
print(co8(nil, nil, nil, nil))
-- wrap with error carrying position
local co9 = coroutine.wrap(function() local x = nil; return x.y end)
print(pcall(co9))
