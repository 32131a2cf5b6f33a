-- String <-> number coercions in arithmetic and concatenation.
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

-- strings in arithmetic are converted following the lexer's rules
eqs("10" + 1, "11", "'10'+1 is integer 11")
eqs("10" * "2", "20", "both strings")
eqs("3.0" + 1, "4.0", "float string")
eqs("0x10" + 0, "16", "hex string")
eqs(" 5 " + 0, "5", "whitespace allowed")
eqs("\t5\n" + 0, "5", "tabs/newlines allowed")
eqs("1e1" + 0, "10.0", "exponent string")
eqs("10" // "3", "3", "idiv strings")
eqs("7" % "2", "1", "mod strings")
eqs(-"2", "-2", "unm string")
eqs(-"2.5", "-2.5", "unm float string")
eqs("2" ^ "3", "8.0", "pow strings")
eqs("9" / "3", "3.0", "div strings")
eqs(10 - "2.5", "7.5", "sub mixed")
eqs("-0x10" + 0, "-16", "negative hex string")
eqs("9223372036854775807" + 1, "-9223372036854775808", "string integer wraps")
eqs("9223372036854775808" + 0, "9.2233720368548e+18", "too big string is float")

-- non-numeric strings fail
assert(not pcall(function() return "abc" + 1 end), "'abc'+1 fails")
assert(not pcall(function() return "" + 1 end), "''+1 fails")
assert(not pcall(function() return "1 2" + 1 end), "'1 2'+1 fails")
assert(not pcall(function() return "0x" + 1 end), "'0x'+1 fails")
assert(not pcall(function() return "1e" + 1 end), "'1e'+1 fails")
assert(not pcall(function() return -"x" end), "-'x' fails")

-- strings are never converted in comparisons
assert(not pcall(function() return "10" < 5 end), "'10' < 5 fails")
assert("10" ~= 10, "'10' ~= 10")
assert("10" < "9", "string comparison is lexicographic")
assert(not ("a" == 1), "string never equals number")

-- strings are not converted in bitwise operations (lua 5.4)
assert(not pcall(function() return "3" | 0 end), "'3'|0 fails in 5.4")

-- numbers in concatenation
eq(1 .. "", "1", "int concat")
eq(1 .. 2, "12", "int .. int")
eq(1.5 .. "x", "1.5x", "float concat")
eq(10.0 .. "", "10.0", "integral float concat keeps .0")
eq(-0.0 .. "", "-0.0", "-0.0 concat")
eq(1e100 .. "", "1e+100", "big float concat")
eq(9223372036854775807 .. "", "9223372036854775807", "maxint concat")
eq((-9223372036854775807 - 1) .. "", "-9223372036854775808", "minint concat")
eq(2 ^ 63 .. "", "9.2233720368548e+18", "2^63 concat")
eq("a" .. "b" .. "c" .. 1 .. 2.0, "abc12.0", "chain")
eq("" .. "", "", "empty concat")
eq(#("ab" .. "cd"), 4, "length of concat")

-- concat is right associative and lower than arithmetic
eq("x" .. 1 + 2, "x3", ".. lower than +")
eq(1 + 2 .. "", "3", "+ before ..")
eq(2 ^ 2 .. "", "4.0", "^ before ..")

-- what cannot be concatenated
assert(not pcall(function() return "a" .. {} end), "table concat fails")
assert(not pcall(function() return "a" .. nil end), "nil concat fails")
assert(not pcall(function() return "a" .. true end), "boolean concat fails")
assert(not pcall(function() return print .. "" end), "function concat fails")

-- long concatenation chains
do
  local s = ""
  for i = 1, 100 do s = s .. i % 10 end
  eq(#s, 100, "100-char string")
  local parts = {}
  for i = 1, 10 do parts[i] = i end
  local t = ""
  for i = 1, #parts do t = t .. parts[i] .. (i < #parts and "," or "") end
  eq(t, "1,2,3,4,5,6,7,8,9,10", "join")
end

-- tostring of numbers roundtrips with tonumber for integers
for _, n in ipairs({0, 1, -1, 123456789, 9223372036854775807, -9223372036854775807 - 1}) do
  eq(tonumber(tostring(n)), n, "roundtrip " .. n)
  eq(tonumber(n .. ""), n, "roundtrip concat " .. n)
end

return "OK"
