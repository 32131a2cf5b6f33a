-- a // b and a % b for combinations of signs and subtypes
local as = {7, -7, 7.5, -7.5, 0, 6}
local bs = {2, -2, 2.0, -2.5, 3}
for _, a in ipairs(as) do
  local line = ""
  for _, b in ipairs(bs) do
    line = line .. a .. "//" .. b .. "=" .. (a // b) .. " " .. a .. "%" .. b .. "=" .. (a % b) .. "  "
  end
  print(line)
end
print(1 // 0.0, -1 // 0.0, 1 % (1/0), -1 % (1/0), 1 % (-1/0), 5 // (1/0), -5 // (1/0))
print((0/0) ~= (0/0), (1 % 0.0) ~= (1 % 0.0))
print(pcall(function() return 1 // 0 end))
print(pcall(function() return 1 % 0 end))
print(pcall(function(a, b) return a // b end, 10, 0))
print(3 % -2, -3 % 2, 3 % 2, -3 % -2, 3.0 % -2, -3.0 % 2)
print(5.25 % 1, -5.25 % 1, 5.25 // 1, -5.25 // 1)
