-- Float arithmetic: representation, special values, tostring formatting (%.14g).
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function eqs(a, s, what)
  if tostring(a) ~= s then
    error((what or "eqs") .. ": expected " .. s .. ", got " .. tostring(a), 2)
  end
end
local function isnan(x) return x ~= x end

local inf = 1 / 0
local nan = 0 / 0

-- formatting
eqs(1.0, "1.0", "1.0")
eqs(-1.0, "-1.0", "-1.0")
eqs(0.0, "0.0", "0.0")
eqs(-0.0, "-0.0", "-0.0")
eqs(0.5, "0.5", "0.5")
eqs(0.1, "0.1", "0.1")
eqs(1 / 3, "0.33333333333333", "1/3")
eqs(2 / 3, "0.66666666666667", "2/3")
eqs(100.0, "100.0", "100.0")
eqs(1e14, "1e+14", "1e14")
eqs(1e15, "1e+15", "1e15")
eqs(1e16, "1e+16", "1e16")
eqs(123456789012345.0, "1.2345678901234e+14", "15 digits")
eqs(12345678901234.0, "12345678901234.0", "14 digits")
eqs(2 ^ 53, "9.007199254741e+15", "2^53")
eqs(2 ^ 63, "9.2233720368548e+18", "2^63")
eqs(1e100, "1e+100", "1e100")
eqs(1e-5, "1e-05", "1e-5")
eqs(123e-7, "1.23e-05", "123e-7")
eqs(0.0001, "0.0001", "0.0001")
eqs(2 ^ -1074, "4.9406564584125e-324", "denormal min")
eqs(1.7976931348623157e308, "1.7976931348623e+308", "max double")
eqs(inf, "inf", "inf")
eqs(-inf, "-inf", "-inf")
eqs(1e308 * 10, "inf", "overflow to inf")
eqs(-1e308 * 10, "-inf", "overflow to -inf")
eqs(3.14159265358979, "3.1415926535898", "pi-ish")
eqs(-2.5, "-2.5", "-2.5")
eqs(1e300 * 1e-300, "1.0", "1e300*1e-300")

-- arithmetic
eqs(0.1 + 0.2, "0.3", "0.1+0.2 prints as 0.3")
assert(0.1 + 0.2 ~= 0.3, "0.1+0.2 is not exactly 0.3")
eqs(1.5 + 1.5, "3.0", "1.5+1.5")
eqs(10 / 4, "2.5", "10/4")
eqs(2 ^ 10, "1024.0", "2^10")
eqs(2 ^ 0.5 * 2 ^ 0.5, "2.0", "sqrt2^2")
eqs(9 ^ 0.5, "3.0", "sqrt 9")
eqs(2 ^ -1, "0.5", "2^-1")
eqs((-8) ^ (1 / 3) ~= (-8) ^ (1 / 3), "true", "negative base fractional exponent is nan")
eqs(-2 ^ 2, "-4.0", "unary minus lower than ^")
eqs(2 ^ 3 ^ 2, "512.0", "^ right assoc")
eqs(0.0 * -1, "-0.0", "0.0*-1 is -0.0")
eqs(-0.0 + 0.0, "0.0", "-0.0 + 0.0")
eqs(-0.0 - 0.0, "-0.0", "-0.0 - 0.0")
eqs(- 0.0, "-0.0", "unm 0.0")

-- special values
assert(isnan(nan), "nan ~= nan")
assert(not (nan == nan), "nan == nan is false")
assert(not (nan < nan) and not (nan <= nan) and not (nan > 0) and not (nan < 0), "nan comparisons")
assert(nan ~= nan, "nan ~= nan")
assert(isnan(inf - inf), "inf-inf")
assert(isnan(inf * 0), "inf*0")
assert(isnan(0 / 0.0), "0/0.0")
eq(inf + 1, inf, "inf+1")
eq(-inf, -1 / 0, "-inf")
assert(inf > 9223372036854775807, "inf > maxint")
assert(-inf < -9223372036854775807 - 1, "-inf < minint")
eq(1 / inf, 0, "1/inf is 0")
eqs(-1 / inf, "-0.0", "-1/inf is -0.0")
eqs(1 / -0.0, "-inf", "1/-0.0")
eqs(1 / 0.0, "inf", "1/0.0")
eq(0.0, -0.0, "0.0 == -0.0")

-- float to string via concat uses the same format
eq(1.5 .. "", "1.5", "concat float")
eq(2.0 .. "", "2.0", "concat integral float")
eq(1e16 .. "", "1e+16", "concat big float")
eq(-0.0 .. "", "-0.0", "concat -0.0")
eq(inf .. "", "inf", "concat inf")

-- exactness near 2^53
local big = 2 ^ 53
eq(big + 1, big, "2^53+1 rounds")
eq(big + 2, 9007199254740994, "2^53+2 exact")
assert(big - 1 ~= big, "2^53-1 exact")

-- accumulation
do
  local s = 0.0
  for _ = 1, 10 do s = s + 0.1 end
  eqs(s, "1.0", "0.1*10 prints 1.0")
  assert(s ~= 1.0, "0.1*10 is not exactly 1")
  local p = 1.0
  for _ = 1, 100 do p = p * 1.1 end
  eqs(p, "13780.612339822", "1.1^100")
end

-- float literals
eq(3., 3.0, "3.")
eq(.5, 0.5, ".5")
eq(5e-1, 0.5, "5e-1")
eq(5E+1, 50.0, "5E+1")
eq(0x1p4, 16.0, "hex float p")
eq(0x.8, 0.5, "hex fraction")
eq(0xA.8p1, 21.0, "hex float fraction exponent")
eq(0x1P-2, 0.25, "hex P negative")
eqs(0x1p4, "16.0", "hex float is float")

return "OK"
