local function dump(v, indent)
  indent = indent or ""
  if type(v) ~= "table" then return tostring(v) end
  local s = "{\n"
  for i = 1, #v do s = s .. indent .. "  " .. dump(v[i], indent .. "  ") .. ",\n" end
  return s .. indent .. "}"
end
local tree = {1, {2, 3, {4, {5, {6}}}}, "leaf", {true, false}, {}}
print(dump(tree))
local grid = {}
for y = 1, 4 do
  grid[y] = {}
  for x = 1, 5 do grid[y][x] = (x * y) % 7 end
end
for y = 1, 4 do
  local row = ""
  for x = 1, 5 do row = row .. grid[y][x] .. " " end
  print(row)
end
