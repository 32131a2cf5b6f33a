local function info(...)
  return select("#", ...), ...
end
print(info())
print(info(nil))
print(info(1, nil, 3, nil))
print(select(2, "a", "b", "c"))
print(select(-1, "a", "b", "c"))
print(select(-2, "a", "b", "c"))
print(select("#", select(3, 1, 2, 3, 4, 5)))
print(pcall(select, 0, 1))
print(pcall(select, -5, 1))
local function mid(...) return ..., "end" end
print(mid(1, 2, 3))
local function last(...) return "start", ... end
print(last(1, 2, 3))
local function count_nils(...)
  local n = 0
  for i = 1, select("#", ...) do if select(i, ...) == nil then n = n + 1 end end
  return n
end
print(count_nils(nil, 1, nil, nil, 2, nil))
local f = load("local a, b = ... return b, a, select('#', ...)")
print(f("x", "y", "z"))
