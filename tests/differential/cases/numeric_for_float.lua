for x = 0, 1, 0.25 do print(x) end
local n = 0
for x = 0.1, 1.0, 0.1 do n = n + 1 end
print("0.1 steps", n)
for x = 1, 0, -0.5 do print(x) end
for i = 1, 3.5 do print("int loop float limit", i) end
for i = 1.0, 3 do print("float start", i) end
for i = 3, 1.5, -1 do print("down", i) end
for x = -1.5, 1.5, 1 do print(x) end
