-- The one result a metamethod frame gives its caller's register or jump
-- (`return_meta_value`): none (nil), several (the first), false and nil
-- deciding comparisons, inside expressions whose registers are live, from
-- a metamethod that calls further metamethods, under pcall and in a
-- coroutine that yields inside the metamethod.
local mt = {}
mt.__add = function(a, b) end                       -- no result: nil
mt.__sub = function(a, b) return 1, 2, 3 end        -- several: the first
mt.__mul = function(a, b) return a.v * (type(b) == "table" and b.v or b) end
mt.__lt = function(a, b) return a.v < b.v and 0 or nil end  -- 0 is true, nil false
mt.__le = function(a, b) return false, true end
mt.__index = function(t, k) return k .. "!", "ignored" end
mt.__unm = function(a) return setmetatable({v = -a.v}, mt) end
mt.__len = function(a) return a.v, 99 end
mt.__concat = function(a, b) return "cat" end
local function new(v) return setmetatable({v = v}, mt) end

local a, b = new(3), new(5)
print(a + b, a - b, a * b, a * 7)
print(a < b, b < a, a <= b, a > b)
print(a.x, a.y, #a, (-a).v, a .. b)
-- live registers around the calls
local t = {1, 2, a * b, 4, (a - b), a.z, 7}
print(#t, t[3], t[5], t[6], t[7])
local function f(x, y, z) return x, y, z end
print(f(a * b, a.q, a < b))
-- nested: a metamethod that itself uses metamethods
mt.__div = function(x, y) return (x * y) + (x * 2) end
print(a / b)
-- protected, with an error inside the metamethod
mt.__mod = function() error("boom") end
print(pcall(function() return a % b end))
print(select("#", pcall(function() return a * b end)))
-- a yield inside the metamethod
mt.__idiv = function(x, y) return coroutine.yield(x.v) + y.v end
local co = coroutine.wrap(function() local r = a // b; return r, a * b end)
print(co())
print(co(10))
-- in a loop, the result kept across iterations
local s = 0
for i = 1, 100 do
  local o = new(i)
  if o < b then s = s + o * 2 else s = s + (o - b) end
end
print(s)
