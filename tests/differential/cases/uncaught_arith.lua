local total = 0
for i, v in ipairs({1, 2, {}, "three"}) do
  total = total + v
  print(i, total)
end
