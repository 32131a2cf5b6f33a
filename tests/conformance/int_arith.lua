-- Integer arithmetic: basic operations, wrap-around on overflow,
-- integer/float result types, limits written as literals.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
-- compare the printed representation (distinguishes 3 from 3.0)
local function eqs(a, s, what)
  if tostring(a) ~= s then
    error((what or "eqs") .. ": expected " .. s .. ", got " .. tostring(a), 2)
  end
end
local function mtype(x)
  if type(x) ~= "number" then return nil end
  if tostring(x) == tostring(x * 1.0) then return "float" end
  return "integer"
end

local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1

-- basic operations stay integers
eqs(2 + 3, "5", "add")
eqs(2 - 3, "-1", "sub")
eqs(6 * 7, "42", "mul")
eqs(-6 * 7, "-42", "mul neg")
eqs(7 // 2, "3", "idiv")
eqs(7 % 2, "1", "mod")
eqs(-(5), "-5", "unm")
eqs(- -5, "5", "double unm")
eq(mtype(1 + 1), "integer", "int+int type")
eq(mtype(4 / 2), "float", "division always float")
eqs(4 / 2, "2.0", "4/2")
eqs(2 ^ 2, "4.0", "pow always float")
eq(mtype(2 ^ 0), "float", "pow type")

-- limits
eqs(maxi, "9223372036854775807", "maxint literal")
eqs(mini, "-9223372036854775808", "minint")
eq(mtype(maxi), "integer", "maxint is integer")
eq(mtype(9223372036854775808), "float", "literal beyond maxint becomes float")
eqs(-9223372036854775808, "-9.2233720368548e+18", "negated float literal")
eqs(0x7fffffffffffffff, "9223372036854775807", "hex max")
eqs(0xffffffffffffffff, "-1", "hex wraps")
eqs(0x8000000000000000, "-9223372036854775808", "hex min")
eqs(0x10000000000000001, "1", "hex wraps modulo 2^64")

-- wrap-around
eqs(maxi + 1, "-9223372036854775808", "max+1 wraps")
eq(maxi + 1, mini, "max+1 == min")
eq(mini - 1, maxi, "min-1 == max")
eq(maxi * 2, -2, "max*2 wraps")
eq(mini * -1, mini, "min*-1 wraps")
eq(-mini, mini, "-min == min")
eq(mini // -1, mini, "min // -1 wraps")
eq(mini % -1, 0, "min % -1 is 0")
eq(maxi * maxi, 1, "max*max")
eq(0x100000000 * 0x100000000, 0, "2^32*2^32 wraps to 0")
eq((maxi + 1) - 1, maxi, "wrap back")

-- accumulate with wrap
do
  local x = 1
  for _ = 1, 64 do x = x * 2 end
  eq(x, 0, "2^64 via doubling wraps to 0")
  local y = 1
  for _ = 1, 63 do y = y * 2 end
  eq(y, mini, "2^63 via doubling is minint")
end

-- a simple LCG with wrapping multiplication, checked against known values
do
  local s = 42
  for _ = 1, 5 do s = s * 6364136223846793005 + 1442695040888963407 end
  eqs(s, "-5900231541219507851", "lcg 5 steps")
end

-- integer/integer division and modulo identities
for a = -20, 20 do
  for b = -7, 7 do
    if b ~= 0 then
      local q, r = a // b, a % b
      eq(q * b + r, a, "a == (a//b)*b + a%b for " .. a .. "," .. b)
      if r ~= 0 then
        eq(r < 0, b < 0, "sign of a%b follows b for " .. a .. "," .. b)
      end
      eq(mtype(q), "integer", "int // int is integer")
    end
  end
end

-- errors on integer division by zero (note the message texts)
do
  local function errof(f, ...)
    local ok, msg = pcall(f, ...)
    assert(not ok, "expected an error")
    return msg
  end
  eq(errof(function(a, b) return a // b end, 1, 0), "int_arith.lua:100: attempt to divide by zero", "1//0 message")
  eq(errof(function(a, b) return a % b end, 1, 0), "int_arith.lua:101: attempt to perform 'n%0'", "1%0 message")
  eq(errof(function(a) return a // 0 end, mini), "int_arith.lua:102: attempt to divide by zero", "min//0 message")
  -- float division by zero is fine
  eqs(1 / 0, "inf", "1/0")
  eqs(-1 / 0, "-inf", "-1/0")
  eqs(1 // 0.0, "inf", "1//0.0")
  eqs(0 / 0 ~= 0 / 0, "true", "0/0 is nan")
end

-- mixed int/float gives float
eqs(1 + 1.0, "2.0", "int+float")
eqs(3 * 1.0, "3.0", "int*float")
eqs(7 // 2.0, "3.0", "int//float")
eqs(7 % 2.0, "1.0", "int%float")
eqs(10 - 0.5, "9.5", "int-float")

-- integer literal forms
eq(0x10, 16, "hex")
eq(0XfF, 255, "hex upper X")
eq(1e2, 100, "1e2 equals 100")
eq(mtype(1e2), "float", "1e2 is float")
eq(mtype(100), "integer", "100 is integer")
eq(mtype(0x10), "integer", "hex is integer")

-- comparison among integers near the limits
assert(mini < maxi, "min < max")
assert(maxi > maxi - 1, "max > max-1")
assert(mini + 1 > mini, "min+1 > min")
assert(not (maxi < maxi), "not max < max")
assert(maxi <= maxi, "max <= max")

-- large products and sums exact
eq(123456789 * 987654321, 121932631112635269, "exact product")
eq(4611686018427387904 + 4611686018427387903, maxi, "2^62 + 2^62-1")

-- increments in loops keep integer type
do
  local n = 0
  for i = 1, 1000 do n = n + i end
  eq(n, 500500, "sum 1..1000")
  eq(mtype(n), "integer", "sum stays integer")
end

return "OK"
