local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1
for i = maxi - 2, maxi do print(i) end
for i = mini + 2, mini, -1 do print(i) end
for i = maxi - 1, 1e100 do print("clipped", i) end
for i = 1, maxi, maxi // 2 + 1 do print("big step", i) end
for i = mini, maxi, maxi do print("min to max", i) end
local c = 0
for i = 1, 0 do c = c + 1 end
print("empty", c)
for i = 5, 1, -2 do print("neg", i) end
print(pcall(function() for i = 1, 10, 0 do end end))
print(pcall(function() for i = 1.0, 2.0, 0.0 do end end))
print(pcall(function() for i = "a", 2 do end end))
print(pcall(function() for i = 1, {} do end end))
print(pcall(function() for i = 1, 2, nil do end end))
for i = "2", 3 do print("string init", i) end
