local function pack(...) return {n = select("#", ...), ...} end
local function unpack(t, i, j)
  i = i or 1
  j = j or t.n or #t
  if i > j then return end
  return t[i], unpack(t, i + 1, j)
end
local p = pack(1, nil, "three", nil)
print(p.n, unpack(p))
print(unpack({1, 2, 3}, 2))
print(unpack({1, 2, 3}, 2, 5))
print(select("#", unpack({}, 1, 0)))
local big = {}
for i = 1, 150 do big[i] = i end
local function sum(...) local s = 0 for i = 1, select("#", ...) do s = s + select(i, ...) end return s end
print(sum(unpack(big)))
local function swap(a, b) return b, a end
print(swap(unpack({"left", "right"})))
