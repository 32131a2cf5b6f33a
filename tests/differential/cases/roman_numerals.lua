local vals = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
local syms = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
local function roman(n)
  local s = ""
  for i, v in ipairs(vals) do while n >= v do s = s .. syms[i] n = n - v end end
  return s
end
for _, n in ipairs({1, 4, 9, 14, 40, 90, 400, 1994, 2024, 3999, 444, 1666}) do print(n, roman(n)) end
