-- Generates pack.txt: expected results of string.pack/unpack/packsize from
-- the reference Lua 5.4.4 interpreter (x86_64).
--   lua5.4 gen_pack.lua > pack.txt
-- Line formats (tab separated, byte strings hex encoded):
--   P  fmt  args          expected   (args: space separated i:/f:/s: values)
--   U  fmt  data  init    expected   (values then next position)
--   Z  fmt                expected
-- Values: 'i:<int>', 'f:<16 hex digits of the double's bits>', 's:<hex>'.
-- Errors: 'A:<argno>:<hex msg>' (bad argument) or 'E:<hex msg>'.

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local function ser(v)
  if math.type(v) == "integer" then
    return "i:" .. string.format("%d", v)
  elseif math.type(v) == "float" then
    return "f:" .. string.format("%016x", string.unpack("<i8", string.pack("<d", v)))
  else
    return "s:" .. hex(v)
  end
end

local function err(e)
  e = tostring(e)
  local n, m = e:match("^bad argument #(%d+) to '[^']*' %((.*)%)$")
  if n then return "A:" .. n .. ":" .. hex(m) end
  return "E:" .. hex(e)
end

local function emit(...)
  io.write(table.concat({...}, "\t"), "\n")
end

local function serlist(t, n)
  local out = {}
  for i = 1, n do out[i] = ser(t[i]) end
  return table.concat(out, " ")
end

local function case_unpack(fmt, data, init)
  local r = table.pack(pcall(string.unpack, fmt, data, init))
  local exp = r[1] and serlist(table.pack(table.unpack(r, 2, r.n)), r.n - 1) or err(r[2])
  emit("U", hex(fmt), hex(data), init, exp)
end

local function case_packsize(fmt)
  local ok, r = pcall(string.packsize, fmt)
  emit("Z", hex(fmt), ok and ser(r) or err(r))
end

local function case_pack(fmt, args, n)
  local r = table.pack(pcall(string.pack, fmt, table.unpack(args, 1, n)))
  emit("P", hex(fmt), serlist(args, n), r[1] and ser(r[2]) or err(r[2]))
  if r[1] then
    local s = r[2]
    case_unpack(fmt, s, 1)
    if #s > 0 then case_unpack(fmt, s:sub(1, #s - 1), 1) end
    case_unpack(fmt, "\0\0\0" .. s, 4)
    case_unpack(fmt, "\1\2" .. s, -#s)
  end
end

-- Hand-picked cases ----------------------------------------------------------

local fixed = {
  {"i4", 100}, {"i4", -1}, {">i4", 100}, {"<i2", 32767}, {"i2", 32768},
  {"i2", -32768}, {"i2", -32769}, {"I2", 65535}, {"I2", 65536}, {"I2", -1},
  {"b", 127}, {"b", 128}, {"b", -128}, {"B", 255}, {"B", 256}, {"B", -1},
  {"h", 1}, {"H", 1}, {"l", -2}, {"L", -2}, {"j", math.mininteger},
  {"J", math.maxinteger}, {"T", 12345}, {"i16", -1}, {"I16", -1},
  {">i16", -3}, {"i9", math.mininteger}, {"I9", math.mininteger},
  {"i0", 1}, {"i17", 1}, {"I99", 1}, {"i", 1.0}, {"i", 1.5}, {"i", "x"},
  {"i"}, {"f", 1.5}, {"d", 1.5}, {"n", 1.5}, {">d", -0.0}, {"f", 1e300},
  {"f", 1}, {"d", "x"}, {"s", "hello"}, {"s1", string.rep("x", 255)},
  {"s1", string.rep("x", 256)}, {"s2", "ab"}, {">s3", "abc"}, {"z", "abc"},
  {"z", "a\0b"}, {"c5", "abc"}, {"c2", "abc"}, {"c0", ""}, {"c"}, {"c3", 12},
  {"s", 123}, {"z", -5}, {"x"}, {"xx"}, {"bxh", 1, 2}, {"!bh", 1, 2},
  {"!2bi8", 1, 2}, {"!4bi8", 1, 2}, {"!8bi8", 1, 2}, {"!16bi16", 1, 2},
  {"!3bi4", 1, 2}, {"!3bi2", 1, 2}, {"!17b", 1}, {"!0b", 1}, {"bXi4", 1},
  {"bX", 1}, {"bXc2", 1}, {"bXz", 1}, {"bX<", 1}, {"!bXi8", 1}, {"!bXi16", 1},
  {"!bXh", 1}, {"bXx", 1}, {"y", 1}, {"i4y", 1}, {"\255", 1}, {" < > = ", 1},
  {"i4\0i4", 1, 2}, {"!4 i3 i3", 1, 2}, {"<!4 s4 i4", "ab", 3}, {"!8 z i8", "a", 9},
  {"i4 i4", 1}, {"i4 i4", 1, 2, 3}, {"j", 2^53}, {"j", 2^63}, {"j", -2^63},
  {"I3", 0xffffff}, {"i3", 0x7fffff}, {"i3", 0x800000}, {"i3", -0x800000},
  {"i7", 1 << 55}, {"i7", -(1 << 55)}, {"i7", (1 << 55) - 1}, {"I7", -1},
  {"I8", -1}, {"i8", -1}, {"f", 0/0}, {"d", 0/0}, {"f", -(0/0)}, {"f", 1/0},
  {"f", 3.4028235677973366e38}, {"f", 1e-46}, {"f", 1.401298464324817e-45},
}
for _, c in ipairs(fixed) do
  local n = #c - 1
  local args = table.move(c, 2, #c, 1, {})
  case_pack(c[1], args, n)
  case_packsize(c[1])
end

-- Numbers where strings are expected are converted as tostring does.
for _, v in ipairs({1.0, -0.0, 0.0, 0.1, 1/3, -2/3, 2^53, 2^63, 1e14, 1e15, 1e16,
                    123456789012345.0, 12345678901234.5, 0.5, 2.5, 1e-4, 1e-5,
                    1.5e-5, 5e-324, 1.7976931348623157e308, 1/0, -1/0, 0/0,
                    -(0/0), 100, -7, math.mininteger, 3.14159265358979,
                    99999999999999.5, 999999999999995, 0.000123456789012345}) do
  case_pack("z", {v}, 1)
  case_pack("s1", {v}, 1)
  case_pack("c30", {v}, 1)
end

for _, f in ipairs({"", "i4", "!i4", "i4i8", "!i4i8", "!4i4i8", "s", "z", "c10",
                    "c2147483639", "c2147483640", "c2147483639c1", "c1c2147483639",
                    "!8bXd", "x!Xi16", "c99999999999", "i3i3!i3i3", "<i16>I9=h",
                    "c1000000000c1000000000c147483647", "c1000000000c1000000000c147483648",
                    "i33", "X", "Xi", "bXi4Xi8", "!16bXi16"}) do
  case_packsize(f)
end

local udata = {
  {"i4", "\1\0\0\0"}, {">i4", "\1\0\0\0"}, {"i4", "\1\0\0"}, {"b", "\255"},
  {"B", "\255"}, {"h", "\0\128"}, {"H", "\0\128"}, {"i3", "\255\255\255"},
  {"I3", "\255\255\255"}, {"i9", string.rep("\255", 9)},
  {"i9", string.rep("\255", 8) .. "\0"}, {"I9", string.rep("\255", 9)},
  {"I9", string.rep("\255", 8) .. "\0"}, {"i9", string.rep("\0", 7) .. "\128\255"},
  {"i9", string.rep("\0", 7) .. "\128\0"}, {">i9", "\0" .. string.rep("\255", 8)},
  {"i16", string.rep("\255", 16)}, {"j", string.rep("\255", 8)},
  {"z", "abc"}, {"z", "abc\0"}, {"z", "\0"}, {"z", ""}, {"zz", "a\0b\0"},
  {"s1", "\3abc"}, {"s1", "\4abc"}, {"s8", "\255\255\255\255\255\255\255\255"},
  {"s9", "\1\0\0\0\0\0\0\0\1a"}, {"c3", "ab"}, {"c3", "abc"}, {"c0", ""},
  {"!4 b i4", "\1\0\0\0\2\0\0\0"}, {"!4 b i4", "\1\0\0\0\2\0\0"},
  {"f", "\0\0\192\127"}, {"d", "\0\0\0\0\0\0\248\127"}, {"n", "\1\0\0\0\0\0\240\127"},
  {"x", "a"}, {"x", ""}, {"Xi4", ""}, {"bXi4", "a"}, {"i4", ""}, {"", ""},
  {"", "abc"},
}
for _, c in ipairs(udata) do
  for _, init in ipairs({1, 2, 0, -1, -100, #c[2], #c[2] + 1, #c[2] + 2}) do
    case_unpack(c[1], c[2], init)
  end
end

-- Randomized cases from a fixed seed -----------------------------------------

-- GEN_SEED / GEN_SCALE (environment) allow larger one-off differential runs.
math.randomseed(tonumber(os.getenv("GEN_SEED") or "7331"))
local SCALE = tonumber(os.getenv("GEN_SCALE") or "1")
local R = math.random

local ints = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768, 65535,
              65536, 2147483647, -2147483648, 4294967295, 4294967296,
              math.maxinteger, math.mininteger, 3.0, 3.5, -0.0, 2^62}
local floats = {0.1, -0.0, 1e300, 1/0, -1/0, 3.4e38, 1e-45, 1e-40, 0.5, 42,
                -7, 123456789.123, 2^-1074, 1.7976931348623157e308}
local function rand_int()
  local x = R(4)
  if x == 1 then return ints[R(#ints)]
  elseif x == 2 then return R(0)
  elseif x == 3 then return R(-1000000, 1000000)
  else return R(-300, 300) end
end
local function rand_float()
  if R(2) == 1 then return floats[R(#floats)] end
  return (R() - 0.5) * 10 ^ R(-40, 40)
end
-- No digits: numeric strings in number slots are converted by Lua but not by
-- the Rust ValueArgs adapter (a documented gap).
local chars = {"a", "b", "\0", "\255", "x", "y"}
local function rand_str(maxlen)
  local t = {}
  for i = 1, R(0, maxlen) do t[i] = chars[R(#chars)] end
  return table.concat(t)
end

local int_opts = {"b", "B", "h", "H", "l", "L", "j", "J", "T", "i", "I"}
local function rand_token()
  local x = R(20)
  if x <= 8 then
    local o = int_opts[R(#int_opts)]
    if (o == "i" or o == "I") and R(2) == 1 then o = o .. R(1, 16) end
    return o, rand_int
  elseif x <= 10 then
    return ({"f", "d", "n"})[R(3)], rand_float
  elseif x <= 12 then
    local o = ({"s", "s1", "s2", "s4", "s8", "s3", "z"})[R(7)]
    return o, function() return rand_str(6) end
  elseif x <= 13 then
    return "c" .. R(0, 5), function() return rand_str(6) end
  elseif x <= 17 then
    return ({"x", " ", "<", ">", "=", "!", "!1", "!2", "!4", "!8", "!16"})[R(11)]
  elseif x <= 19 then
    return "X" .. ({"i4", "h", "i8", "b", "d", "i16", "!", "c2", "s", "f"})[R(10)]
  else
    return ({"y", "i0", "i17", "c", "X", "!5", "!32"})[R(7)]
  end
end

for _ = 1, 1300 * SCALE do
  local fmt, args, n = {}, {}, 0
  for _ = 1, R(1, 6) do
    local tok, gen = rand_token()
    fmt[#fmt + 1] = tok
    if gen then
      n = n + 1
      local y = R(40)
      if y == 1 then args[n] = "str"
      else args[n] = gen() end
    end
  end
  if R(10) == 1 then n = n - 1 end
  local f = table.concat(fmt)
  case_pack(f, args, n)
  case_packsize(f)
  if R(3) == 1 then
    local d = rand_str(40)
    case_unpack(f, d, ({1, 1, 2, -3})[R(4)])
  end
end
