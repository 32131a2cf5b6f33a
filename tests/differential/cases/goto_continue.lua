for i = 1, 10 do
  if i % 3 == 0 then goto continue end
  print("i", i)
  ::continue::
end
local n = 0
while n < 10 do
  n = n + 1
  if n % 2 == 1 then goto next end
  print("even", n)
  ::next::
end
for i = 1, 3 do
  for j = 1, 3 do
    if j == i then goto next_j end
    if i + j == 5 then goto out end
    print(i, j)
    ::next_j::
  end
end
::out::
print("done")
