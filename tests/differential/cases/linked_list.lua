local List = {}
List.__index = List
function List.new() return setmetatable({head = nil, size = 0}, List) end
function List:push(v) self.head = {value = v, next = self.head} self.size = self.size + 1 end
function List:reverse()
  local prev, cur = nil, self.head
  while cur do cur.next, prev, cur = prev, cur, cur.next end
  self.head = prev
end
function List:iter()
  local node = self.head
  return function()
    if node then local v = node.value node = node.next return v end
  end
end
List.__len = function(l) return l.size end
List.__tostring = function(l)
  local s = "["
  local first = true
  for v in l:iter() do s = s .. (first and "" or ", ") .. tostring(v) first = false end
  return s .. "]"
end
local l = List.new()
for i = 1, 8 do l:push(i * i) end
print(tostring(l), #l)
l:reverse()
print(tostring(l))
local sum = 0
for v in l:iter() do sum = sum + v end
print(sum)
