-- Integer division and modulo by zero report the line of the last saved
-- pc (Lua 5.4.4's savedpc, which its arithmetic fast paths do not update).
-- EQ always saves it, as the reference's OP_EQ does (`Protect`), also when
-- no `__eq` can apply: the error below names the line of `a == b`.
local a, b = 1, 2
local z = 0
local ok, e = pcall(function()
  local x = 5
  if a == b then x = 1 end
  local y = x + 1
  return x // z, y
end)
print(ok, e)
ok, e = pcall(function()
  local x = 7
  if a ~= b then x = 2 end
  return x % z
end)
print(ok, e)
