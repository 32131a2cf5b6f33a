-- The utf8 library: char, charpattern, codes, codepoint, len, offset,
-- strict and lax modes, positions and lutf8lib's messages.
local function hex(s) return (s:gsub(".", function(c) return ("%02X"):format(c:byte()) end)) end
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    t[i] = type(v) == "string" and v:gsub("[%c\128-\255]", function(c) return "\\" .. c:byte() end)
      or tostring(v)
  end
  return table.concat(t, " ", 1, t.n)
end

print(hex(utf8.char(72, 228, 8364, 0x10FFFF, 0x110000, 0x7FFFFFFF, 0)), hex(utf8.char()))
print(pcall(utf8.char, -1), pcall(utf8.char, 0x80000000), pcall(utf8.char, 65, "x"))
print(hex(utf8.charpattern))
local samples = {"", "hello", "h\xC3\xA4\xC3\xA9", "\xE2\x82\xAC!", "\xF0\x9F\x98\x80x",
  "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC0\x80", "\x80abc", "ab\xC3", "\xFD\xBF\xBF\xBF\xBF\xBF",
  "a\0b", "\xE2\x82", "\xC3\xA4\x80"}
for i, s in ipairs(samples) do
  print(i, hex(s), show(utf8.len(s)), show(utf8.len(s, 1, -1, true)), show(pcall(utf8.len, s, 2)),
    show(pcall(utf8.codepoint, s, 1, -1)), show(pcall(utf8.codepoint, s, 1, -1, true)))
  local out = {}
  for _, lax in ipairs({false, true}) do
    local ok, e = pcall(function()
      for p, c in utf8.codes(s, lax) do out[#out + 1] = p .. ":" .. c end
    end)
    out[#out + 1] = ok and "end" or e
  end
  print("", table.concat(out, " "))
  local offs = {}
  for _, n in ipairs({-3, -1, 0, 1, 2, 3, 10}) do
    for _, at in ipairs({1, 2, -1}) do
      local ok, r = pcall(utf8.offset, s, n, at)
      offs[#offs + 1] = tostring(ok and r or "E")
    end
    local ok, r = pcall(utf8.offset, s, n)
    offs[#offs + 1] = tostring(ok and r or "E")
  end
  print("", table.concat(offs, ","))
  for m in s:gmatch(utf8.charpattern) do io.write(hex(m), ".") end print()
end
print(pcall(utf8.len, "abc", 5), pcall(utf8.len, "abc", 1, 4), pcall(utf8.len, "abc", 0))
print(utf8.len("abc", 4), utf8.len("abc", -1), utf8.len("abc", 3, 2), utf8.len("", 1, 0))
print(pcall(utf8.codepoint, "abc", 0), pcall(utf8.codepoint, "abc", 1, 4), utf8.codepoint("abc", 3, 2))
print(utf8.codepoint("abc"), utf8.codepoint("abc", -1), utf8.codepoint("abc", 2, 3))
print(pcall(utf8.offset, "abc", 1, 5), pcall(utf8.offset, "\xC3\xA4", 1, 2), utf8.offset("abc", 0, 4))
print(pcall(utf8.offset, "abc"), pcall(utf8.codes), pcall(utf8.codes, {}), pcall(utf8.len))
local f, s, c = utf8.codes("ab") print(type(f), s, c, f(s, c), f(s, 1), f(s, 2), f(s, -1), f(s, "1"))
