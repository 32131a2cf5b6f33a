local P = {}
P.__tostring = function(p) return "Point(" .. p.x .. "," .. p.y .. ")" end
P.__name = "PointType"
local p = setmetatable({x = 1, y = 2}, P)
print(p, tostring(p))
print(tostring(setmetatable({}, {__tostring = function() return "custom" end})))
print(pcall(tostring, setmetatable({}, {__tostring = function() return {} end})))
local n = setmetatable({}, {__tostring = function() return 99 end})
print(tostring(n), type(tostring(n)))
print(pcall(error, setmetatable({}, {__tostring = function() return "error object" end})))
