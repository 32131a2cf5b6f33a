-- Floor division and modulo: sign rules for integers and floats, inf/nan.
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
local inf = 1 / 0
local nan = 0 / 0
local function isnan(x) return x ~= x end

-- integers
eqs(7 // 2, "3", "7//2")
eqs(-7 // 2, "-4", "-7//2")
eqs(7 // -2, "-4", "7//-2")
eqs(-7 // -2, "3", "-7//-2")
eqs(7 % 3, "1", "7%3")
eqs(-7 % 3, "2", "-7%3")
eqs(7 % -3, "-2", "7%-3")
eqs(-7 % -3, "-1", "-7%-3")
eqs(6 % 3, "0", "6%3")
eqs(-6 % 3, "0", "-6%3")
eqs(0 // 5, "0", "0//5")
eqs(-1 // 5, "-1", "-1//5")
eqs(1 // -5, "-1", "1//-5")

-- floats
eqs(7.0 // 2, "3.0", "7.0//2")
eqs(-7.0 // 2, "-4.0", "-7.0//2")
eqs(7 // 2.0, "3.0", "7//2.0")
eqs(7.5 // 2, "3.0", "7.5//2")
eqs(-7.5 // 2, "-4.0", "-7.5//2")
eqs(7.5 % 2, "1.5", "7.5%2")
eqs(-7.5 % 2, "0.5", "-7.5%2")
eqs(7.5 % -2, "-0.5", "7.5%-2")
eqs(-7.5 % -2, "-1.5", "-7.5%-2")
eqs(5.5 % -2, "-0.5", "5.5%-2")
eqs(7 % 3.0, "1.0", "7%3.0")
eqs(-7 % 3.0, "2.0", "-7%3.0")
eqs(0.0 % -1, "0.0", "0.0 % -1")
eqs(-0.0 % 1, "-0.0", "-0.0 % 1")
eqs(-0.0 // 1, "-0.0", "-0.0 // 1")
eqs(5.3 % 1 < 0.31 and 5.3 % 1 > 0.29, "true", "fractional part")
eqs(-5.3 % 1 < 0.71 and -5.3 % 1 > 0.69, "true", "fractional part negative")

-- division by zero with floats
eqs(1 // 0.0, "inf", "1//0.0")
eqs(-1 // 0.0, "-inf", "-1//0.0")
eqs(3 // -0.0, "-inf", "3//-0.0")
assert(isnan(0 // 0.0), "0//0.0 is nan")
assert(isnan(1 % 0.0), "1%0.0 is nan")
assert(isnan(1.5 % 0), "1.5%0 is nan")

-- infinities
eqs(1 % inf, "1.0", "1 % inf")
eqs(-1 % inf, "inf", "-1 % inf")
eqs(1 % -inf, "-inf", "1 % -inf")
eqs(-1 % -inf, "-1.0", "-1 % -inf")
eqs(0 % inf, "0.0", "0 % inf")
assert(isnan(inf % 2), "inf % 2 is nan")
assert(isnan(-inf % 2), "-inf % 2 is nan")
eqs(1 // inf, "0.0", "1 // inf")
eqs(-1 // inf, "-0.0", "-1 // inf is floor(-1/inf)")
eqs(inf // 2, "inf", "inf // 2")
eqs(-inf // 2, "-inf", "-inf // 2")
assert(isnan(inf // inf), "inf//inf nan")
assert(isnan(nan // 1) and isnan(nan % 1) and isnan(1 % nan) and isnan(1 // nan), "nan propagates")

-- identity a == (a // b) * b + a % b for floats with exact values
for _, a in ipairs({-7.5, -3.0, -0.5, 0.0, 0.5, 3.0, 7.5, 10.25}) do
  for _, b in ipairs({-2.0, -0.5, 0.25, 1.0, 4.0}) do
    eq((a // b) * b + a % b, a, "identity " .. a .. "," .. b)
  end
end

-- integer extremes
local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1
eqs(mini // -1, "-9223372036854775808", "min // -1")
eqs(mini % -1, "0", "min % -1")
eqs(maxi // -1, "-9223372036854775807", "max // -1")
eqs(mini // 1, "-9223372036854775808", "min // 1")
eqs(mini % 2, "0", "min % 2")
eqs(maxi % 2, "1", "max % 2")
eqs(mini % maxi, "9223372036854775806", "min % max")
eqs(maxi % mini, "-1", "max % min")
eqs(mini // maxi, "-2", "min // max")
eqs(5 % mini, "-9223372036854775803", "5 % min")
eqs(-5 % maxi, "9223372036854775802", "-5 % max")

-- integer division by zero raises; float does not
assert(not pcall(function(a) return a // 0 end, 1), "1//0")
assert(not pcall(function(a) return a % 0 end, 1), "1%0")
assert(pcall(function(a) return a // 0.0 end, 1), "1//0.0 ok")

-- modulo with metamethods
do
  local mt = {__mod = function(a, b) return "mod" end, __idiv = function(a, b) return "idiv" end}
  local o = setmetatable({}, mt)
  eq(o % 2, "mod", "__mod")
  eq(2 // o, "idiv", "__idiv")
end

return "OK"
