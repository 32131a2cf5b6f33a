-- Dense matrix multiplication: 2-D tables, float multiply-add.
local N = tonumber(arg and arg[1]) or 250
local function matgen(n, seed)
  local m = {}
  local tmp = seed / n / n
  for i = 1, n do
    local row = {}
    for j = 1, n do row[j] = tmp * (i - j) * (i + j - 2) end
    m[i] = row
  end
  return m
end
local function matmul(a, b, n)
  local c = {}
  for i = 1, n do
    local ci, ai = {}, a[i]
    for j = 1, n do ci[j] = 0.0 end
    for k = 1, n do
      local aik, bk = ai[k], b[k]
      for j = 1, n do ci[j] = ci[j] + aik * bk[j] end
    end
    c[i] = ci
  end
  return c
end
local a, b = matgen(N, 1.0), matgen(N, 2.0)
local c
for _ = 1, 3 do c = matmul(a, b, N) end
local mid = N // 2 + 1
print("c[mid][mid] = " .. c[mid][mid])
