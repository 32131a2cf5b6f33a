local t = {}
for i = 1, 10 do t[i] = i end
print(#t)
t[#t + 1] = "x"
print(#t)
t[#t] = nil
t[#t] = nil
print(#t)
local u = {n = 1, 1, 2, 3}
print(#u, #"", #"hello", #{})
local w = {}
for i = 100, 1, -1 do w[i] = i end
print(#w)
local s = setmetatable({}, {__len = function() return 42 end})
print(#s, rawlen(s))
