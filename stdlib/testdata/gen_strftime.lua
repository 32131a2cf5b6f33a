-- Generates strftime.txt: expected results of os.date and os.time from the
-- reference Lua 5.4.4 interpreter. Must run with TZ=UTC:
--   TZ=UTC lua5.4 gen_strftime.lua > strftime.txt
-- Lines (tab separated):
--   D  format  time                             expected
--   T  year month day hour min sec isdst        expected
-- D formats and 'p:' outputs use a compact escape: bytes outside '!'..'~'
-- and the backslash itself are written as \XX.
-- os.time field values: an integer, 'nil', or 'x' (a non-integer string);
-- isdst: 'nil', 'true' or 'false'.
-- expected: 'p:<escaped string>', 'T:<fields>' (a *t table), 'i:<time>
-- <fields>' (os.time result and normalized fields), or errors
-- 'A:<argno>:<hex msg>' / 'E:<hex msg>'. <fields> is year,month,day,hour,
-- min,sec,yday,wday,isdst.

assert(os.date("%Z", 0) == "UTC", "run with TZ=UTC")

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

-- Compact encoding for formats and outputs: bytes outside '!'..'~' and
-- the backslash itself are written as \XX (two hex digits).
local function pct(s)
  return (s:gsub(".", function(c)
    local b = c:byte()
    if b < 33 or b > 126 or b == 92 then return string.format("\\%02X", b) end
  end))
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

local function fields(t)
  local f = {}
  for i, k in ipairs({"year", "month", "day", "hour", "min", "sec", "yday", "wday"}) do
    f[i] = string.format("%d", t[k])
  end
  f[#f + 1] = tostring(t.isdst)
  return table.concat(f, ",")
end

local function case_date(fmt, t)
  local ok, r = pcall(os.date, fmt, t)
  local exp
  if not ok then exp = err(r)
  elseif type(r) == "table" then exp = "T:" .. fields(r)
  else exp = "p:" .. pct(r) end
  emit("D", pct(fmt), string.format("%d", t), exp)
end

local function case_time(y, mo, d, h, mi, s, dst)
  local tab = {year = y, month = mo, day = d, hour = h, min = mi, sec = s, isdst = dst}
  local ok, r = pcall(os.time, tab)
  local exp = ok and ("i:" .. string.format("%d", r) .. " " .. fields(tab)) or err(r)
  local function f(v)
    if v == nil then return "nil" elseif type(v) == "string" then return "x" end
    return string.format("%d", v)
  end
  emit("T", f(y), f(mo), f(d), f(h), f(mi), f(s), tostring(dst), exp)
end

local singles = {}
for c in ("aAbBcCdDeFgGhHIjmMnprRStTuUVwWxXyYzZ%"):gmatch(".") do
  singles[#singles + 1] = "%" .. c
end
for c in ("EcECExEXEyEYOdOeOHOIOmOMOSOuOUOVOwOWOy"):gmatch("..") do
  singles[#singles + 1] = "%" .. c
end
local all = table.concat(singles, "|")

-- Timestamps: boundaries, around the epoch, leap years, ISO week edges.
local times = {
  0, -1, 1, 59, 60, 3599, 3600, 43199, 43200, 86399, 86400, -86400, -86401,
  951782400, 951868800, 978220800, 1009843200, 1104537600, 1230768000,
  1262304000, 1293840000, 1325376000, 1356998400, 1419984000, 1451606400,
  1483228800, 1514764800, 1546300800, 1577836800, 1609459200, 1640995200,
  2147483647, 2147483648, 4102444800, 253402300799, 253402300800,
  -62135596800, -62135596801, -62167219200, -62167219201, -62198755200,
  -100000000000, -1000000000000, 1e15 // 1, -1e15 // 1, 67767976233532799,
  67767976233532800, 67768036191676799, 67768036191676800,
  -67768040609740800, -67768040609740801, math.maxinteger, math.mininteger,
}
-- GEN_SEED / GEN_SCALE (environment) allow larger one-off differential runs.
math.randomseed(tonumber(os.getenv("GEN_SEED") or "99"))
local SCALE = tonumber(os.getenv("GEN_SCALE") or "1")
for _ = 1, 120 * SCALE do times[#times + 1] = math.random(-2^40, 2^40) end
for _ = 1, 80 * SCALE do times[#times + 1] = math.random(-2^56, 2^56) end
for _ = 1, 120 * SCALE do times[#times + 1] = math.random(-5e9, 5e9) end
-- Every day around new year for a few years (ISO week numbering).
for _, y0 in ipairs({1970, 2004, 2005, 2008, 2009, 2010, 2020, 2021, 1900, 1600, -4, 0}) do
  local t0 = os.time({year = y0, month = 1, day = 1, hour = 0})
  for d = -8, 8 do times[#times + 1] = t0 + d * 86400 end
end

for _, t in ipairs(times) do
  case_date("!" .. all, t)
  case_date("%c %Z %z %G-W%V-%u", t)
  case_date("!*t", t)
  case_date("*t", t)
end
for _, fmt in ipairs(singles) do
  for _, t in ipairs({0, 1e9 // 1, -1e10 // 1}) do
    case_date(fmt, t)
    case_date("!" .. fmt, t)
  end
end

-- Odd formats and errors.
local odd = {
  "", "!", "%", "%%", "abc", "!abc%", "%E", "%O", "%Ez", "%Ez abc", "%Oz",
  "%Q", "%5d", "%-d", "%_d", "%0d", "%#a", "%^a", "%k", "%l", "%P", "%s",
  "%+", "*t", "!*t", "*t\0x", "*tx", "%Y\0%m", "a\0b", "%\0", "%E\0",
  "!!%c", "%OY", "%Ea", "%EE", "x%", "%%%", "%%%%", "\255%Y\255",
  "%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c",
}
for _, fmt in ipairs(odd) do
  for _, t in ipairs({0, 1e9 // 1, -67768040609740801}) do
    case_date(fmt, t)
  end
end

-- os.time: normalization, defaults, bounds and errors.
local INT_MAX, INT_MIN = 2147483647, -2147483648
local tcases = {
  {2000, 1, 1}, {2000, 1, 1, 0}, {1970, 1, 1, 0}, {1969, 12, 31, 23, 59, 59},
  {1969, 12, 31, 23, 59, 58}, {2000, 1, 1, 12, 0, 0, true},
  {2000, 1, 1, 12, 0, 0, false}, {2000, 14, -5, -30, 100, -7},
  {2000, 2, 30}, {2001, 2, 29}, {2000, 0, 0}, {2000, -11, 1}, {2000, -12, 1},
  {2000, -13, 1}, {2000, 1, 1, 0, 0, 60}, {2000, 1, 1, 0, 0, -1},
  {2000, 1, 1, 0, 0, INT_MIN}, {2000, 1, 1, 0, 0, INT_MAX},
  {2000, 1, 1, INT_MAX, INT_MAX, INT_MAX}, {2000, INT_MAX + 1, INT_MAX},
  {2000, INT_MIN + 1, INT_MIN}, {2000, INT_MIN, 1}, {2000, INT_MAX + 2, 1},
  {INT_MAX + 1900, 12, 31, 23, 59, 59}, {INT_MAX + 1900, 12, 32},
  {INT_MAX + 1901, 1, 1}, {INT_MIN + 1900, 1, 1, 0}, {INT_MIN + 1899, 1, 1},
  {INT_MIN + 1900, 1, 1, -1}, {INT_MAX + 1900, 12, 32, 0, 0, -1},
  {INT_MAX + 1900, 12, 31, 23, 59, 60}, {INT_MIN + 1900, 1, 1, 0, 0, -1},
  {INT_MIN + 1900, 1, 1, 0, 0, 59}, {INT_MIN + 1900, 1, 1, 0, 0, 0, true},
  {INT_MIN + 1900, 1, 1, 1, 0, 0, true}, {INT_MAX + 1900, 12, 31, 23, 0, 0, true},
  {INT_MAX + 1900, 12, 31, 24, 0, 0, true}, {INT_MAX + 1900, 12, 31, 24, -1, 0},
  {"x", 1, 1}, {2000, "x", 1}, {2000, 1, "x"}, {2000, 1, 1, "x"},
  {2000, 1, 1, 0, "x"}, {2000, 1, 1, 0, 0, "x"}, {nil, 1, 1}, {2000, nil, 1},
  {2000, 1, nil}, {2000, 1, 1, nil, nil, nil, true}, {1, 1, 1}, {0, 1, 1},
  {-1, 12, 31}, {1582, 10, 10}, {1900, 2, 29}, {2100, 2, 29}, {2400, 2, 29},
  {2000, 1, 1, 0, 0, 0, true}, {1970, 1, 1, 1, 0, -1, true},
}
for _, c in ipairs(tcases) do
  case_time(c[1], c[2], c[3], c[4], c[5], c[6], c[7])
end
for _ = 1, 800 * SCALE do
  local R = math.random
  local function small(a, b) return R(a, b) end
  local k = R(4)
  local y = k == 1 and R(-3000, 5000) or (k == 2 and R(INT_MIN + 1900, INT_MAX + 1900) or R(1900, 2100))
  local mo, d = small(-30, 40), small(-400, 400)
  local h = R(3) == 1 and nil or small(-100, 100)
  local mi = R(3) == 1 and nil or small(-5000, 5000)
  local s = R(3) == 1 and nil or small(-200000, 200000)
  if R(20) == 1 then s = R(INT_MIN, INT_MAX) end
  local dst = ({nil, true, false})[R(3)]
  case_time(y, mo, d, h, mi, s, dst)
end
