local function check(x)
  if type(x) ~= "table" then error("table expected, got " .. type(x), 2) end
  return x
end
local function process(v)
  local t = check(v)
  return #t
end
print(process({1, 2}))
print(process(42))
