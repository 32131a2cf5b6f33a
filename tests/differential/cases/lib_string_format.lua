-- string.format: generated conversion specifications and values, plus the
-- error cases of lstrlib's str_format.
local seed = 12345
local function rnd(n)  -- deterministic LCG, 0 <= r < n
  seed = seed * 6364136223846793005 + 1442695040888963407
  return (seed >> 33) % n
end
local function pick(t) return t[rnd(#t) + 1] end

local ints = {0, 1, -1, 7, -42, 255, 1000, 65535, -123456789, 2^31 | 0,
  math.maxinteger, math.mininteger, 9007199254740993, -9007199254740993}
local floats = {0.0, -0.0, 1.0, -1.5, 0.1, 1/3, 2/3, 123.456, -987654.321, 1e-5,
  1e-300, 5e-324, 2^53, 2^63, 1e100, -1e-100, 1/0, -1/0, 0.5, 2.5, 99.995,
  1.7976931348623157e308, 2.2250738585072014e-308, 3.14159265358979}
local strs = {"", "a", "hello", "hello world", "tab\there", "q\"uote", "back\\slash",
  "nl\nx", "ctl\1\2\0033", "zero\0zero", "\r\n", "x\0", "0123456789"}

local convs = {"d", "i", "u", "o", "x", "X", "c", "a", "A", "e", "E", "f", "g", "G",
  "s", "q", "%"}
local function spec()
  local f = "%"
  for _ = 1, rnd(3) do f = f .. pick({"-", "+", " ", "#", "0"}) end
  if rnd(2) == 0 then f = f .. tostring(rnd(30)) end
  if rnd(2) == 0 then f = f .. "." .. tostring(rnd(20)) end
  return f .. pick(convs)
end
local function value(c)
  local k = rnd(10)
  if c == "c" then return 32 + rnd(95) end
  if k < 4 then return pick(ints) elseif k < 8 then return pick(floats)
  elseif k < 9 then return pick(strs) else return tostring(pick(ints)) end
end

local function show(s)  -- printable form (keeps output UTF-8)
  return (s:gsub("[%c\128-\255]", function(c) return ("\\%d"):format(c:byte()) end))
end

for i = 1, 700 do
  local f = spec()
  local v = value(f:sub(-1))
  local ok, r = pcall(string.format, f, v)
  print(i, show(f), math.type(v) or type(v), ok, show(tostring(r)))
end

-- fixed cases
local fixed = {
  {"%q", 1.0}, {"%q", 0.5}, {"%q", -0.0}, {"%q", 1/0}, {"%q", -1/0},
  {"%q", math.mininteger}, {"%q", math.maxinteger}, {"%q", 2^63}, {"%q", "a\0b\0001\r\n\"\\\127x"},
  {"%q", true}, {"%q", nil}, {"%q", {}}, {"%10q", 1}, {"%05c", 65}, {"%1.2.3d", 1},
  {"%", 1}, {"%#5.3x", 1}, {"%0000000000000000000000000005d", 1}, {"%y", 1}, {"%F", 1.0},
  {"%10.3y", 1}, {"%d", 3.5}, {"%d", "3"}, {"%d", "x"}, {"%x", 2^63}, {"%5s", "a\0b"},
  {"%s", "a\0b"}, {"%.3s", "abcdef"}, {"%-8sX", "ab"}, {"%100d", 1}, {"%.100f", 1},
  {"%.99f", 1}, {"%99.99f", -1e308}, {"%s %s", 1}, {"%d"}, {"%5.1s|", "abc"},
  {"%-5c|", 65}, {"%p", 1}, {"%p", nil}, {"%.3p", {}}, {"%s", 1.5}, {"%s", -0.0},
  {"%s", setmetatable({}, {__tostring = function() return "OBJ" end})},
  {"%s", setmetatable({}, {__tostring = function() return 1 end})},
  {"%10s", setmetatable({}, {__name = "MyType", __tostring = function() return "named" end})},
  {"%i|%u|%o", -5, -5, -5}, {"%c%c%c", 76, 117, 97}, {"%%%d%%", 5}, {"%e", 0}, {"%.0e", 12345},
  {"%#.0f", 3}, {"%+.3g", 100000}, {"%#g", 1e-5}, {"%g", 1e15}, {"%g", 1e16}, {"%.14g", 0.1},
  {"%a", 1}, {"%.3a", 1/3}, {"%A", -255.5}, {"%.0a", 1.5}, {"%20.10a|", 3.0},
}
for i, c in ipairs(fixed) do
  local ok, r = pcall(string.format, table.unpack(c, 1, 3))
  print("fixed", i, ok, show(tostring(r)))
end
print(pcall(function() return string.format("%d", "x") end))
print(pcall(function() return ("%d"):format({}) end))
print(pcall(string.format))
print(pcall(string.format, 12))
print(string.format("%s", 12), string.format(12.5), string.format("%q", "\200\201"):byte(1, -1))
print(#string.format("%099d", 7), #string.format("%.99f", 1/3))
-- %q output reads back to the same value
for _, v in ipairs({0.1, -2.5e-310, 1e308, math.pi, 12, math.mininteger, "a\0\1\0019\n\r\\\""}) do
  local q = string.format("%q", v)
  print(show(q), load("return " .. q)() == v)
end
