local function with_default(d)
  return setmetatable({}, {__index = function() return d end})
end
local counts = with_default(0)
for _, c in ipairs({"a", "b", "a", "c", "a", "b"}) do counts[c] = counts[c] + 1 end
print(counts.a, counts.b, counts.c, counts.z)
local grid = setmetatable({}, {__index = function(t, y)
  local row = with_default(".")
  rawset(t, y, row)
  return row
end})
grid[2][3] = "#"
grid[1][1] = "@"
for y = 1, 3 do
  local s = ""
  for x = 1, 4 do s = s .. grid[y][x] end
  print(s)
end
