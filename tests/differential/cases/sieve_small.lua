local function sieve(n)
  local is = {}
  for i = 2, n do is[i] = true end
  for i = 2, n do
    if is[i] and i * i <= n then
      for j = i * i, n, i do is[j] = false end
    end
  end
  local ps = {}
  for i = 2, n do if is[i] then ps[#ps + 1] = i end end
  return ps
end
local ps = sieve(200)
local s = ""
for _, p in ipairs(ps) do s = s .. p .. " " end
print(s)
print(#sieve(10000), #sieve(100000))
