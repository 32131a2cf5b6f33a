local Heap = {}
Heap.__index = Heap
function Heap.new(lt) return setmetatable({n = 0, lt = lt or function(a, b) return a < b end}, Heap) end
function Heap:push(v)
  self.n = self.n + 1
  local i = self.n
  self[i] = v
  while i > 1 do
    local p = i // 2
    if self.lt(self[i], self[p]) then self[i], self[p] = self[p], self[i] i = p else break end
  end
end
function Heap:pop()
  if self.n == 0 then return nil end
  local top = self[1]
  self[1] = self[self.n]
  self[self.n] = nil
  self.n = self.n - 1
  local i = 1
  while true do
    local l, r, m = 2 * i, 2 * i + 1, i
    if l <= self.n and self.lt(self[l], self[m]) then m = l end
    if r <= self.n and self.lt(self[r], self[m]) then m = r end
    if m == i then break end
    self[i], self[m] = self[m], self[i]
    i = m
  end
  return top
end
local h = Heap.new()
local x = 7
for _ = 1, 50 do x = (x * 75 + 74) % 65537 h:push(x % 1000) end
local s = ""
for _ = 1, 15 do s = s .. h:pop() .. " " end
print(s)
local mh = Heap.new(function(a, b) return a.pri > b.pri end)
for i, name in ipairs({"low", "high", "mid", "urgent", "none"}) do mh:push({name = name, pri = ({2, 8, 5, 10, 0})[i]}) end
s = ""
while true do local t = mh:pop() if not t then break end s = s .. t.name .. " " end
print(s)
