-- Generates utf8.txt: expected results of the utf8 library from the
-- reference Lua 5.4.4 interpreter.
--   lua5.4 gen_utf8.lua > utf8.txt
-- Lines (tab separated, strings hex encoded, '-' = argument absent,
-- lax flags '0'/'1'):
--   L  s  i  j  lax     expected   utf8.len
--   C  s  i  j  lax     expected   utf8.codepoint
--   O  s  n  i          expected   utf8.offset
--   I  s  lax           expected   utf8.codes loop: 'pos:code' items
--   H  s  codes         expected   utf8.char(codes...) (s unused)
-- expected: 'i:<n>' values, 'N' (fail), 's:<hex>', or errors
-- 'A:<argno>:<hex msg>' / 'E:<hex msg>'.

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
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

local function ser(r)
  if not r[1] then return err(r[2]) end
  local out = {}
  for i = 2, r.n do
    local v = r[i]
    if v == nil then out[#out + 1] = "N"
    elseif type(v) == "string" then out[#out + 1] = "s:" .. hex(v)
    else out[#out + 1] = "i:" .. string.format("%d", v) end
  end
  return table.concat(out, " ")
end

local function a(x) return x == nil and "-" or string.format("%d", x) end
local function l(x) return x and "1" or "0" end

local function case_len(s, i, j, lax)
  emit("L", hex(s), a(i), a(j), l(lax), ser(table.pack(pcall(utf8.len, s, i, j, lax))))
end
local function case_cp(s, i, j, lax)
  emit("C", hex(s), a(i), a(j), l(lax), ser(table.pack(pcall(utf8.codepoint, s, i, j, lax))))
end
local function case_off(s, n, i)
  emit("O", hex(s), a(n), a(i), ser(table.pack(pcall(utf8.offset, s, n, i))))
end
local function case_codes(s, lax)
  local f, st, ctl = utf8.codes(s, lax)
  local parts = {}
  for _ = 1, 200 do
    local ok, p, c = pcall(f, st, ctl)
    if not ok then parts[#parts + 1] = err(p); break end
    if p == nil then break end
    parts[#parts + 1] = string.format("%d:%d", p, c)
    ctl = p
  end
  emit("I", hex(s), l(lax), table.concat(parts, " "))
end
local function case_char(...)
  local t = table.pack(...)
  local codes = {}
  for i = 1, t.n do codes[i] = string.format("%d", t[i]) end
  emit("H", "", table.concat(codes, " "), ser(table.pack(pcall(utf8.char, ...))))
end

-- Building blocks: valid, lax-only and invalid sequences.
local pieces = {
  "a", "z", "\0", "\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xe4\xb8\xad",
  "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
  "\xed\xa0\x80", "\xed\xbf\xbf",                       -- surrogates
  "\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf",               -- > 10FFFF
  "\xf8\x88\x80\x80\x80", "\xfb\xbf\xbf\xbf\xbf",       -- 5 bytes
  "\xfc\x84\x80\x80\x80\x80", "\xfd\xbf\xbf\xbf\xbf\xbf", -- 6 bytes
  "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xf0\x80\x80\x80", -- overlong
  "\xf8\x80\x80\x80\x80", "\xfc\x80\x80\x80\x80\x80",
  "\x80", "\xbf", "\xc2", "\xe4\xb8", "\xf0\x90\x80", "\xfe", "\xff",
  "\xfe\x80\x80\x80\x80\x80\x80", "\xff\x80\x80\x80\x80\x80\x80\x80",
  "\xc2\x41", "\xe4\x41\x80",
}

local fixed = {"", "abc", "h\xc3\xa9llo", "\xe4\xb8\xad\xe6\x96\x87", "\x80abc",
               "abc\x80", "\xe4\xb8\xad\x80\x80x", "\xff", "\xf4\x90\x80\x80",
               "\xed\xa0\x80z"}
for k, p in ipairs(pieces) do
  fixed[#fixed + 1] = k % 2 == 0 and p or ("x" .. p .. "y")
end

local idx = {nil, 1, 2, 3, 0, -1, -2, -3, 4, 5, 100, -100, math.mininteger, math.maxinteger}
local few = {nil, 1, 2, 0, -1, -3, 5, 100, math.mininteger}
local function each_idx(f)
  for k = 1, 9 do f(few[k]) end
end

for _, s in ipairs(fixed) do
  for _, lax in ipairs({false, true}) do
    case_len(s, nil, nil, lax)
    case_cp(s, 1, -1, lax)
    case_codes(s, lax)
    each_idx(function(i) case_len(s, i, nil, lax); case_cp(s, i, nil, lax) end)
    each_idx(function(j) case_len(s, 1, j, lax); case_cp(s, 1, j, lax) end)
  end
  for _, n in ipairs({0, 1, 2, -1, -2, 10}) do
    each_idx(function(i) case_off(s, n, i) end)
  end
end

for _, c in ipairs({0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd800, 0xdfff, 0xfffd,
                    0xffff, 0x10000, 0x10ffff, 0x110000, 0x1fffff, 0x200000,
                    0x3ffffff, 0x4000000, 0x7fffffff, 0x80000000, -1,
                    math.mininteger, math.maxinteger}) do
  case_char(c)
  case_char(0x41, c, 0x42)
end
case_char()

-- Randomized strings from a fixed seed.
-- GEN_SEED / GEN_SCALE (environment) allow larger one-off differential runs.
math.randomseed(tonumber(os.getenv("GEN_SEED") or "8675309"))
local SCALE = tonumber(os.getenv("GEN_SCALE") or "1")
local R = math.random
for _ = 1, 500 * SCALE do
  local t = {}
  for k = 1, R(0, 6) do t[k] = pieces[R(#pieces)] end
  local s = table.concat(t)
  local lax = R(2) == 1
  case_len(s, idx[R(14)], idx[R(14)], lax)
  case_cp(s, R(-3, 6), R(-3, 20), lax)
  case_codes(s, lax)
  case_off(s, R(-5, 5), idx[R(14)])
  case_off(s, R(-5, 5), R(1, #s + 1))
end
for _ = 1, 200 * SCALE do
  local n = R(1, 5)
  local codes = {}
  for k = 1, n do
    local x = R(4)
    codes[k] = x == 1 and R(0, 0x7f) or (x == 2 and R(0, 0x10ffff) or R(0, 0x7fffffff))
  end
  case_char(table.unpack(codes, 1, n))
end
