-- Generates patterns.txt: expected results of string.find/match/gmatch/gsub
-- from the reference Lua 5.4.4 interpreter.
--   lua5.4 gen_patterns.lua > patterns.txt
-- Line formats (tab separated, byte strings hex encoded):
--   F  subject pattern init plain  expected
--   M  subject pattern init        expected
--   G  subject pattern init        expected
--   S  subject pattern repl max    expected   (max '-' = absent)
--   SF subject pattern max         expected   (function replacement)
-- expected: 'N' (fail), 'E:<hex message>', or space separated values
-- 's:<hex>' / 'i:<integer>' (gmatch: one '[...]' group per iteration).

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local function ser(...)
  local n = select("#", ...)
  local out = {}
  for i = 1, n do
    local v = select(i, ...)
    if v == nil then
      out[#out + 1] = "N"
    elseif type(v) == "string" then
      out[#out + 1] = "s:" .. hex(v)
    else
      out[#out + 1] = "i:" .. string.format("%d", v)
    end
  end
  return table.concat(out, " ")
end

local function result(ok, ...)
  if not ok then return "E:" .. hex(tostring((...))) end
  return ser(...)
end

local function emit(...)
  io.write(table.concat({...}, "\t"), "\n")
end

local function case_find(s, p, init, plain)
  emit("F", hex(s), hex(p), init, plain and "1" or "0",
       result(pcall(string.find, s, p, init, plain)))
end

local function case_match(s, p, init)
  emit("M", hex(s), hex(p), init, result(pcall(string.match, s, p, init)))
end

local function case_gmatch(s, p, init)
  local parts = {}
  -- Call the iterator directly from pcall so that error messages carry no
  -- position prefix (the glue adds the caller's position).
  local it = string.gmatch(s, p, init)
  for _ = 1, 50 do
    local r = table.pack(pcall(it))
    if not r[1] then
      parts[#parts + 1] = "E:" .. hex(tostring(r[2]))
      break
    end
    if r.n == 1 or r[2] == nil then break end
    parts[#parts + 1] = "[" .. ser(table.unpack(r, 2, r.n)) .. "]"
  end
  emit("G", hex(s), hex(p), init, table.concat(parts, " "))
end

local function case_gsub(s, p, repl, max)
  local ok, r, n = pcall(string.gsub, s, p, repl, max)
  local exp = ok and ("s:" .. hex(r) .. " i:" .. n) or ("E:" .. hex(tostring(r)))
  emit("S", hex(s), hex(p), hex(repl), max or "-", exp)
end

local function frepl(...)
  local first = ...
  if first == "" then return nil end
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  return "<" .. table.concat(t, ",", 1, t.n) .. ">"
end

local function case_gsubf(s, p, max)
  local ok, r, n = pcall(string.gsub, s, p, frepl, max)
  local exp = ok and ("s:" .. hex(r) .. " i:" .. n) or ("E:" .. hex(tostring(r)))
  emit("SF", hex(s), hex(p), max or "-", exp)
end

local function all_cases(s, p, init)
  case_find(s, p, init, false)
  case_match(s, p, init)
  case_gmatch(s, p, init)
  case_gsubf(s, p)
end

-- Hand-picked cases -------------------------------------------------------

local fixed = {
  {"hello world", "o w"}, {"hello world", "l+"}, {"hello", ""}, {"", ""},
  {"", "a*"}, {"abc", "^abc$"}, {"abc", "^"}, {"abc", "$"}, {"a$b", "a$b"},
  {"a^b", "a^b"}, {"^ab", "^^a"}, {"abc", "(a)(b)(c)"}, {"abc", "()a()"},
  {"abc", "a)"}, {"abc", "(a"}, {"abc", "%"}, {"abc", "[a"}, {"abc", "[]"},
  {"a]c", "[]]"}, {"a]c", "[^]]"}, {"a-c", "[a-]"}, {"a-c", "[-a]"},
  {"abc", "[%a-z]"}, {"a%c", "[%%]"}, {"x]y", "[%]]"}, {"abc", "[^%a]"},
  {"THE (quick) fox", "%f[%a]%a+"}, {"THE (quick) fox", "%f[%A]"},
  {"THE (quick) fox", "%f[%l]%a+"}, {"abc", "%fa"}, {"abc", "%f"},
  {"f(a(b)c)d", "%b()"}, {"f(a(b)c", "%b()"}, {"abc", "%b"}, {"abc", "%ba"},
  {"aaa", "%bac"}, {"hello hello", "(h%w+) %1"}, {"abab", "(ab)%1"},
  {"abc", "%1"}, {"abc", "(a)%2"}, {"abc", "(a%1)"}, {"abc", "%0"},
  {"abc", "()%1"}, {"abc", "(a)()%2"}, {"x = 10, y = 20", "(%w+)%s*=%s*(%w+)"},
  {"  trim  ", "^%s*(.-)%s*$"}, {"key=val", "(%w+)=(%w*)"}, {"\0a\0", "%z"},
  {"\0a\0", "[%z]"}, {"a\0b", "a\0b"}, {"a\0b", "[\0]"}, {"a.b", "a.b"},
  {"a+b", "a+b"}, {"a+b", "a%+b"}, {"aaa", "a-b"}, {"aaab", "a-b"},
  {"aaab", "a*?"}, {"", "$"}, {"", "^$"}, {"abc", "c$"}, {"abc$", "c$$"},
  {"\xff\x80", "%a"}, {"\xff\x80", "[\x80-\xff]+"}, {"abc", "[c-a]"},
  {"a1 b2\tc3\n", "%s"}, {"\v\f\r", "%s+"}, {"a,b;c", "%p"}, {"AbC", "%u+"},
  {"AbC", "%l"}, {"0x1F", "%x+"}, {"a\1b\127", "%c"}, {"a b", "%g+"},
  {"hello", "(l)(l)"}, {"hello", "((l)(l))"}, {"hello", "(h)(e)(l)(l)(o)()"},
  {"abc", "(()"}, {"abc", "())"}, {"abc", "%f[a]"}, {"abc", "%f[^a]"},
  {"abc", "%f[%z]"}, {"abc", "[a-c]+$"}, {"abc", "[%w_]*"}, {"[x]", "%[x%]"},
  {"abc", ".-"}, {"abc", ".-$"}, {"abc", "(.-)c"}, {"abc", "a?b?c?d?"},
}
for _, c in ipairs(fixed) do
  for _, init in ipairs({1, 2, -1, 0, -100, 4, 100}) do
    all_cases(c[1], c[2], init)
  end
  case_find(c[1], c[2], 1, true)
  case_find(c[1], c[2], 2, true)
end

local repls = {"%0", "<%1>", "%%", "x", "%2", "%", "%z", "[%1|%2]", "", "%1%1",
               "a%", "%%%0%%", "\0%0"}
for _, c in ipairs(fixed) do
  for _, r in ipairs(repls) do
    case_gsub(c[1], c[2], r)
  end
  case_gsub(c[1], c[2], "#", 1)
  case_gsub(c[1], c[2], "#", 0)
  case_gsub(c[1], c[2], "#", -3)
  case_gsubf(c[1], c[2], 2)
end

-- Too complex / too many captures.
case_find(string.rep("a", 300), string.rep("a?", 300), 1, false)
case_find(string.rep("a", 300), string.rep("a?", 150), 1, false)
case_find(string.rep("a", 300), "b" .. string.rep("a?", 198), 1, false)
case_find(string.rep("a", 300), string.rep("a?", 199), 1, false)
case_find(string.rep("a", 300), string.rep("a?", 200), 1, false)
case_find(string.rep("a", 300), string.rep("a?", 201), 1, false)
case_find(string.rep("a", 300), string.rep("(a)", 31), 1, false)
case_find(string.rep("a", 300), string.rep("(a)", 32), 1, false)
case_find(string.rep("a", 300), string.rep("(a)", 33), 1, false)
case_find(string.rep("a", 300), string.rep("()", 33), 1, false)
case_find("a", string.rep("(", 40) .. "a" .. string.rep(")", 40), 1, false)
case_match(string.rep("ab", 100), "(a*(.)%w(%s*))", 1)
case_match(string.rep("x", 500), ".-y", 1)
case_match(string.rep("x", 500), "(x*)%1$", 1)
case_gsub(string.rep("ab", 200), "()b", "%1", nil)

-- Randomized cases from a fixed seed --------------------------------------

-- GEN_SEED / GEN_SCALE (environment) allow larger one-off differential runs.
math.randomseed(tonumber(os.getenv("GEN_SEED") or "20240607"))
local SCALE = tonumber(os.getenv("GEN_SCALE") or "1")
local R = math.random
local atoms = {
  "a", "b", "c", " ", ".", "%a", "%d", "%s", "%w", "%l", "%u", "%p", "%x",
  "%c", "%g", "%A", "%D", "%S", "%W", "%z", "%.", "%%", "%(", "%)", "%-",
  "[ab]", "[^ab]", "[a-c]", "[%a_]", "[^%d]", "[]]", "[^]]", "[a-]", "[%]]",
  "[%w%s]", "[\0-\31]", "1", "2", "(", ")", "-", "_",
}
local extras = {
  "()", "%1", "%2", "%b()", "%bab", "%f[%w]", "%f[%W]", "%f[a]", "%f[^%s]",
  "$", "^", "(", ")", "%", "[a", "%f", "%fa", "%b", "%9", "%0", "[^",
}
local quants = {"", "", "", "*", "+", "-", "?"}
local alphabet = {"a", "a", "b", "b", "c", " ", "(", ")", "1", "2", ".", "%",
                  "-", "_", "A", "\0", "\xff", "\n"}

local function rand_subject()
  local t = {}
  for i = 1, R(0, 12) do t[i] = alphabet[R(#alphabet)] end
  return table.concat(t)
end

local function rand_pattern()
  local t = {}
  if R(6) == 1 then t[#t + 1] = "^" end
  for _ = 1, R(1, 6) do
    local x = R(10)
    if x <= 7 then
      t[#t + 1] = atoms[R(#atoms)] .. quants[R(#quants)]
    elseif x <= 9 then
      local inner = atoms[R(#atoms)] .. quants[R(#quants)]
      t[#t + 1] = "(" .. inner .. ")"
    else
      t[#t + 1] = extras[R(#extras)]
    end
  end
  if R(6) == 1 then t[#t + 1] = "$" end
  return table.concat(t)
end

for _ = 1, 900 * SCALE do
  local s, p = rand_subject(), rand_pattern()
  local init = ({1, 1, 1, 2, 3, -1, -2, 0, 13, -20})[R(10)]
  all_cases(s, p, init)
  case_gsub(s, p, repls[R(#repls)], ({nil, nil, 1, 2})[R(4)])
  if R(4) == 1 then case_find(s, p, init, true) end
end
