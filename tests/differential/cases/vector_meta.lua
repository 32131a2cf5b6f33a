local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
V.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y) end
  if type(b) == "number" then return vec(a.x * b, a.y * b) end
  return a.x * b.x + a.y * b.y
end
V.__div = function(a, s) return vec(a.x / s, a.y / s) end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__len = function(a) return (a.x * a.x + a.y * a.y) ^ 0.5 end
V.__tostring = function(a) return "(" .. a.x .. ", " .. a.y .. ")" end
V.__lt = function(a, b) return #a < #b end
V.__le = function(a, b) return #a <= #b end
local a, b = vec(3, 4), vec(1, 2)
print(tostring(a + b), tostring(a - b), a * b, tostring(2 * a), tostring(a * 0.5), tostring(a / 2))
print(tostring(-a), #a, a == vec(3, 4), a ~= b, b < a, a <= a, a > b)
local sum = vec(0, 0)
for i = 1, 10 do sum = sum + vec(i, -i) end
print(tostring(sum))
