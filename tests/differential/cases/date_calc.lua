local function is_leap(y) return (y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0 end
local mdays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
local names = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
local function dow(y, m, d)
  local t = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4}
  if m < 3 then y = y - 1 end
  return (y + y // 4 - y // 100 + y // 400 + t[m] + d) % 7
end
local function day_of_year(y, m, d)
  local n = d
  for i = 1, m - 1 do n = n + mdays[i] + ((i == 2 and is_leap(y)) and 1 or 0) end
  return n
end
for _, dt in ipairs({{2000, 1, 1}, {1970, 1, 1}, {2024, 2, 29}, {1900, 3, 1}, {2038, 1, 19}, {1969, 7, 20}}) do
  print(dt[1] .. "-" .. dt[2] .. "-" .. dt[3], names[dow(dt[1], dt[2], dt[3]) + 1], day_of_year(dt[1], dt[2], dt[3]), is_leap(dt[1]))
end
