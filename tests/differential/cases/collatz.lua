local best, bestn = 0, 0
local cache = {[1] = 0}
local function steps(n)
  if cache[n] then return cache[n] end
  local s
  if n % 2 == 0 then s = 1 + steps(n // 2) else s = 1 + steps(3 * n + 1) end
  cache[n] = s
  return s
end
for n = 1, 30000 do
  local s = steps(n)
  if s > best then best, bestn = s, n end
end
print(bestn, best)
local seq = ""
local n = 6
while n ~= 1 do seq = seq .. n .. " " n = (n % 2 == 0) and n // 2 or 3 * n + 1 end
print(seq .. 1)
