-- Closures and upvalues: sharing, fresh locals per iteration, closing over
-- loop variables, upvalues of upvalues, counters, recursion.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- counter
local function counter()
  local n = 0
  return function() n = n + 1 return n end
end
local c1, c2 = counter(), counter()
eq(c1(), 1, "c1 first")
eq(c1(), 2, "c1 second")
eq(c2(), 1, "c2 independent")

-- sibling closures share the same upvalue
local function pair()
  local v = 0
  local function get() return v end
  local function set(x) v = x end
  local function inc() v = v + 1 end
  return get, set, inc
end
local get, set, inc = pair()
set(10)
inc()
eq(get(), 11, "shared upvalue between siblings")
local get2 = pair()
eq(get2(), 0, "separate instance")

-- the enclosing function sees changes made by closures and vice versa
do
  local x = 1
  local function bump() x = x + 1 end
  bump()
  eq(x, 2, "closure modified local")
  x = 10
  bump()
  eq(x, 11, "closure sees later assignment")
end

-- numeric for: fresh local per iteration
do
  local fs = {}
  for i = 1, 5 do fs[i] = function() return i end end
  local s = ""
  for i = 1, 5 do s = s .. fs[i]() end
  eq(s, "12345", "each iteration has its own i")
end

-- generic for: fresh locals per iteration
do
  local fs = {}
  for k, v in ipairs({"a", "b", "c"}) do fs[k] = function() return k .. v end end
  eq(fs[1]() .. fs[2]() .. fs[3](), "1a2b3c", "generic for fresh locals")
end

-- while loop: local declared inside the body is fresh each iteration
do
  local fs = {}
  local i = 1
  while i <= 3 do
    local j = i
    fs[i] = function() j = j + 10 return j end
    i = i + 1
  end
  eq(fs[1](), 11, "while fresh 1")
  eq(fs[1](), 21, "while closure keeps its own state")
  eq(fs[2](), 12, "while fresh 2")
end

-- repeat: local visible in the until condition, fresh per iteration
do
  local fs = {}
  local n = 0
  repeat
    n = n + 1
    local m = n * 2
    fs[n] = function() return m end
  until m >= 6
  eq(#fs, 3, "repeat iterations")
  eq(fs[1]() + fs[2]() + fs[3](), 12, "repeat fresh locals")
end

-- closures in loop modifying the loop-body local are independent
do
  local incs, gets = {}, {}
  for i = 1, 3 do
    local v = i * 100
    incs[i] = function() v = v + 1 end
    gets[i] = function() return v end
  end
  incs[2]()
  incs[2]()
  eq(gets[1](), 100, "iteration 1 untouched")
  eq(gets[2](), 202, "iteration 2 shared between its inc/get")
  eq(gets[3](), 300, "iteration 3 untouched")
end

-- upvalue of upvalue (three levels)
do
  local function level1()
    local a = 1
    return function()
      local b = 2
      return function()
        a = a + 1
        b = b + 1
        return a + b
      end
    end
  end
  local l2 = level1()
  local l3a, l3b = l2(), l2()
  eq(l3a(), 5, "a=2,b=3")
  eq(l3a(), 7, "a=3,b=4")
  eq(l3b(), 7, "shares a (a=4), own b=3")
end

-- closed upvalues survive the creating function; open upvalues are shared
do
  local function make()
    local x = 0
    local f = function() x = x + 1 return x end
    local g = function() return x end
    f()
    return f, g, x
  end
  local f, g, snapshot = make()
  eq(snapshot, 1, "value at return")
  f()
  eq(g(), 2, "closed upvalue shared after return")
end

-- recursive local function
do
  local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
  eq(fact(20), 2432902008176640000, "fact 20")
  local fib
  fib = function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
  eq(fib(20), 6765, "fib via upvalue")
end

-- closure capturing parameters and varargs-derived locals
do
  local function adder(a) return function(b) return a + b end end
  eq(adder(3)(4), 7, "adder")
  local function capture(...)
    local n = select("#", ...)
    local first = ...
    return function() return n, first end
  end
  local n, first = capture("x", "y", "z")()
  eq(n, 3, "captured count")
  eq(first, "x", "captured first")
end

-- many closures
do
  local fs = {}
  for i = 1, 1000 do fs[i] = function(x) return x + i end end
  local s = 0
  for i = 1, 1000 do s = s + fs[i](1) end
  eq(s, 501500, "1000 closures")
end

-- upvalue captured by a closure in a loop after break
do
  local saved
  for i = 1, 10 do
    local v = i
    saved = function() return v end
    if i == 4 then break end
  end
  eq(saved(), 4, "closure created before break keeps value")
end

-- goto back-edge creates a fresh local
do
  local fs = {}
  local i = 1
  ::top::
  local v = i
  fs[i] = function() return v end
  i = i + 1
  if i <= 3 then goto top end
  eq(fs[1]() .. fs[2]() .. fs[3](), "123", "goto loop fresh locals")
end

-- functions are values compared by identity
do
  local function mk() return function() end end
  assert(mk() ~= mk(), "distinct closures")
  local f = mk()
  assert(f == f, "same closure")
end

-- closures as objects
do
  local function Account(balance)
    local self = {}
    function self.deposit(v) balance = balance + v end
    function self.withdraw(v)
      if v > balance then error("insufficient funds", 0) end
      balance = balance - v
    end
    function self.balance() return balance end
    return self
  end
  local acc = Account(100)
  acc.deposit(50)
  acc.withdraw(30)
  eq(acc.balance(), 120, "account balance")
  local ok, e = pcall(acc.withdraw, 1000)
  eq(e, "insufficient funds", "account error")
end

return "OK"
