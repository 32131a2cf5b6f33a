local chars = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"}
for y = -12, 12 do
  local line = ""
  for x = -39, 20 do
    local cr, ci = x / 20, y / 10
    local zr, zi, i = 0.0, 0.0, 0
    while i < 50 and zr * zr + zi * zi < 4 do
      zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
      i = i + 1
    end
    line = line .. chars[(i == 50) and 10 or (i % 9 + 1)]
  end
  print(line)
end
