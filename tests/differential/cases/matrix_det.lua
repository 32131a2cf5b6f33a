local function det(m)
  local n = #m
  local a = {}
  for i = 1, n do a[i] = {} for j = 1, n do a[i][j] = m[i][j] end end
  local d = 1
  for c = 1, n do
    local p = c
    for r = c + 1, n do if (a[r][c] < 0 and -a[r][c] or a[r][c]) > (a[p][c] < 0 and -a[p][c] or a[p][c]) then p = r end end
    if a[p][c] == 0 then return 0 end
    if p ~= c then a[p], a[c] = a[c], a[p] d = -d end
    d = d * a[c][c]
    for r = c + 1, n do
      local f = a[r][c] / a[c][c]
      for k = c, n do a[r][k] = a[r][k] - f * a[c][k] end
    end
  end
  return d
end
print(det({{1, 2}, {3, 4}}))
print(det({{2, 0, 0}, {0, 3, 0}, {0, 0, 4}}))
print(det({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}))
print(det({{6, 1, 1}, {4, -2, 5}, {2, 8, 7}}))
local h = {}
for i = 1, 5 do h[i] = {} for j = 1, 5 do h[i][j] = 1 / (i + j - 1) end end
print(det(h) > 0, det(h) < 1e-10)
