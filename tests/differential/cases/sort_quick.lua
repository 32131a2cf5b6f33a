local function quicksort(t, lo, hi, lt)
  lo, hi = lo or 1, hi or #t
  lt = lt or function(a, b) return a < b end
  if lo >= hi then return t end
  local p = t[(lo + hi) // 2]
  local i, j = lo, hi
  while i <= j do
    while lt(t[i], p) do i = i + 1 end
    while lt(p, t[j]) do j = j - 1 end
    if i <= j then t[i], t[j] = t[j], t[i] i = i + 1 j = j - 1 end
  end
  quicksort(t, lo, j, lt)
  quicksort(t, i, hi, lt)
  return t
end
local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end
local t = {}
for i = 1, 200 do t[i] = rand(1000) end
quicksort(t)
local ok = true
for i = 2, #t do if t[i - 1] > t[i] then ok = false end end
print("sorted", ok, t[1], t[100], t[200])
local words = {"delta", "alpha", "charlie", "bravo", "echo", "foxtrot"}
quicksort(words)
local s = ""
for _, w in ipairs(words) do s = s .. w .. " " end
print(s)
local recs = {{n = "a", v = 3}, {n = "b", v = 1}, {n = "c", v = 2}, {n = "d", v = 1}}
quicksort(recs, nil, nil, function(x, y) if x.v ~= y.v then return x.v > y.v end return x.n < y.n end)
s = ""
for _, r in ipairs(recs) do s = s .. r.n .. r.v .. " " end
print(s)
