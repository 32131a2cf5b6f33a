-- Binary trees (Benchmarks Game): allocation-heavy, GC stress.
local N = tonumber(arg and arg[1]) or 15
local function bottom_up(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return {bottom_up(depth), bottom_up(depth)}
end
local function item_check(tree)
  if tree[1] then return 1 + item_check(tree[1]) + item_check(tree[2]) end
  return 1
end
local mindepth = 4
local maxdepth = mindepth + 2
if maxdepth < N then maxdepth = N end
do
  local stretch = maxdepth + 1
  print("stretch tree of depth " .. stretch .. "\t check: " .. item_check(bottom_up(stretch)))
end
local long_lived = bottom_up(maxdepth)
for depth = mindepth, maxdepth, 2 do
  local iters = 1 << (maxdepth - depth + mindepth)
  local check = 0
  for _ = 1, iters do check = check + item_check(bottom_up(depth)) end
  print(iters .. "\t trees of depth " .. depth .. "\t check: " .. check)
end
print("long lived tree of depth " .. maxdepth .. "\t check: " .. item_check(long_lived))
