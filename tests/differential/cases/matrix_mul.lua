local function matrix(n, f)
  local m = {}
  for i = 1, n do
    m[i] = {}
    for j = 1, n do m[i][j] = f(i, j) end
  end
  return m
end
local function mul(a, b)
  local n = #a
  return matrix(n, function(i, j)
    local s = 0
    for k = 1, n do s = s + a[i][k] * b[k][j] end
    return s
  end)
end
local a = matrix(4, function(i, j) return i + j end)
local b = matrix(4, function(i, j) return i == j and 2 or 0 end)
local c = mul(a, b)
for i = 1, 4 do print(c[i][1], c[i][2], c[i][3], c[i][4]) end
local f = matrix(3, function(i, j) return 1 / (i + j - 1) end)
local g = mul(f, f)
for i = 1, 3 do print(g[i][1], g[i][2], g[i][3]) end
local id = matrix(6, function(i, j) return i == j and 1 or 0 end)
local p = id
for _ = 1, 10 do p = mul(p, id) end
print(p[3][3], p[3][4])
