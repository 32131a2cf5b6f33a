-- Hash part: insert and look up string keys built with .., plus integer-key hashing.
local N = tonumber(arg and arg[1]) or 200000
local t = {}
for i = 1, N do t["key" .. i] = i end
local hits, sum = 0, 0
for round = 1, 4 do
  for i = 1, N, round do
    local v = t["key" .. i]
    if v then hits = hits + 1 sum = sum + v end
  end
  for i = 1, N // 10 do
    if t["missing" .. i] then hits = hits - 1 end
  end
end
local h = {}
for i = 1, N do h[i * 7919 % 1000003] = i end
local c = 0
for k, v in pairs(h) do c = c + 1 end
print("hits " .. hits .. " sum " .. sum .. " distinct " .. c)
