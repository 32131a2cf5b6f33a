local function mixin(target, ...)
  for i = 1, select("#", ...) do
    local m = select(i, ...)
    for k, v in pairs(m) do target[k] = v end
  end
  return target
end
local Comparable = {
  __lt = function(a, b) return a:key() < b:key() end,
  __le = function(a, b) return a:key() <= b:key() end,
  __eq = function(a, b) return a:key() == b:key() end,
}
local Printable = {__tostring = function(a) return a.kind .. "<" .. a:key() .. ">" end}
local Item = mixin({}, Comparable, Printable)
Item.__index = Item
function Item.new(kind, weight) return setmetatable({kind = kind, weight = weight}, Item) end
function Item:key() return self.weight end
local a, b, c = Item.new("box", 3), Item.new("bag", 5), Item.new("bin", 3)
print(tostring(a), tostring(b), a < b, b <= a, a == c, a ~= b)
