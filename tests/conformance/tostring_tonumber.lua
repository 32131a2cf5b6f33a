-- tostring and tonumber: formats, bases, whitespace, hex, __tostring, __name.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end
local function mtype(x)
  if type(x) ~= "number" then return nil end
  if tostring(x) == tostring(x * 1.0) then return "float" end
  return "integer"
end

-- tostring of basic values
eq(tostring(nil), "nil", "nil")
eq(tostring(true), "true", "true")
eq(tostring(false), "false", "false")
eq(tostring(0), "0", "0")
eq(tostring(-0.0), "-0.0", "-0.0")
eq(tostring(123), "123", "int")
eq(tostring(1.25), "1.25", "float")
eq(tostring(1e300 * 1e10), "inf", "inf")
eq(tostring(-1e300 * 1e10), "-inf", "-inf")
eq(tostring(12345678901234567890), "1.2345678901235e+19", "big literal is float")
eq(tostring("str"), "str", "string identity")
eq(errof(tostring), "bad argument #1 to 'tostring' (value expected)", "tostring()")

-- tables/functions: distinct values have distinct strings, stable per value
do
  local t, u = {}, {}
  eq(type(tostring(t)), "string", "tostring table is string")
  eq(tostring(t), tostring(t), "stable")
  assert(tostring(t) ~= tostring(u), "distinct tables")
  assert(tostring(print) ~= tostring(tostring), "distinct functions")
  local co = coroutine.create(print)
  eq(tostring(co), tostring(co), "thread stable")
end

-- __tostring
do
  local t = setmetatable({}, {__tostring = function(self) return "I am T" end})
  eq(tostring(t), "I am T", "__tostring")
  local p = setmetatable({x = 1, y = 2}, {__tostring = function(self) return "(" .. self.x .. "," .. self.y .. ")" end})
  eq(tostring(p), "(1,2)", "__tostring uses fields")
  local n = setmetatable({}, {__tostring = function() return 42 end})
  eq(tostring(n), "42", "__tostring may return a number; it is converted")
  local bad = setmetatable({}, {__tostring = function() return {} end})
  eq(errof(tostring, bad), "'__tostring' must return a string", "__tostring returning a table")
  -- __name is used when there is no __tostring: "MyType: 0x..."; different from plain
  local named = setmetatable({}, {__name = "MyType"})
  assert(tostring(named) ~= tostring({}), "__name changes the prefix")
  -- a non-string __name is ignored
  local badname = setmetatable({}, {__name = 1})
  eq(type(tostring(badname)), "string", "non-string __name ignored")
end


-- tonumber on strings
eq(tonumber("10"), 10, "10")
eq(mtype(tonumber("10")), "integer", "10 integer")
eq(tonumber("  10  "), 10, "surrounding spaces")
eq(tonumber("\t\n 42 \v\f\r"), 42, "all whitespace kinds")
eq(tonumber("4 2"), nil, "inner space")
eq(tonumber("42\0"), nil, "embedded nul")
eq(tonumber("0x10"), 16, "hex")
eq(tonumber("0X1F"), 31, "hex upper")
eq(tonumber("-0x10"), -16, "negative hex")
eq(tonumber("  0x1p-2  "), 0.25, "hex float")
eq(tonumber("0x.8"), 0.5, "hex fraction")
eq(tonumber("1e+2"), 100.0, "exponent")
eq(mtype(tonumber("1e2")), "float", "exponent is float")
eq(tonumber(".5"), 0.5, ".5")
eq(tonumber("5."), 5.0, "5.")
eq(tonumber("+1"), 1, "+1")
eq(tonumber("- 1"), nil, "- 1")
eq(tonumber("--1"), nil, "--1")
eq(tonumber("+ 1"), nil, "+ 1")
eq(tonumber("1_000"), nil, "underscore")
eq(tonumber(""), nil, "empty")
eq(tonumber("   "), nil, "blank")
eq(tonumber("0x"), nil, "0x")
eq(tonumber("1e"), nil, "1e")
eq(tonumber("1e1.5"), nil, "1e1.5")
eq(tonumber("inf"), nil, "inf")
eq(tonumber("nan"), nil, "nan")
eq(tonumber("0b101"), nil, "no binary literals")
eq(tonumber("-0"), 0, "-0")
eq(tostring(tonumber("-0")), "0", "-0 is integer 0")
eq(tostring(tonumber("-0.0")), "-0.0", "-0.0 float")
eq(tonumber("9223372036854775807"), 9223372036854775807, "maxint")
eq(mtype(tonumber("9223372036854775808")), "float", "overflow to float")
eq(tostring(tonumber("-9223372036854775809")), "-9.2233720368548e+18", "underflow to float")
eq(tonumber("0xffffffffffffffffff"), -1, "hex wraps")
eq(tonumber("1" .. "000000000000000000000000000000"), 1e30, "long decimal")

-- tonumber on numbers and other values
eq(tonumber(12), 12, "number passes")
eq(tonumber(1.5), 1.5, "float passes")
eq(tonumber({}), nil, "table")
eq(tonumber(true), nil, "boolean")
eq(tonumber(nil), nil, "nil")
eq(errof(tonumber), "bad argument #1 to 'tonumber' (value expected)", "tonumber()")

-- bases
eq(tonumber("10", 2), 2, "binary")
eq(tonumber("  11  ", 2), 3, "binary with spaces")
eq(tonumber("12", 2), nil, "invalid digit")
eq(tonumber("ff", 16), 255, "hex base")
eq(tonumber("FF", 16), 255, "hex base upper")
eq(tonumber("-ff", 16), -255, "negative")
eq(tonumber("zz", 36), 1295, "base 36")
eq(tonumber("Z", 36), 35, "Z")
eq(tonumber("10", 36), 36, "10 base 36")
eq(tonumber("777", 8), 511, "octal")
eq(tonumber("8", 8), nil, "8 in octal")
eq(tonumber("7fffffffffffffff", 16), 9223372036854775807, "max in hex")
eq(tonumber("ffffffffffffffff", 16), -1, "wraps")
eq(tonumber("1.5", 10), nil, "no fractions with base")
eq(tonumber("0x10", 16), nil, "no 0x prefix with base")
eq(tonumber("", 10), nil, "empty with base")
eq(mtype(tonumber("10", 10)), "integer", "base result integer")
eq(errof(tonumber, "10", 1), "bad argument #2 to 'tonumber' (base out of range)", "base 1")
eq(errof(tonumber, "10", 37), "bad argument #2 to 'tonumber' (base out of range)", "base 37")
eq(errof(tonumber, 10, 16), "bad argument #1 to 'tonumber' (string expected, got number)", "number with base")

-- round trips
for _, v in ipairs({0, 1, -1, 255, 1000000007, 9223372036854775807, -9223372036854775807 - 1}) do
  eq(tonumber(tostring(v)), v, "int round trip " .. v)
end
for _, v in ipairs({0.5, -2.25, 1e100, 1e-100, 3.0}) do
  eq(tonumber(tostring(v)), v, "float round trip " .. v)
end

return "OK"
