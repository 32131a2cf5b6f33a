local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a < 0 and -a or a end
local function lcm(a, b) return a // gcd(a, b) * b end
local l = 1
for i = 1, 40 do l = lcm(l, i) if i % 5 == 0 then print(i, l) end end
print(gcd(0, 5), gcd(-12, 18), gcd(17, 0), gcd(2^40 // 1 | 0, 6 * 2^20 // 1 | 0))
local function egcd(a, b)
  if b == 0 then return a, 1, 0 end
  local g, x, y = egcd(b, a % b)
  return g, y, x - (a // b) * y
end
print(egcd(240, 46))
print(egcd(99, 78))
