-- `==` between two tables calls the first one's `__eq`, else the second's,
-- whichever side has a metatable; and none between a table and a value of
-- another type, or between two tables without one, or between two
-- different values of one non-table type (EQ's fast path skips the lookup).
local calls = 0
local mt = {__eq = function(a, b) calls = calls + 1 return rawget(a, "v") == rawget(b, "v") end}
local function o(v) return setmetatable({v = v}, mt) end
local a = o(1)
local plain = {v = 1}
local nometa = setmetatable({v = 1}, {})
print(a == plain, plain == a, a ~= plain, plain ~= a, calls)
print(a == nometa, nometa == a, calls)
print(plain == {v = 1}, plain == plain, calls)
local b = {v = 2}
print(b == a, a == b, calls)
local x, y = 1, 2
print(x == y, x ~= y, "s" == "t", x == 1.0, calls)
local u1 = setmetatable({}, {__eq = function() calls = calls + 1 return true end})
local u2 = setmetatable({}, {__eq = function() calls = calls + 10 return false end})
print(u1 == u2, u2 == u1, calls)
for i = 1, 3 do
  local t = i == 2 and a or plain
  print(i, t == a, a == t, calls)
end
