local maze = {
  "S.#.......",
  ".##.####..",
  "....#...#.",
  "#.#.#.#.#.",
  "..#...#..E",
}
-- no string library: encode the maze as tables of characters by hand
local rows = {
  {"S",".","#",".",".",".",".",".",".","."},
  {".","#","#",".","#","#","#","#",".","."},
  {".",".",".",".","#",".",".",".","#","."},
  {"#",".","#",".","#",".","#",".","#","."},
  {".",".","#",".",".",".","#",".",".","E"},
}
local H, W = #rows, #rows[1]
local sy, sx, ey, ex
for y = 1, H do for x = 1, W do
  if rows[y][x] == "S" then sy, sx = y, x end
  if rows[y][x] == "E" then ey, ex = y, x end
end end
local dist = {}
local function key(y, x) return y * 100 + x end
local queue, head = {{sy, sx}}, 1
dist[key(sy, sx)] = 0
while head <= #queue do
  local y, x = queue[head][1], queue[head][2]
  head = head + 1
  for _, d in ipairs({{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) do
    local ny, nx = y + d[1], x + d[2]
    if ny >= 1 and ny <= H and nx >= 1 and nx <= W and rows[ny][nx] ~= "#" and not dist[key(ny, nx)] then
      dist[key(ny, nx)] = dist[key(y, x)] + 1
      queue[#queue + 1] = {ny, nx}
    end
  end
end
print("shortest", dist[key(ey, ex)], "visited", #queue)
for y = 1, H do
  local s = ""
  for x = 1, W do
    local d = dist[key(y, x)]
    s = s .. (rows[y][x] == "#" and " #" or (d and (d < 10 and " " .. d or tostring(d)) or " ?"))
  end
  print(s)
end
print(#maze)
