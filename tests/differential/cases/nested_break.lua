local found = {}
for a = 1, 20 do
  for b = a, 20 do
    local c2 = a * a + b * b
    local c = 1
    while c * c < c2 do c = c + 1 end
    if c * c == c2 and c <= 20 then found[#found + 1] = a .. "," .. b .. "," .. c end
    if #found >= 5 then break end
  end
  if #found >= 5 then break end
end
for _, f in ipairs(found) do print(f) end
local count = 0
for i = 1, 10 do
  repeat
    count = count + 1
    if count % 4 == 0 then break end
  until false
end
print(count)
