-- Seeds for the load_binary fuzz target: dumps of real functions.
-- Run from the repository root: luprex-lua fuzz/load_binary_seeds.lua fuzz/corpus/load_binary
local dir = arg[1]
local n = 0
local function seed(f, strip)
  n = n + 1
  local h = assert(io.open(dir .. "/seed" .. n, "wb"))
  h:write(string.dump(f, strip)); h:close()
end
local fns = {
  function(a, b) return a + b, a .. b end,
  function(...) local t = {...}; local s = 0; for i, v in ipairs(t) do s = s + v end; return s, select('#', ...) end,
  function(n) local f = {}; for i = 1, 5 do f[i] = function() return i + n end end; return f[3]() end,
  function(x) local t = setmetatable({}, {__index = function(t, k) return k * 2 end}); return t[x], #"abc" end,
  function() local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1); return b * 2 end); return co(1), co(5) end,
  function(s) local r = {}; for k, v in pairs({a = 1, b = 2, 3}) do r[#r + 1] = k end; return #r, s and s or "x" end,
  function(a) if a > 1 then return a // 2, a % 3, a ^ 2, a / 3, a & 3, a | 4, ~a, a << 2 else return -a end end,
  function() local x <close> = nil; local ok, e = pcall(error, {code = 1}); return ok, type(e) end,
  function(n) local s = ""; while n > 0 do s = s .. n; n = n - 1 end; repeat n = n + 1 until n >= 3; return s end,
  function() return {1, 2, 3, x = {y = {z = "deep"}}, [10] = 1.5, nil, true, false} end,
}
for _, f in ipairs(fns) do seed(f, false); seed(f, true) end
for _, file in ipairs({"benches/programs/fib.lua", "benches/programs/nqueens.lua", "tests/conformance/closures.lua"}) do
  seed(assert(loadfile(file)), false)
end
print(n .. " seeds")
