local function closer(name)
  return setmetatable({}, {__close = function(_, e) print("close " .. name, e) end})
end
do
  local a <close> = closer("a")
  local b <close> = closer("b")
  print("in block")
end
local function f()
  local x <close> = closer("x")
  return "returned"
end
print(f())
for i = 1, 3 do
  local c <close> = closer("loop" .. i)
  if i == 2 then break end
end
print(pcall(function()
  local e <close> = closer("e")
  error("err", 0)
end))
print(pcall(function()
  local a <close> = closer("outer")
  local b <close> = setmetatable({}, {__close = function() error("in close", 0) end})
  return 1
end))
print(pcall(function() local bad <close> = {} end))
print(pcall(function() local ok <close> = nil; local ok2 <close> = false; return "nil and false are fine" end))
local function iter()
  local i = 0
  return function() i = i + 1 if i <= 2 then return i end end, nil, nil, closer("iter")
end
for v in iter() do print("iter value", v) end
do
  local n = 0
  ::again::
  do
    local g <close> = closer("goto" .. n)
    n = n + 1
    if n < 3 then goto again end
  end
end
