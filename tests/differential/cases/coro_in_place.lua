-- Resumes made by the loop's own calls (CALL, TAILCALL, TFORCALL) of
-- coroutine.resume and of wrap functions, which the VM carries out in place
-- (vm/src/coswitch.rs): chains, errors at every depth, tail calls, generic
-- for, statuses, tracebacks of the resumer, and the C-stack limit.

-- A chain of filters (a sieve): each link resumes the next.
local function gen(n)
  return coroutine.wrap(function()
    for i = 2, n do coroutine.yield(i) end
  end)
end
local function filter(p, g)
  return coroutine.wrap(function()
    while true do
      local n = g()
      if n == nil then return end
      if n % p ~= 0 then coroutine.yield(n) end
    end
  end)
end
local primes, x = {}, gen(200)
while true do
  local n = x()
  if n == nil then break end
  primes[#primes + 1] = n
  x = filter(n, x)
end
print("primes", #primes, primes[#primes], table.concat(primes, " ", 1, 10))

-- Results and arguments both ways, by count: none, one, many, nil holes.
local co = coroutine.wrap(function(...)
  local a = { ... }
  while true do
    a = table.pack(coroutine.yield(table.unpack(a, 1, a.n)))
  end
end)
print(co())
print(co(1))
print(co(1, nil, 3))
print(select("#", co(nil, nil)))
local r1, r2, r3 = co("a", "b")
print(r1, r2, r3)

-- coroutine.resume: true and values, false and the message.
local c = coroutine.create(function(a)
  local b = coroutine.yield(a + 1)
  error("boom " .. b)
end)
print(coroutine.resume(c, 1))
print(coroutine.resume(c, 5))
print(coroutine.resume(c))
print(coroutine.status(c))

-- A wrap's error: position of the resumer's call, at any depth of a chain.
local function thrower(depth)
  if depth == 0 then
    return coroutine.wrap(function() coroutine.yield(1); error("deep") end)
  end
  local inner = thrower(depth - 1)
  return coroutine.wrap(function()
    while true do coroutine.yield(inner()) end
  end)
end
local t = thrower(5)
print(t())
print(pcall(t))
print(pcall(t))
local t2 = thrower(3)
t2()
print(select(2, pcall(function() return t2() end)))
-- A non-string error value passes unchanged.
local t3 = coroutine.wrap(function() coroutine.yield(); error({ code = 7 }) end)
t3()
local ok, e = pcall(t3)
print(ok, type(e), e.code)

-- Errors caught inside the coroutine, and yields across its pcall.
local p = coroutine.wrap(function()
  for i = 1, 3 do
    local ok2, msg = pcall(function()
      coroutine.yield(i)
      if i == 2 then error("inner " .. i) end
      return i
    end)
    coroutine.yield(ok2, msg)
  end
end)
for _ = 1, 6 do print(p()) end

-- Generic for over a wrap, and a tail call of one.
local function range(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i, i * i) end end)
end
local s = 0
for i, sq in range(10) do s = s + i + sq end
print("for", s)
local g = range(3)
local function tail() return g() end
print(tail(), tail(), tail(), tail())

-- Statuses and the running thread seen from inside a chain.
local outer
local inner = coroutine.create(function()
  print("inner sees outer", coroutine.status(outer), coroutine.isyieldable())
  local th, main = coroutine.running()
  print("running is inner", th == coroutine.running(), main)
  coroutine.yield()
end)
outer = coroutine.create(function()
  coroutine.resume(inner)
  print("outer sees inner", coroutine.status(inner))
  print(coroutine.resume(outer))
end)
coroutine.resume(outer)
print(coroutine.status(outer), coroutine.status(inner))

-- A dead coroutine, a running one, a normal one.
local dead = coroutine.wrap(function() end)
dead()
print(pcall(dead))
local selfres
selfres = coroutine.wrap(function() return selfres() end)
print(pcall(selfres))

-- The resumer's traceback while a coroutine it resumed runs.
local main_co
main_co = coroutine.create(function()
  local w = coroutine.wrap(function()
    local tb = debug.traceback(main_co)
    tb = tb:gsub("\t", " ")
    for line in tb:gmatch("[^\n]+") do print("tb", line) end
    coroutine.yield()
  end)
  w()
end)
coroutine.resume(main_co)

-- Nested to the C-stack limit: the same depth as the reference.
local depth = 0
local function nest()
  depth = depth + 1
  local w = coroutine.wrap(nest)
  return w()
end
local okn, errn = pcall(nest)
print("nest", okn, #errn, errn:match("[^:]*$"), depth)

-- Closing a suspended coroutine from the loop, then resuming it.
local cl = coroutine.create(function()
  local v <close> = setmetatable({}, { __close = function() print("closed") end })
  coroutine.yield(1)
end)
print(coroutine.resume(cl))
print(coroutine.close(cl))
print(coroutine.resume(cl))

-- A resume in place made inside a nested activation (`__tostring`, run by
-- `tostring` with a Rust-level call) of a coroutine itself resumed in place;
-- then an error raised there, through both.
local gen2 = coroutine.wrap(function() for i = 1, 3 do coroutine.yield("v" .. i) end end)
local obj = setmetatable({}, { __tostring = function() return gen2() .. gen2() end })
local outerw = coroutine.wrap(function()
  coroutine.yield(tostring(obj))
  coroutine.yield(tostring(obj))
end)
print(outerw())
print(pcall(outerw))
print(pcall(outerw))
