local E = {}
E.__index = E
E.__tostring = function(e) return "E(" .. e.code .. "): " .. e.msg end
local function raise(code, msg) error(setmetatable({code = code, msg = msg}, E)) end
local ok, e = pcall(raise, 404, "not found")
print(ok, getmetatable(e) == E, e.code, tostring(e))
local ok2, e2 = pcall(function()
  local ok3, inner = pcall(raise, 500, "inner")
  inner.msg = inner.msg .. " (rethrown)"
  error(inner)
end)
print(ok2, tostring(e2))
local function try(f, catch)
  local r = {pcall(f)}
  if r[1] then return r[2] end
  return catch(r[2])
end
print(try(function() return "fine" end, function(e) return "caught " .. tostring(e) end))
print(try(function() raise(1, "bad") end, function(e) return "caught " .. tostring(e) end))
print(try(function() error("str", 0) end, function(e) return "caught " .. e end))
print(try(function() local t = nil; return t.x end, function(e) return "caught " .. e end))
