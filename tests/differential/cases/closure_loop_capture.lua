local a = {}
for i = 1, 5 do a[i] = function() return i end end
local s = ""
for i = 1, 5 do s = s .. a[i]() end
print(s)
local b = {}
for k, v in ipairs({"x", "y", "z"}) do b[k] = function() return k .. v end end
print(b[1](), b[2](), b[3]())
local c = {}
local j = 0
while j < 3 do
  j = j + 1
  local captured = j * 10
  c[j] = function() captured = captured + 1 return captured end
end
print(c[1](), c[1](), c[2](), c[3]())
local d = {}
local i = 1
::top::
do
  local v = i
  d[i] = function() return v end
end
i = i + 1
if i <= 3 then goto top end
print(d[1](), d[2](), d[3]())
local e = {}
for x = 1, 3 do
  e[x] = function() x = x + 100 return x end
end
print(e[1](), e[1](), e[2]())
