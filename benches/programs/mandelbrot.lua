-- Mandelbrot set: float arithmetic in a tight loop; prints a checksum
-- of the bitmap instead of writing binary output.
local N = tonumber(arg and arg[1]) or 1000
local ITER = 50
local inside, checksum = 0, 0
for y = 0, N - 1 do
  local ci = 2.0 * y / N - 1.0
  for x = 0, N - 1 do
    local cr = 2.0 * x / N - 1.5
    local zr, zi, zr2, zi2 = 0.0, 0.0, 0.0, 0.0
    local i = 0
    while i < ITER and zr2 + zi2 <= 4.0 do
      zi = 2.0 * zr * zi + ci
      zr = zr2 - zi2 + cr
      zr2, zi2 = zr * zr, zi * zi
      i = i + 1
    end
    if i == ITER then inside = inside + 1 end
    checksum = (checksum * 31 + i) % 1000000007
  end
end
print("inside " .. inside .. " checksum " .. checksum)
