local function readonly(t)
  return setmetatable({}, {
    __index = t,
    __newindex = function(_, k) error("cannot modify field '" .. tostring(k) .. "'", 2) end,
    __len = function() return #t end,
    __metatable = "locked",
  })
end
local days = readonly({"Mon", "Tue", "Wed"})
print(days[1], #days, getmetatable(days))
print(pcall(function() days[4] = "Thu" end))
print(pcall(setmetatable, days, {}))
print(rawget(days, 1))
