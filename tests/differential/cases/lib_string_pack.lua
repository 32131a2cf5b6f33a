-- string.pack/unpack/packsize: generated round trips (bytes shown in hex)
-- and the error cases of the glue (argument numbers and order).
local seed = 4242
local function rnd(n)
  seed = seed * 6364136223846793005 + 1442695040888963407
  return (seed >> 33) % n
end
local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    t[i] = type(v) == "string" and ("<" .. hex(v) .. ">") or tostring(v)
  end
  return table.concat(t, " ", 1, t.n)
end

local opts = {
  {"b", function() return rnd(256) - 128 end}, {"B", function() return rnd(256) end},
  {"h", function() return rnd(65536) - 32768 end}, {"H", function() return rnd(65536) end},
  {"i", function() return rnd(1 << 30) - (1 << 29) end}, {"I3", function() return rnd(1 << 24) end},
  {"j", function() return (rnd(1 << 31) << 32) | rnd(1 << 31) end},
  {"J", function() return rnd(1 << 31) * 3 end}, {"T", function() return rnd(1000) end},
  {"l", function() return -rnd(1 << 31) end}, {"i7", function() return rnd(1 << 31) - (1 << 30) end},
  {"i16", function() return -rnd(1000) end}, {"d", function() return rnd(100000) / 7 end},
  {"n", function() return -rnd(100000) / 3 end}, {"f", function() return rnd(1000) / 4 end},
  {"s", function() return ("x"):rep(rnd(5)) end}, {"s1", function() return ("ab"):rep(rnd(3)) end},
  {"z", function() return ("q"):rep(rnd(4)) end}, {"c5", function() return ("y"):rep(rnd(6)) end},
}
local prefixes = {"", "<", ">", "=", "!", "!4", "<!2", ">!8"}
for i = 1, 250 do
  local fmt = prefixes[rnd(#prefixes) + 1]
  local vals = {}
  for k = 1, 1 + rnd(4) do
    local o = opts[rnd(#opts) + 1]
    fmt = fmt .. o[1]
    if rnd(5) == 0 then fmt = fmt .. "x" end
    if rnd(6) == 0 then fmt = fmt .. " Xi4" end
    vals[k] = o[2]()
  end
  local ok, packed = pcall(string.pack, fmt, table.unpack(vals))
  if ok then
    print(i, fmt, hex(packed), show(string.unpack(fmt, packed)), pcall(string.packsize, fmt))
  else
    print(i, fmt, "error", packed)
  end
end

print(show(string.unpack("i4", string.pack("i4", 100))))
print(show(string.unpack("<i2 >i2", "\1\2\1\2")))
print(show(string.unpack("z", "abc\0def", 1)), show(string.unpack("B", "abc", -1)))
print(show(string.pack("i4", "12")), show(string.pack("d", "1.5")), show(string.pack("s", 12)))
local function safe(ok, msg)
  return ok, (tostring(msg):gsub("[\128-\255]", function(c) return "\\" .. c:byte() end))
end
for _, c in ipairs({
  {"i4"}, {"i4", "x"}, {"i4", 2^31}, {"i4", 1.5}, {"i17", 1}, {"c", "x"}, {"Xz", 1},
  {"d", {}}, {"s1", ("x"):rep(300)}, {"z", "a\0b"}, {"c2", "abc"}, {"!3i", 1}, {"w", 1},
  {"\255", 1}, {"i0", 1}, {"b", 200}, {"B", -1}, {"i2", 40000},
}) do
  print(safe(pcall(string.pack, table.unpack(c))))
end
for _, c in ipairs({{"i4", "abc"}, {"z", "abc"}, {"i4", "abcd", 2}, {"i4", "abcd", 10},
  {"i4", "abcd", -10}, {"s1", "\5abc"}, {"i9", ("\255"):rep(9)}, {"c3", "ab"}, {"x", ""}}) do
  print(pcall(string.unpack, table.unpack(c)))
end
for _, f in ipairs({"i4", "!8 i1 i8", "s", "z", "c1000", "i3 x X", "Xd", "c2147483647c2"}) do
  print(f, pcall(string.packsize, f))
end
print(pcall(string.pack), pcall(string.unpack, "i4"))
print(select("#", string.unpack(("b"):rep(100), ("\1"):rep(100))))
