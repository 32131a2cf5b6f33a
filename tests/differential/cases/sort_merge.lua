local function merge_sort(t)
  local n = #t
  if n <= 1 then return t end
  local mid = n // 2
  local left, right = {}, {}
  for i = 1, mid do left[i] = t[i] end
  for i = mid + 1, n do right[i - mid] = t[i] end
  left, right = merge_sort(left), merge_sort(right)
  local out, i, j = {}, 1, 1
  while i <= #left and j <= #right do
    if left[i] <= right[j] then out[#out + 1] = left[i] i = i + 1
    else out[#out + 1] = right[j] j = j + 1 end
  end
  while i <= #left do out[#out + 1] = left[i] i = i + 1 end
  while j <= #right do out[#out + 1] = right[j] j = j + 1 end
  return out
end
local x = 7
local t = {}
for i = 1, 100 do x = (x * 37 + 11) % 101 t[i] = x - 50 + (i % 3) * 0.5 end
local s = merge_sort(t)
local line = ""
for i = 1, #s, 9 do line = line .. s[i] .. " " end
print(line)
print(#s, s[1], s[#s])
