local function lcs(a, b)
  local m, n = #a, #b
  local dp = {}
  for i = 0, m do dp[i] = {} for j = 0, n do dp[i][j] = 0 end end
  for i = 1, m do
    for j = 1, n do
      if a[i] == b[j] then dp[i][j] = dp[i - 1][j - 1] + 1
      else dp[i][j] = dp[i - 1][j] > dp[i][j - 1] and dp[i - 1][j] or dp[i][j - 1] end
    end
  end
  local out, i, j = "", m, n
  while i > 0 and j > 0 do
    if a[i] == b[j] then out = a[i] .. out i = i - 1 j = j - 1
    elseif dp[i - 1][j] >= dp[i][j - 1] then i = i - 1 else j = j - 1 end
  end
  return dp[m][n], out
end
print(lcs({"A","B","C","B","D","A","B"}, {"B","D","C","A","B","A"}))
print(lcs({"x","y","z"}, {"a","b"}))
local function edit(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = {[0] = i}
    for j = 1, #b do
      local cost = a[i] == b[j] and 0 or 1
      local v = prev[j] + 1
      if cur[j - 1] + 1 < v then v = cur[j - 1] + 1 end
      if prev[j - 1] + cost < v then v = prev[j - 1] + cost end
      cur[j] = v
    end
    prev = cur
  end
  return prev[#b]
end
print(edit({"k","i","t","t","e","n"}, {"s","i","t","t","i","n","g"}))
