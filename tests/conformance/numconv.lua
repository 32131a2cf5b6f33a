-- Integer/float comparisons and conversions.
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
local function mtype(x)
  if type(x) ~= "number" then return nil end
  if tostring(x) == tostring(x * 1.0) then return "float" end
  return "integer"
end
local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1

-- equality across subtypes
assert(1 == 1.0, "1 == 1.0")
assert(-1 == -1.0, "-1 == -1.0")
assert(0 == -0.0, "0 == -0.0")
assert(maxi ~= 2 ^ 63, "maxint ~= 2^63")
assert(mini == -2 ^ 63, "minint == -2^63")
assert(maxi + 0.0 == 2 ^ 63, "maxint converted to float rounds to 2^63")
assert(maxi ~= maxi + 0.0, "maxint is not equal to its float rounding")
assert(2 ^ 53 == 9007199254740992, "2^53 exact")
assert(9007199254740993 ~= 2 ^ 53, "2^53+1 int vs float exact compare")
assert(1 ~= 1.5, "1 ~= 1.5")

-- ordering across subtypes must be exact (not via conversion to float)
assert(9007199254740993 > 9007199254740992.0, "int > float near 2^53")
assert(not (9007199254740993 < 9007199254740992.0), "not int < float near 2^53")
assert(9007199254740992.0 < 9007199254740993, "float < int near 2^53")
assert(maxi < 2 ^ 63, "maxint < 2^63")
assert(maxi <= 2 ^ 63, "maxint <= 2^63")
assert(not (maxi >= 2 ^ 63), "not maxint >= 2^63")
assert(mini <= -2 ^ 63, "minint <= -2^63")
assert(mini >= -2 ^ 63, "minint >= -2^63")
assert(mini > -1 / 0, "minint > -inf")
assert(maxi < 1 / 0, "maxint < inf")
assert(1 < 1.5 and 1.5 < 2, "1 < 1.5 < 2")
assert(-1 > -1.5, "-1 > -1.5")
assert(not (1 < 0 / 0) and not (1 > 0 / 0) and not (1 <= 0 / 0) and not (1 >= 0 / 0), "int vs nan")
assert(3 <= 3.0 and 3.0 <= 3 and 3 >= 3.0, "equal mixed ordering")
assert(2 ^ 64 > maxi, "2^64 > maxint")
assert(-(2 ^ 64) < mini, "-2^64 < minint")

-- tostring distinguishes subtypes
eqs(3, "3", "integer tostring")
eqs(3.0, "3.0", "float tostring")
eqs(-3.0, "-3.0", "negative float tostring")
eq(mtype(3), "integer", "3")
eq(mtype(3.0), "float", "3.0")

-- conversions float -> integer in operations that need integers
eq(3.0 | 0, 3, "3.0|0")
eq(mtype(3.0 | 0), "integer", "bitwise result is integer")
eq(2 ^ 53 | 0, 9007199254740992, "2^53|0")
eq(-2 ^ 63 | 0, mini, "-2^63|0")
assert(not pcall(function() return 2 ^ 63 | 0 end), "2^63 has no integer representation")
assert(not pcall(function() return 1.5 | 0 end), "1.5 has no integer representation")
assert(not pcall(function() local x = 0 / 0 return x | 0 end), "nan has no integer representation")
assert(not pcall(function() local x = 1 / 0 return x | 0 end), "inf has no integer representation")

-- integer -> float
eq(mtype(1 + 0.0), "float", "1+0.0 float")
eqs(maxi + 0.0, "9.2233720368548e+18", "maxint as float")
eqs(mini + 0.0, "-9.2233720368548e+18", "minint as float")
eqs(2 ^ 31 // 1, "2147483648.0", "float // int is float")

-- floor division on floats keeps float, even if integral
eq(mtype(7.0 // 2), "float", "7.0//2")
eqs(7.0 // 2, "3.0", "7.0//2 value")
eqs(-7.0 // 2, "-4.0", "-7.0//2 value")

-- tonumber keeps literal subtype
eq(mtype(tonumber("10")), "integer", "tonumber 10")
eq(mtype(tonumber("10.0")), "float", "tonumber 10.0")
eq(mtype(tonumber("1e1")), "float", "tonumber 1e1")
eq(mtype(tonumber("0x10")), "integer", "tonumber hex")
eq(mtype(tonumber("9223372036854775808")), "float", "tonumber overflow -> float")
eq(tonumber("9223372036854775807"), maxi, "tonumber max")
eq(tonumber("-9223372036854775808"), mini, "tonumber min")
eq(mtype(tonumber("-9223372036854775808")), "integer", "tonumber min type")
eq(tonumber("0xffffffffffffffff"), -1, "hex wraps in tonumber")

-- integral floats as table keys are normalised to integers
do
  local t = {}
  t[1.0] = "a"
  t[2] = "b"
  eq(t[1], "a", "t[1.0] stores at t[1]")
  eq(t[2.0], "b", "t[2.0] reads t[2]")
  eq(#t, 2, "length counts normalised keys")
  t[2 ^ 53] = "big"
  eq(t[9007199254740992], "big", "2^53 key normalised")
  t[1.5] = "f"
  eq(t[1.5], "f", "non-integral float key")
  eq(t[1], "a", "1.5 key does not clash")
  local k
  for kk in pairs({[3.0] = true}) do k = kk end
  eq(mtype(k), "integer", "next returns normalised integer key")
end

-- for loop variable types
do
  local seen
  for i = 1, 2 do seen = i end
  eq(mtype(seen), "integer", "int loop")
  for i = 1.0, 2 do seen = i end
  eq(mtype(seen), "float", "float start makes float loop")
  for i = 1, 2, 1.0 do seen = i end
  eq(mtype(seen), "float", "float step makes float loop")
  for i = 1, 2.5 do seen = i end
  eq(mtype(seen), "integer", "float limit keeps int loop")
  eq(seen, 2, "float limit floored")
end

return "OK"
