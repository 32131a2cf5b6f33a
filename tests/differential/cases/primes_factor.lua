local function factor(n)
  local fs = {}
  local d = 2
  while d * d <= n do
    while n % d == 0 do fs[#fs + 1] = d n = n // d end
    d = d + 1
  end
  if n > 1 then fs[#fs + 1] = n end
  return fs
end
for _, n in ipairs({2, 12, 97, 360, 1001, 65536, 999983, 600851475143, 9007199254740993}) do
  local s = ""
  for i, f in ipairs(factor(n)) do s = s .. (i > 1 and "*" or "") .. f end
  print(n, s)
end
