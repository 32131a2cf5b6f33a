-- failing string arithmetic: in Lua 5.4 these messages come from the string
-- library's arithmetic metamethods ("attempt to add a 'string' with a 'number'")
print(pcall(function() return "abc" + 1 end))
print(pcall(function() return 1 * "x" end))
print(pcall(function() return -"x" end))
print(pcall(function() return "a" // "b" end))
print(pcall(function() return {} + "1" end))
