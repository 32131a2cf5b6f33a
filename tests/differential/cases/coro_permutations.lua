local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a)
  else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local function permutations(a)
  return coroutine.wrap(function() permgen(a) end)
end
local count = 0
for p in permutations({"a", "b", "c", "d"}) do
  count = count + 1
  if count <= 8 then print(p[1] .. p[2] .. p[3] .. p[4]) end
end
print("total", count)
