local C = {}
C.__index = C
local function cx(re, im) return setmetatable({re = re, im = im or 0}, C) end
local function lift(v) if type(v) == "number" then return cx(v) end return v end
C.__add = function(a, b) a, b = lift(a), lift(b) return cx(a.re + b.re, a.im + b.im) end
C.__mul = function(a, b) a, b = lift(a), lift(b) return cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) end
C.__pow = function(a, n) local r = cx(1) for _ = 1, n do r = r * a end return r end
C.__tostring = function(a)
  if a.im >= 0 then return a.re .. "+" .. a.im .. "i" end
  return a.re .. a.im .. "i"
end
local i = cx(0, 1)
print(tostring(i * i), tostring(i ^ 3), tostring((1 + i) ^ 2), tostring(2 + i), tostring(i + 2.5))
local z = cx(0)
local c = cx(-0.5, 0.5)
for n = 1, 6 do z = z * z + c print(n, tostring(z)) end
