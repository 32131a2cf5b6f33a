local flags = 0
for _, v in ipairs({1, 2, 4, 8.5}) do
  flags = flags | v
  print(flags)
end
