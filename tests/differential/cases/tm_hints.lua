-- Metamethods looked up in metatables too big to scan (more than four
-- entries of capacity), through a per-event lookup hint: two classes with
-- their events at different entries used in turn, an event removed and
-- added back (a tombstone, then a re-insertion at the end), a metatable
-- swapped under the same object, and events that are not functions.

local function class(name, extra)
  local c = {}
  for i = 1, extra do c["m" .. i] = function() return i end end
  c.__index = c
  c.__call = function(self, x) return name .. ":call:" .. tostring(x) end
  c.__eq = function(a, b) return a.v == b.v end
  c.__lt = function(a, b) return a.v < b.v end
  c.__le = function(a, b) return a.v <= b.v end
  c.__len = function(a) return a.v * 10 end
  c.__concat = function(a, b) return "cat" end
  c.__unm = function(a) return -a.v end
  return c
end

local A, B = class("A", 0), class("B", 7)
local a1, a2 = setmetatable({v = 1}, A), setmetatable({v = 2}, A)
local b1, b2 = setmetatable({v = 1}, B), setmetatable({v = 3}, B)
local out = {}
for i = 1, 6 do
  local x, y = (i % 2 == 0) and a1 or b1, (i % 2 == 0) and a2 or b2
  out[#out + 1] = table.concat({x(i), tostring(x < y), tostring(x <= y),
    tostring(x == y), #x, x .. y, -x, x.m1 and x.m1() or "-"}, " ")
end
print(table.concat(out, "\n"))

-- Removed, then added back: the hinted entry becomes a tombstone.
A.__len = nil
print(pcall(function() return #a1 end))
A.__len = function() return 99 end
print(#a1, #a2, #b1)
B.__call = nil
print(pcall(b1, 5))
B.__call = function(_, x) return "again " .. x end
print(b1(6), a1(7))

-- The same object under another metatable between two lookups.
local o = setmetatable({v = 5}, A)
print(o(1), #o)
setmetatable(o, B)
print(o(2), #o)

-- A non-function __call: a callable table, and an error.
local callable = setmetatable({}, {__call = function(_, x) return "t" .. x end})
local C = class("C", 5)
C.__call = callable
print(pcall(setmetatable({v = 1}, C), "z"))
C.__call = 42
print(pcall(setmetatable({v = 1}, C), "z"))
