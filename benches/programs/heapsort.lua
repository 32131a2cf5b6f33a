-- Heapsort of pseudo-random floats: array indexing, comparisons, swaps.
local N = tonumber(arg and arg[1]) or 300000
local IM, IA, IC = 139968, 3877, 29573
local last = 42
local function random(max)
  last = (last * IA + IC) % IM
  return max * last / IM
end
local function heapsort(n, ra)
  local j, i, rra
  local l = (n // 2) + 1
  local ir = n
  while true do
    if l > 1 then
      l = l - 1
      rra = ra[l]
    else
      rra = ra[ir]
      ra[ir] = ra[1]
      ir = ir - 1
      if ir == 1 then ra[1] = rra return end
    end
    i = l
    j = l * 2
    while j <= ir do
      if j < ir and ra[j] < ra[j + 1] then j = j + 1 end
      if rra < ra[j] then
        ra[i] = ra[j]
        i = j
        j = j + i
      else
        j = ir + 1
      end
    end
    ra[i] = rra
  end
end
local a = {}
for round = 1, 2 do
  for i = 1, N do a[i] = random(1.0) end
  heapsort(N, a)
end
for i = 1, N - 1 do assert(a[i] <= a[i + 1]) end
print("smallest " .. a[1] .. " largest " .. a[N])
