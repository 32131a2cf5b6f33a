local parts = {"a", "b"}
local s = ""
for i = 1, 3 do local item = parts[i] s = s .. item print(s) end
