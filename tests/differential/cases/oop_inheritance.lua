local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, {__index = parent}) end
  c.new = function(...)
    local o = setmetatable({}, c)
    if o.init then o:init(...) end
    return o
  end
  c.super = parent
  return c
end
local Shape = class()
function Shape:init(name) self.name = name end
function Shape:area() return 0 end
function Shape:describe() return self.name .. " with area " .. self:area() end
local Rect = class(Shape)
function Rect:init(w, h) Shape.init(self, "rect") self.w, self.h = w, h end
function Rect:area() return self.w * self.h end
local Square = class(Rect)
function Square:init(s) Rect.init(self, s, s) self.name = "square" end
local Circle = class(Shape)
function Circle:init(r) self.super.init(self, "circle") self.r = r end
function Circle:area() return 3 * self.r * self.r end
local shapes = {Shape.new("blob"), Rect.new(2, 3), Square.new(4), Circle.new(2)}
for _, s in ipairs(shapes) do print(s:describe()) end
print(Square.super == Rect, Rect.super == Shape, Square.area == Rect.area)
print(rawget(Square, "area"), Square.describe == Shape.describe)
