-- OOP: method calls through a metatable __index chain (class + subclass).
local N = tonumber(arg and arg[1]) or 7000000
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:add(o) self.x = self.x + o.x self.y = self.y + o.y return self end
function Point:norm1() return (self.x < 0 and -self.x or self.x) + (self.y < 0 and -self.y or self.y) end
local Point3 = setmetatable({}, {__index = Point})
Point3.__index = Point3
function Point3.new(x, y, z) local p = Point.new(x, y) p.z = z return setmetatable(p, Point3) end
function Point3:scale(k) self.x = self.x * k self.y = self.y * k self.z = self.z * k return self end
local p = Point3.new(0, 0, 1)
local d = Point.new(1, -2)
local s = 0
for i = 1, N do
  p:add(d)
  s = s + p:norm1()
  if i % 1000 == 0 then p:scale(0) end
end
print("sum " .. s)
