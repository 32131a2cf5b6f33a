local F = {}
F.__index = F
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
local function frac(n, d)
  d = d or 1
  if d < 0 then n, d = -n, -d end
  local g = gcd(n < 0 and -n or n, d)
  return setmetatable({n = n // g, d = d // g}, F)
end
local function lift(x) if type(x) == "number" then return frac(x) end return x end
F.__add = function(a, b) a, b = lift(a), lift(b) return frac(a.n * b.d + b.n * a.d, a.d * b.d) end
F.__sub = function(a, b) a, b = lift(a), lift(b) return frac(a.n * b.d - b.n * a.d, a.d * b.d) end
F.__mul = function(a, b) a, b = lift(a), lift(b) return frac(a.n * b.n, a.d * b.d) end
F.__div = function(a, b) a, b = lift(a), lift(b) return frac(a.n * b.d, a.d * b.n) end
F.__unm = function(a) return frac(-a.n, a.d) end
F.__eq = function(a, b) return a.n == b.n and a.d == b.d end
F.__lt = function(a, b) a, b = lift(a), lift(b) return a.n * b.d < b.n * a.d end
F.__le = function(a, b) a, b = lift(a), lift(b) return a.n * b.d <= b.n * a.d end
F.__tostring = function(a) if a.d == 1 then return tostring(a.n) end return a.n .. "/" .. a.d end
local h = frac(0)
for k = 1, 10 do h = h + frac(1, k) end
print("H10 =", tostring(h))
print(tostring(frac(1, 2) + frac(1, 3)), tostring(frac(3, 4) - 1), tostring(frac(2, 3) * frac(9, 4)), tostring(frac(1, 2) / frac(1, 4)))
print(frac(1, 2) == frac(2, 4), frac(1, 3) < frac(1, 2), frac(1, 2) <= frac(2, 4), frac(1, 2) < 1, 0 < frac(1, 9))
print(tostring(-frac(6, 8)), tostring(frac(-6, -8)), tostring(frac(6, -8)))
