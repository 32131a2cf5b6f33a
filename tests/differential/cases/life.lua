local W, H = 12, 8
local function new_grid() local g = {} for y = 1, H do g[y] = {} for x = 1, W do g[y][x] = 0 end end return g end
local g = new_grid()
-- glider and blinker
g[1][2], g[2][3], g[3][1], g[3][2], g[3][3] = 1, 1, 1, 1, 1
g[6][9], g[6][10], g[6][11] = 1, 1, 1
local function step(g)
  local n = new_grid()
  for y = 1, H do
    for x = 1, W do
      local c = 0
      for dy = -1, 1 do
        for dx = -1, 1 do
          if dx ~= 0 or dy ~= 0 then
            local yy, xx = (y + dy - 1) % H + 1, (x + dx - 1) % W + 1
            c = c + g[yy][xx]
          end
        end
      end
      if c == 3 or (c == 2 and g[y][x] == 1) then n[y][x] = 1 end
    end
  end
  return n
end
local function show(g)
  for y = 1, H do
    local s = ""
    for x = 1, W do s = s .. (g[y][x] == 1 and "#" or ".") end
    print(s)
  end
end
for gen = 0, 4 do
  print("gen " .. gen)
  show(g)
  g = step(g)
end
