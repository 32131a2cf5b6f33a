local function level3() error("deep error") end
local function level2() local ok, e = pcall(level3) return "l2 caught: " .. e end
local function level1() return pcall(level2) end
print(level1())
local r = {pcall(pcall, pcall, error, "x")}
print(#r, r[1], r[2], r[3], r[4])
local count = 0
local function recurse(n)
  if n == 0 then error("bottom", 0) end
  local ok, e = pcall(recurse, n - 1)
  count = count + 1
  error(e .. "<" .. n, 0)
end
print(pcall(recurse, 5))
print(count)
for i = 1, 3 do
  local ok, e = pcall(function() if i == 2 then error("on two", 0) end return i end)
  print(i, ok, e)
end
