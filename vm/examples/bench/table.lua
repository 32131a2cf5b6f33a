local t = {}
for i = 1, 5000000 do t[i] = i end
local s = 0
for rep = 1, 5 do for i = 1, #t do s = s + t[i] end end
print(s)
