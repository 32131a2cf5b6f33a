-- own implementations of insert/remove/concat/reverse
local function insert(t, pos, v)
  if v == nil then v = pos pos = #t + 1 end
  for i = #t, pos, -1 do t[i + 1] = t[i] end
  t[pos] = v
end
local function remove(t, pos)
  pos = pos or #t
  local v = t[pos]
  for i = pos, #t - 1 do t[i] = t[i + 1] end
  t[#t] = nil
  return v
end
local function concat(t, sep)
  local s = ""
  for i = 1, #t do s = s .. (i > 1 and sep or "") .. t[i] end
  return s
end
local function reverse(t)
  local i, j = 1, #t
  while i < j do t[i], t[j] = t[j], t[i] i = i + 1 j = j - 1 end
  return t
end
local a = {}
for i = 1, 10 do insert(a, i) end
print(concat(a, ","))
insert(a, 1, 0)
insert(a, 5, "x")
print(concat(a, ","), #a)
print(remove(a), remove(a, 1), remove(a, 4))
print(concat(a, ","), #a)
print(concat(reverse(a), " "))
while #a > 0 do remove(a) end
print(#a, concat(a, ","))
