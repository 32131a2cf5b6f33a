local function bsearch(t, x)
  local lo, hi = 1, #t
  local steps = 0
  while lo <= hi do
    steps = steps + 1
    local mid = (lo + hi) // 2
    if t[mid] == x then return mid, steps
    elseif t[mid] < x then lo = mid + 1
    else hi = mid - 1 end
  end
  return nil, steps
end
local t = {}
for i = 1, 1000 do t[i] = i * 3 end
for _, x in ipairs({3, 300, 2997, 3000, 4, 0, 1500, 3001}) do print(x, bsearch(t, x)) end
