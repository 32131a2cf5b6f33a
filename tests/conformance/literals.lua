-- Lexical elements: string escapes, long strings, long comments, numerals.
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

-- escapes
eq("\65\066\0671", "ABC1", "decimal escapes (up to 3 digits)")
eq("\x41\x62", "Ab", "hex escapes")
eq("\u{41}", "A", "\\u ascii")
eq("\u{7FF}", "\xDF\xBF", "\\u 2 bytes")
eq("\u{FFFF}", "\xEF\xBF\xBF", "\\u 3 bytes")
eq("\u{10FFFF}", "\xF4\x8F\xBF\xBF", "\\u 4 bytes")
eq("\u{7FFFFFFF}", "\xFD\xBF\xBF\xBF\xBF\xBF", "\\u up to 2^31 (6 bytes)")
eq(#"\u{0}", 1, "\\u{0}")
eq("\z
      abc", "abc", "\\z skips whitespace including newlines")
eq("a\z  b", "ab", "\\z skips spaces")
eq("\'\"", "'" .. '"', "quotes")
eq("\\", "\92", "backslash")
eq("\n", "\10", "newline")
eq("\t", "\9", "tab")
eq("\r", "\13", "carriage return")
eq("\a\b\f\v", "\7\8\12\11", "bell etc")
eq("\0", "\x00", "nul")
eq(#"\0\0\0", 3, "three nuls")
eq("a\
b", "a\nb", "escaped newline")
eq('single', "single", "single quotes")
eq("\2340", "\234" .. "0", "decimal escape stops after three digits")

-- long strings
eq([[abc]], "abc", "long string")
eq([[
abc]], "abc", "first newline skipped")
eq([[a
b]], "a\nb", "embedded newline")
eq([==[a]]b]=]c]==], "a]]b]=]c", "level 2 long string")
eq([=[
]]]=], "]]", "brackets inside")
eq([[\n]], "\\n", "no escapes in long strings")
eq(#[[

]], 1, "only the first newline is skipped")

-- line ending normalisation in long strings (via load)
do
  local src = "return [[a\r\nb\n\rc\rd]]"
  local s = load(src)()
  eq(s, "a\nb\nc\nd", "\\r\\n, \\n\\r and \\r become \\n")
  local s2 = load("return 'x\\\r\ny'")()
  eq(s2, "x\ny", "escaped CRLF in short string")
end

-- comments
--[[ long
comment ]] eq(1, 1, "code after long comment")
--[==[ another ]] still comment
]==]
eq(--[[inline]] 2, 2, "inline long comment")
---[[ this is a line comment, not a long one
eq(3, 3, "line comment trick")
--]]

-- numerals
eqs(3, "3", "int")
eqs(3.0, "3.0", "float")
eqs(3.1416, "3.1416", "decimal")
eqs(314.16e-2, "3.1416", "exponent")
eqs(0.31416E1, "3.1416", "E exponent")
eqs(34e1, "340.0", "34e1")
eqs(0xff, "255", "hex")
eqs(0xBEBADA, "12499674", "hex mixed case")
eqs(0x0.1E, "0.1171875", "hex fraction")
eqs(0xA23p-4, "162.1875", "hex exponent")
eqs(0X1.921FB54442D18P+1, "3.1415926535898", "hex pi")
eqs(1e308, "1e+308", "max exponent")
eqs(1e309, "inf", "overflowing literal is inf")
eqs(2e-324, "0.0", "underflow to 0")
eqs(9223372036854775807, "9223372036854775807", "max integer literal")
eqs(9223372036854775808, "9.2233720368548e+18", "decimal overflow becomes float")
eqs(0x7fffffffffffffff, "9223372036854775807", "hex max")
eqs(0xffffffffffffffffff, "-1", "hex literals wrap around")
eqs(1E2, "100.0", "1E2")
eqs(.5e1, "5.0", ".5e1")
eqs(5., "5.0", "5.")
eqs(00012, "12", "leading zeros")
eqs(0x.8p1, "1.0", "0x.8p1")

-- malformed numbers are syntax errors
do
  local function compile(src) local f, e = load(src, "=n") return e end
  eq(compile("return 3x"), "n:1: malformed number near '3x'", "3x")
  eq(compile("return 0xg"), "n:1: malformed number near '0xg'", "0xg")
  eq(compile("return 1e"), "n:1: malformed number near '1e'", "1e")
  eq(compile("return 1..2"), "n:1: malformed number near '1..2'", "1..2")
  eq(compile("return 1 .. 2"), nil, "1 .. 2 is fine")
end

-- string errors
do
  local function compile(src) local f, e = load(src, "=s") return e end
  eq(compile("return 'abc"), "s:1: unfinished string near <eof>", "unfinished string")
  eq(compile("return \"a\nb\""), "s:1: unfinished string near '\"a'", "newline in string")
  eq(compile("return '\\q'"), "s:1: invalid escape sequence near ''\\q'", "invalid escape")
  eq(compile("return '\\300'"), "s:1: decimal escape too large near ''\\300''", "decimal escape too large")
  eq(compile("return [[abc"), "s:1: unfinished long string (starting at line 1) near <eof>", "unfinished long string")
  eq(compile("return '\\u{110000000}'"), "s:1: UTF-8 value too large near ''\\u{110000000'", "utf8 too large")
  eq(compile("return '\\xZZ'"), "s:1: hexadecimal digit expected near ''\\xZ'", "bad hex escape")
end

-- identifiers and keywords
do
  local _under, CamelCase, with123 = 1, 2, 3
  eq(_under + CamelCase + with123, 6, "identifier forms")
  local t = {["end"] = 1, ["and"] = 2}
  eq(t["end"] + t["and"], 3, "keywords as string keys")
  eq(load("local goto = 1"), nil, "goto is reserved")
end

-- shebang line is skipped by load? (only by luaL_loadfile, so load fails)
eq(load("#!/bin/lua\nreturn 1"), nil, "load does not skip a shebang")

return "OK"
