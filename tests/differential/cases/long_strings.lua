local s = [[
first line
second line]]
print(s)
print(#s)
local t = [=[
]]
nested ]] and [[ ok
]=]
print(t)
local c = 0
--[[ a long
comment ]] c = c + 1
--[==[
  print("never")
]==]
print("comment count", c)
print([[\n is not an escape]])
