local Set = {}
Set.__index = Set
local function sorted(s)
  local t = {}
  for k in pairs(s.items) do t[#t + 1] = k end
  for i = 2, #t do
    local v = t[i]
    local j = i - 1
    while j >= 1 and t[j] > v do t[j + 1] = t[j] j = j - 1 end
    t[j + 1] = v
  end
  return t
end
function Set.new(list)
  local s = setmetatable({items = {}}, Set)
  for _, v in ipairs(list or {}) do s.items[v] = true end
  return s
end
Set.__add = function(a, b)
  local r = Set.new()
  for k in pairs(a.items) do r.items[k] = true end
  for k in pairs(b.items) do r.items[k] = true end
  return r
end
Set.__mul = function(a, b)
  local r = Set.new()
  for k in pairs(a.items) do if b.items[k] then r.items[k] = true end end
  return r
end
Set.__sub = function(a, b)
  local r = Set.new()
  for k in pairs(a.items) do if not b.items[k] then r.items[k] = true end end
  return r
end
Set.__len = function(s) local n = 0 for _ in pairs(s.items) do n = n + 1 end return n end
Set.__le = function(a, b) for k in pairs(a.items) do if not b.items[k] then return false end end return true end
Set.__lt = function(a, b) return a <= b and #a < #b end
Set.__eq = function(a, b) return a <= b and b <= a end
Set.__tostring = function(s)
  local r = "{"
  for i, v in ipairs(sorted(s)) do r = r .. (i > 1 and ", " or "") .. v end
  return r .. "}"
end
local a = Set.new({1, 2, 3, 4, 5})
local b = Set.new({4, 5, 6, 7})
print(tostring(a + b), tostring(a * b), tostring(a - b), tostring(b - a))
print(#(a + b), a * b <= a, a * b < a, a < a, a == Set.new({5, 4, 3, 2, 1}), a == b)
