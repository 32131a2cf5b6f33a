local mt = {
  __unm = function(a, b) return "unm:" .. a.n .. ":" .. tostring(rawequal(a, b)) end,
  __bnot = function(a, b) return "bnot:" .. a.n .. ":" .. tostring(rawequal(a, b)) end,
  __idiv = function(a, b) return "idiv" end,
  __mod = function(a, b) return "mod" end,
  __pow = function(a, b) return "pow" end,
  __div = function(a, b) return "div" end,
}
local x = setmetatable({n = 7}, mt)
print(-x, ~x, x // 2, 2 // x, x % 3, x ^ 2, 2 ^ x, x / 1)
print(pcall(function() return -{} end))
print(pcall(function() return ~{} end))
print(pcall(function() return ~1.5 end))
