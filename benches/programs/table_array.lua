-- Array part: fill, read, sum, in-place update, # operator.
local N = tonumber(arg and arg[1]) or 2000000
local ROUNDS = 10
local total = 0
for r = 1, ROUNDS do
  local t = {}
  for i = 1, N do t[i] = i * r end
  for i = 1, #t do t[i] = t[i] + (i & 7) end
  local s = 0
  for i = 1, #t do s = s + t[i] end
  total = total + s - #t
end
print("total " .. total)
