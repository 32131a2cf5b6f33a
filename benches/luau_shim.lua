-- Run before each program of Luau's benchmark suite (luau-lang/luau,
-- bench/tests) by benches/public.py, for every interpreter alike (`-e`).
-- Our code, not the suite's: a stand-in for the suite's `bench_support`
-- module, which calls each test's function LUAU_REPS times and prints the
-- test's name (the suite's own harness prints timings), and the library
-- functions of Luau that the tests call and Lua 5.4 lacks, written in
-- Lua 5.4 (bit32 on 64-bit integers, table.create, table.clone,
-- table.find, math.clamp, math.sign, math.round, a global unpack).
-- public.py replaces LUAU_REPS by the program's size.
package.preload["bench_support"] = function()
  return {
    runCode = function(f, description)
      for _ = 1, LUAU_REPS do f() end
      print(description)
    end,
  }
end
local M = 0xFFFFFFFF
local function norm(x) return math.tointeger(x) and (x & M) or (math.floor(x) & M) end
bit32 = {}
function bit32.band(...)
  local r = M
  for i = 1, select('#', ...) do r = r & norm((select(i, ...))) end
  return r
end
function bit32.bor(...)
  local r = 0
  for i = 1, select('#', ...) do r = r | norm((select(i, ...))) end
  return r
end
function bit32.bxor(...)
  local r = 0
  for i = 1, select('#', ...) do r = r ~ norm((select(i, ...))) end
  return r
end
function bit32.btest(...) return bit32.band(...) ~= 0 end
function bit32.bnot(x) return (~norm(x)) & M end
function bit32.lshift(x, n)
  if n >= 32 or n <= -32 then return 0 end
  if n < 0 then return norm(x) >> -n end
  return (norm(x) << n) & M
end
function bit32.rshift(x, n)
  if n >= 32 or n <= -32 then return 0 end
  if n < 0 then return (norm(x) << -n) & M end
  return norm(x) >> n
end
function bit32.arshift(x, n)
  x = norm(x)
  if x >= 0x80000000 then x = x - 0x100000000 end
  if n >= 32 then return x < 0 and M or 0 end
  return (x >> n | (x < 0 and ~(M >> n) or 0)) & M
end
function bit32.lrotate(x, n) x = norm(x); n = n % 32; return ((x << n) | (x >> (32 - n))) & M end
function bit32.rrotate(x, n) x = norm(x); n = n % 32; return ((x >> n) | (x << (32 - n))) & M end
function bit32.extract(x, f, w) w = w or 1; return (norm(x) >> f) & ((1 << w) - 1) end
function bit32.replace(x, v, f, w)
  w = w or 1
  local m = ((1 << w) - 1) << f
  return (norm(x) & ~m | ((norm(v) << f) & m)) & M
end
function bit32.byteswap(x)
  x = norm(x)
  return ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >> 8) & 0xff00) | (x >> 24)
end
function bit32.countrz(x)
  x = norm(x)
  if x == 0 then return 32 end
  local n = 0
  while x & 1 == 0 do x = x >> 1; n = n + 1 end
  return n
end
function bit32.countlz(x)
  x = norm(x)
  if x == 0 then return 32 end
  local n = 0
  while x & 0x80000000 == 0 do x = x << 1; n = n + 1 end
  return n
end
function table.create(n, v)
  local t = {}
  if v ~= nil then for i = 1, n do t[i] = v end end
  return t
end
function table.clone(t)
  local r = {}
  for k, v in pairs(t) do r[k] = v end
  return setmetatable(r, getmetatable(t))
end
function table.find(t, v, init)
  for i = init or 1, #t do if t[i] == v then return i end end
  return nil
end
function math.clamp(x, a, b) return x < a and a or (x > b and b or x) end
function math.sign(x) return x > 0 and 1 or (x < 0 and -1 or 0) end
function math.round(x) return x >= 0 and math.floor(x + 0.5) or math.ceil(x - 0.5) end
unpack = table.unpack
