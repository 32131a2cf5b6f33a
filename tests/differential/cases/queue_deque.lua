local Deque = {}
Deque.__index = Deque
function Deque.new() return setmetatable({first = 0, last = -1}, Deque) end
function Deque:push_back(v) self.last = self.last + 1 self[self.last] = v end
function Deque:push_front(v) self.first = self.first - 1 self[self.first] = v end
function Deque:pop_front()
  if self.first > self.last then return nil end
  local v = self[self.first]
  self[self.first] = nil
  self.first = self.first + 1
  return v
end
function Deque:pop_back()
  if self.first > self.last then return nil end
  local v = self[self.last]
  self[self.last] = nil
  self.last = self.last - 1
  return v
end
function Deque:size() return self.last - self.first + 1 end
local d = Deque.new()
for i = 1, 5 do d:push_back(i) end
for i = 1, 3 do d:push_front(-i) end
print(d:size())
print(d:pop_front(), d:pop_back(), d:pop_front(), d:pop_back())
print(d:size())
local out = ""
while d:size() > 0 do out = out .. d:pop_front() .. " " end
print(out, d:pop_front(), d:pop_back())
local q = Deque.new()
for i = 1, 100000 do q:push_back(i) if i % 2 == 0 then q:pop_front() end end
print(q:size(), q:pop_front(), q:pop_back())
