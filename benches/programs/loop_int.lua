-- Tight loops with integer arithmetic: +, *, //, %, bitwise ops, comparisons.
local N = tonumber(arg and arg[1]) or 20000000
local acc, x = 0, 1
for i = 1, N do
  x = (x * 1103515245 + 12345) & 0x7fffffff
  acc = acc + (x % 1000) - (i // 7) + (i & 15)
  if acc > 1000000000 then acc = acc - 1000000000 end
end
print("checksum " .. acc .. " " .. x)
