local log = {}
local function closer(name, fail)
  return setmetatable({}, {__close = function(_, e)
    log[#log + 1] = name .. "(" .. tostring(e) .. ")"
    if fail then error(fail, 0) end
  end})
end
print(pcall(function()
  local a <close> = closer("a")
  local b <close> = closer("b", "eb")
  local c <close> = closer("c", "ec")
  error("body", 0)
end))
local s = ""
for _, l in ipairs(log) do s = s .. l .. " " end
print(s)
log = {}
print(pcall(function()
  local a <close> = closer("a")
  local b <close> = closer("b", "eb")
  return "normal"
end))
s = ""
for _, l in ipairs(log) do s = s .. l .. " " end
print(s)
