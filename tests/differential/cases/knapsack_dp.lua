local items = {{w = 12, v = 4}, {w = 2, v = 2}, {w = 1, v = 1}, {w = 1, v = 2}, {w = 4, v = 10}, {w = 7, v = 13}, {w = 3, v = 5}}
local function knap(cap)
  local best = {}
  for c = 0, cap do best[c] = 0 end
  for _, it in ipairs(items) do
    for c = cap, it.w, -1 do
      local cand = best[c - it.w] + it.v
      if cand > best[c] then best[c] = cand end
    end
  end
  return best[cap]
end
local s = ""
for cap = 0, 30, 3 do s = s .. cap .. ":" .. knap(cap) .. " " end
print(s)
local function lis(a)
  local tails, n = {}, 0
  for _, x in ipairs(a) do
    local lo, hi = 1, n
    while lo <= hi do local m = (lo + hi) // 2 if tails[m] < x then lo = m + 1 else hi = m - 1 end end
    tails[lo] = x
    if lo > n then n = lo end
  end
  return n
end
print(lis({10, 9, 2, 5, 3, 7, 101, 18}), lis({0, 1, 0, 3, 2, 3}), lis({7, 7, 7}))
