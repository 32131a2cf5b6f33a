local t = {1, 2, nil, 4}
for i, v in ipairs(t) do print(i, v) end
local u = {"a", "b", "c"}
u[5] = "e"
for i, v in ipairs(u) do print(i, v) end
local p = setmetatable({}, {__index = function(_, i) if i <= 3 then return "p" .. i end end})
for i, v in ipairs(p) do print(i, v) end
for i, v in ipairs({}) do print("never") end
local grow = {1}
for i, v in ipairs(grow) do if i < 5 then grow[i + 1] = v * 2 end print(i, v) end
