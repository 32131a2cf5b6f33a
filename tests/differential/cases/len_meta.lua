local List = {}
List.__index = List
List.__len = function(l) return l.n end
function List.new() return setmetatable({n = 0, items = {}}, List) end
function List:push(v) self.n = self.n + 1 self.items[self.n] = v end
local l = List.new()
for i = 1, 7 do l:push(i * i) end
print(#l, rawlen(l), l.items[#l])
local weird = setmetatable({}, {__len = function() return "len!" end})
print(#weird)
local multi = setmetatable({}, {__len = function() return 1, 2, 3 end})
print(#multi)
print(pcall(function() return #5 end))
print(pcall(function() local b = true return #b end))
