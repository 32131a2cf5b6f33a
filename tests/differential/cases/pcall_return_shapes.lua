-- The results of a Lua function called by pcall/xpcall, in every shape a
-- caller can take them: fixed counts, open lists, nested protected calls,
-- varargs, tail calls, metamethods and coroutines.
local function none() end
local function one() return 1 end
local function three() return 1, 2, 3 end
local function many()
  return 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
end
local function va(...) return ... end
local function tail(...) return va(...) end
local function handler(e) return "handled: " .. tostring(e) end

for _, f in ipairs({none, one, three, many}) do
  print(pcall(f))
  print(select("#", pcall(f)))
  local a = pcall(f)
  local b, c = pcall(f)
  local d, e, g, h = pcall(f)
  print(a, b, c, d, e, g, h)
  print(({pcall(f)})[1], #{pcall(f)})
  print(xpcall(f, handler))
  print(select("#", xpcall(f, handler)))
  local x, y, z = xpcall(f, handler)
  print(x, y, z)
end

print(pcall(va, "a", nil, "c", nil))
print(select("#", pcall(va, nil, nil, nil)))
print(pcall(tail, 1, 2, 3))
print(xpcall(tail, handler, 4, 5))
print(pcall(pcall, three))
print(pcall(xpcall, three, handler))
print(xpcall(pcall, handler, many))
print(pcall(pcall, pcall, va, "deep"))

-- a protected call as an argument list, a table constructor, a return
local function wrap(...) return select("#", ...), ... end
print(wrap(pcall(three)))
print(wrap(pcall(three), "after"))
local function ret_pcall(f) return pcall(f) end
print(ret_pcall(three))
local function ret_pcall2(f) local ok, a, b = pcall(f) return b, a, ok end
print(ret_pcall2(three))

-- pcall as a metamethod: its frame's result goes to a register
local t = setmetatable({}, {
  __index = pcall,
  __call = function(self, k) return "called " .. tostring(k), "second" end,
})
print(t.foo, t[1])
local u = setmetatable({}, {
  __lt = pcall,
  __call = function(self, o) return false end,
})
print(u < u, not (u < u))
local v = setmetatable({}, {
  __add = xpcall,
  __call = function(self) return nil end,
})
print(pcall(function() return v + print end))

-- a protected call in a loop, its results accumulated
local s = 0
for i = 1, 100 do
  local ok, r = pcall(function(n) return n * 2 end, i)
  if ok then s = s + r end
end
print(s)

-- inside coroutines: yielding from the protected function, then returning
local co = coroutine.wrap(function(...)
  local r = table.pack(pcall(function(a, b)
    local c = coroutine.yield(a + b)
    return a, b, c
  end, ...))
  print("in co", table.unpack(r, 1, r.n))
  return "done"
end)
print(co(1, 2))
print(co(3))
local co2 = coroutine.wrap(pcall)
print(co2(three))
local co3 = coroutine.create(xpcall)
print(coroutine.resume(co3, many, handler))

-- errors still go to the handler
print(pcall(function() local x = nil; return x.y end))
print(xpcall(function() error("boom") end, handler))
print(xpcall(function() error({}) end, function(e) return type(e) end))
