-- Bitwise operators: & | ~ << >> unary ~, shifts >= 64 and negative shifts,
-- float operands with exact integer values, and the errors otherwise.
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
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end
local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1

eq(5 & 3, 1, "and")
eq(5 | 3, 7, "or")
eq(5 ~ 3, 6, "xor")
eq(~0, -1, "not 0")
eq(~5, -6, "not 5")
eq(~mini, maxi, "not min")
eq(0xF0 & 0x3C, 0x30, "and hex")
eq(0xF0 | 0x0F, 0xFF, "or hex")
eq(0xFF ~ 0x0F, 0xF0, "xor hex")
eq(-1 & 0xFF, 255, "and negative")

-- shifts
eq(1 << 0, 1, "shl 0")
eq(1 << 1, 2, "shl 1")
eq(1 << 62, 4611686018427387904, "shl 62")
eq(1 << 63, mini, "shl 63")
eq(1 << 64, 0, "shl 64")
eq(1 << 100, 0, "shl 100")
eq(-1 >> 1, maxi, "shr is logical")
eq(-1 >> 63, 1, "shr 63")
eq(-1 >> 64, 0, "shr 64")
eq(-1 >> 1000, 0, "shr 1000")
eq(1 >> -1, 2, "negative right shift shifts left")
eq(2 << -1, 1, "negative left shift shifts right")
eq(1 << -64, 0, "shl -64")
eq(-1 << -64, 0, "shl -64 of -1")
eq(mini >> 63, 1, "min >> 63")
eq(0xFF >> 4, 0xF, "shr 4")
eq(1 << mini, 0, "shift by minint")
eq(1 >> mini, 0, "shift right by minint")
eq(3 << maxi, 0, "shift by maxint")

-- precedence: shifts bind tighter than &, & tighter than ~, ~ tighter than |
eq(1 | 2 ~ 3 & 4 << 1, 1 | (2 ~ (3 & (4 << 1))), "bitwise precedence")
eq(1 << 2 + 1, 8, "+ binds tighter than <<")
eq(~1 + 1, -1, "unary ~ binds tighter than +")
eq(5 & 3 == 1, true, "& binds tighter than ==")
eq(1 | 2 < 4, true, "| binds tighter than <")

-- float operands with exact integer values are converted
eqs(3.0 & 1, "1", "float & int")
eqs(2.0 << 1.0, "4", "float shift")
eqs(~0.0, "-1", "bnot float")
eqs(2 ^ 53 | 1, "9007199254740993", "2^53|1")
eqs(-0.0 | 0, "0", "-0.0 | 0")
eqs(-2 ^ 63 | 0, "-9223372036854775808", "-2^63 fits")

-- errors
eq(errof(function(x) return x | 0 end, 1.5), "bitwise.lua:69: number (local 'x') has no integer representation", "1.5|0")
eq(errof(function(x) return 1 & x end, 2 ^ 63), "bitwise.lua:70: number (local 'x') has no integer representation", "1&2^63")
eq(errof(function(x) return ~x end, 0 / 0), "bitwise.lua:71: number (local 'x') has no integer representation", "~nan")
eq(errof(function(x) return x << 1 end, 1 / 0), "bitwise.lua:72: number (local 'x') has no integer representation", "inf<<1")
eq(errof(function() return 1.5 | 0 end), "bitwise.lua:73: number has no integer representation", "constant 1.5|0")
eq(errof(function(t) return t.a | 0 end, {a = 0.5}), "bitwise.lua:74: number (field 'a') has no integer representation", "field")
eq(errof(function(x) return x | 0 end, {}), "bitwise.lua:75: attempt to perform bitwise operation on a table value (local 'x')", "table|0")
eq(errof(function(x) return 1 ~ x end, nil), "bitwise.lua:76: attempt to perform bitwise operation on a nil value (local 'x')", "1~nil")
eq(errof(function(x) return ~x end, true), "bitwise.lua:77: attempt to perform bitwise operation on a boolean value (local 'x')", "~true")
eq(errof(function() return "3" | 0 end), "bitwise.lua:78: attempt to perform bitwise operation on a string value (constant '3')", "'3'|0")
eq(errof(function(s) return s >> 1 end, "8"), "bitwise.lua:79: attempt to perform bitwise operation on a string value (local 's')", "'8'>>1")

-- metamethods for bitwise operators
do
  local mt = {}
  local log = ""
  local function mk(name)
    return function(a, b) log = log .. name .. ";" return name end
  end
  mt.__band, mt.__bor, mt.__bxor = mk("band"), mk("bor"), mk("bxor")
  mt.__shl, mt.__shr, mt.__bnot = mk("shl"), mk("shr"), mk("bnot")
  local o = setmetatable({}, mt)
  eq(o & 1, "band", "__band")
  eq(1 | o, "bor", "__bor right operand")
  eq(o ~ o, "bxor", "__bxor")
  eq(o << 1, "shl", "__shl")
  eq(2 >> o, "shr", "__shr")
  eq(~o, "bnot", "__bnot")
  eq(log, "band;bor;bxor;shl;shr;bnot;", "metamethod log")
  -- metamethod is also used when an operand is a non-integral float
  local m2 = setmetatable({}, {__bor = function(a, b) return "mm" end})
  eq(1.5 | m2, "mm", "float with table operand goes to metamethod")
end

-- popcount loop, masks
do
  local function popcount(x)
    local c = 0
    while x ~= 0 do
      x = x & (x - 1)
      c = c + 1
    end
    return c
  end
  eq(popcount(0), 0, "popcount 0")
  eq(popcount(-1), 64, "popcount -1")
  eq(popcount(mini), 1, "popcount min")
  eq(popcount(0x5555555555555555), 32, "popcount alternating")
  local acc = 0
  for i = 0, 63 do acc = acc | (1 << i) end
  eq(acc, -1, "all bits")
  local r = 0x0123456789ABCDEF
  local rot = (r << 8) | (r >> 56)
  eq(rot, 0x23456789ABCDEF01, "rotate left 8")
end

return "OK"
