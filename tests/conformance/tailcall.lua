-- Proper tail calls: unbounded tail recursion and mutual recursion.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- 1e6-deep tail recursion must not overflow
local function loop(n, acc)
  if n == 0 then return acc end
  return loop(n - 1, acc + 1)
end
eq(loop(1000000, 0), 1000000, "tail recursive loop 1e6")

-- mutual tail recursion
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
eq(is_even(1000000), true, "even 1e6")
eq(is_odd(777777), true, "odd 777777")

-- tail call with varargs
local function vloop(n, ...)
  if n == 0 then return select("#", ...), ... end
  return vloop(n - 1, ...)
end
local c, a, b = vloop(300000, "x", "y")
eq(c, 2, "vararg count preserved")
eq(b, "y", "vararg value preserved")

-- tail call through a method
local obj = {n = 0}
function obj:step(k)
  if k == 0 then return self.n end
  self.n = self.n + 1
  return self:step(k - 1)
end
eq(obj:step(500000), 500000, "method tail recursion")

-- tail call through __call metamethod
local callable = setmetatable({}, {__call = function(self, n)
  if n == 0 then return "done" end
  return self(n - 1)
end})
eq(callable(200000), "done", "__call tail recursion")

-- tail calls returning multiple values
local function multi(n)
  if n == 0 then return 1, 2, 3 end
  return multi(n - 1)
end
local x, y, z = multi(100000)
eq(z, 3, "multiple results through tail calls")

-- a tail call in a state machine
local function state_a(n, trace)
  if n == 0 then return trace end
  return (n % 3 == 0) and state_b(n - 1, trace + 1) or state_a(n - 1, trace)
end
-- note: "return (cond) and f() or g()" is NOT a tail call, but bounded here
function state_b(n, trace) return state_a(n, trace) end
eq(state_a(30, 0), 10, "state machine")

-- real state machine with proper tail calls
local s1, s2, s3
function s1(n) if n <= 0 then return "s1" end return s2(n - 1) end
function s2(n) if n <= 0 then return "s2" end return s3(n - 1) end
function s3(n) if n <= 0 then return "s3" end return s1(n - 1) end
eq(s1(1000001), "s3", "three-state machine 1e6")

-- tail call to a C function (pcall/select) and to a closure
local function tc_select(...) return select("#", ...) end
eq(tc_select(1, 2, 3), 3, "tail call to C function")
local function deep_then_c(n)
  if n == 0 then return pcall(function() return "inner" end) end
  return deep_then_c(n - 1)
end
local ok, v = deep_then_c(100000)
eq(v, "inner", "tail call ending in pcall")

-- tail calls from inside a coroutine
local co = coroutine.wrap(function(n) return loop(n, 0) end)
eq(co(500000), 500000, "tail recursion inside coroutine")

-- global function tail recursion
function GLOBAL_COUNTDOWN(n) if n == 0 then return "zero" end return GLOBAL_COUNTDOWN(n - 1) end
eq(GLOBAL_COUNTDOWN(300000), "zero", "global tail recursion")
GLOBAL_COUNTDOWN = nil
state_b = nil

return "OK"
