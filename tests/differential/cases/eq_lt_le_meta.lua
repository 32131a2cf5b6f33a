local log = {}
local mt = {}
mt.__eq = function(a, b) log[#log + 1] = "eq" return a.v == b.v end
mt.__lt = function(a, b) log[#log + 1] = "lt" return a.v < b.v end
mt.__le = function(a, b) log[#log + 1] = "le" return a.v <= b.v end
local function o(v) return setmetatable({v = v}, mt) end
local a, b, c = o(1), o(2), o(1)
print(a == c, a ~= b, a == a, a < b, b > a, a <= c, b >= c, not (a < c))
local s = ""
for i, e in ipairs(log) do s = s .. e .. " " end
print(s)
print(a == 1, 1 == a, a == "x")
print(pcall(function() return a < 1 end))
local other = setmetatable({v = 1}, {__eq = function() return true end})
print(a == other, other == a)
print(pcall(function() return {} < {} end))
print(pcall(function() return {} <= 1 end))
print(pcall(function() return 1 < "2" end))
