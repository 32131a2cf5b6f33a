local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + n) end
print(loop(1000000, 0))
local even, odd
function even(n) if n == 0 then return "even" end return odd(n - 1) end
function odd(n) if n == 0 then return "odd" end return even(n - 1) end
print(even(1000001), odd(1000001))
local function gcd(a, b) if b == 0 then return a end return gcd(b, a % b) end
print(gcd(1071, 462), gcd(9223372036854775807, 1234567890))
local obj = {n = 0}
function obj:count(k) if k == 0 then return self.n end self.n = self.n + 1 return self:count(k - 1) end
print(obj:count(300000))
local function va(n, ...) if n == 0 then return select("#", ...), ... end return va(n - 1, ...) end
print(va(100000, "a", "b", nil))
