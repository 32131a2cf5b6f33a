-- Strings without the string library: equality, ordering, length,
-- concatenation, immutability, escapes, use as keys.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- equality is by value
eq("abc" == "ab" .. "c", true, "concat equals literal")
eq("" == "", true, "empty strings")
eq("a" ~= "A", true, "case sensitive")
eq("\0" == "\0", true, "nul strings")
eq("a\0b" == "a\0c", false, "embedded nul compared")

-- ordering is byte-wise (C locale)
assert("a" < "b", "a < b")
assert("A" < "a", "A < a")
assert("Z" < "a", "Z < a")
assert("" < "a", "empty is smallest")
assert("abc" < "abd", "third char")
assert("ab" < "abc", "prefix is smaller")
assert("a\0" > "a", "nul extends")
assert("a\0a" < "a\0b", "after nul")
assert("\127" < "\128", "ascii < high bytes")
assert("\255" > "\254", "high bytes")
assert("10" < "9", "numeric strings compare as strings")
assert("abc" <= "abc" and "abc" >= "abc", "<= and >=")
assert(not ("b" < "a"), "not b < a")

-- length counts bytes
eq(#"hello", 5, "hello")
eq(#"\u{20AC}", 3, "euro sign is 3 bytes")
eq(#("a" .. "\0" .. "b"), 3, "nul counted")

-- building strings
do
  local s = ""
  for i = 1, 10 do s = s .. i end
  eq(s, "12345678910", "loop concat")
  eq(#s, 11, "length 11")
  local parts = {}
  for i = 1, 26 do parts[i] = i end
  local csv = ""
  for i, v in ipairs(parts) do
    if i > 1 then csv = csv .. "," end
    csv = csv .. v
  end
  eq(#csv, 26 + 17 + 25, "csv length")
end

-- repeat a string without the string library: doubling
do
  local function rep(s, n)
    local r = ""
    while n > 0 do
      if n % 2 == 1 then r = r .. s end
      s = s .. s
      n = n // 2
    end
    return r
  end
  eq(rep("ab", 5), "ababababab", "rep 5")
  eq(#rep("x", 1000), 1000, "rep 1000")
  eq(rep("x", 0), "", "rep 0")
end

-- strings are values: modifying a copy does not affect the original
do
  local a = "base"
  local b = a
  b = b .. "!"
  eq(a, "base", "original unchanged")
  eq(b, "base!", "new string")
end

-- long strings and big concatenations
do
  local s = "x"
  for _ = 1, 20 do s = s .. s end
  eq(#s, 1048576, "1 MiB string by doubling")
  local t = s .. s
  eq(#t, 2097152, "2 MiB")
  assert(s < t, "prefix compare on long strings")
  eq(s == t, false, "different lengths")
end

-- numbers in strings keep their format
eq("v" .. 1, "v1", "int")
eq("v" .. 1.0, "v1.0", "float")
eq("v" .. -0.0, "v-0.0", "negative zero")
eq("v" .. 1e100, "v1e+100", "exponent")
eq("v" .. 2 ^ 63, "v9.2233720368548e+18", "2^63")
eq("v" .. 0x10, "v16", "hex literal")

-- type and tostring
eq(type("s"), "string", "type")
eq(tostring("s"), "s", "tostring identity")

-- escapes produce the expected bytes (compared with decimal escapes)
eq("\n\t\\\"", "\10\9\92\34", "common escapes")
eq("\x7A\u{7A}\122", "zzz", "three ways to write z")

-- strings in tables and as keys
do
  local set = {}
  for _, w in ipairs({"apple", "banana", "apple", "cherry", "banana", "apple"}) do
    set[w] = (set[w] or 0) + 1
  end
  eq(set.apple, 3, "apple count")
  eq(set.banana, 2, "banana count")
  eq(set.cherry, 1, "cherry count")
end

-- sorting strings with a hand-written insertion sort
do
  local words = {"pear", "Apple", "fig", "banana", "apple", "Fig"}
  for i = 2, #words do
    local w = words[i]
    local j = i - 1
    while j >= 1 and words[j] > w do
      words[j + 1] = words[j]
      j = j - 1
    end
    words[j + 1] = w
  end
  local out = ""
  for i, w in ipairs(words) do out = out .. w .. " " end
  eq(out, "Apple Fig apple banana fig pear ", "byte-wise sort")
end

-- concatenation of many pieces in one expression
eq("a" .. "b" .. "c" .. "d" .. "e" .. "f" .. "g" .. "h" .. "i" .. "j" .. "k" .. "l", "abcdefghijkl", "12-piece concat")
do
  local x, y, z = 1, 2.5, "s"
  eq(x .. y .. z .. x .. y .. z, "12.5s12.5s", "mixed operands")
end

return "OK"
