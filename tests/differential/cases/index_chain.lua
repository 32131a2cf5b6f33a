local base = {greet = function(self) return "hello from " .. self.name end, kind = "base"}
local mid = setmetatable({kind = "mid"}, {__index = base})
local top = setmetatable({name = "top"}, {__index = mid})
print(top:greet(), top.kind, rawget(top, "kind"), top.missing)
local calls = 0
local lazy = setmetatable({}, {__index = function(t, k)
  calls = calls + 1
  local v = k .. "!"
  rawset(t, k, v)
  return v
end})
print(lazy.a, lazy.b, lazy.a, calls)
local chain = {v = "root"}
for i = 1, 50 do chain = setmetatable({}, {__index = chain}) end
print(chain.v)
local a, b = {}, {}
setmetatable(a, {__index = b})
setmetatable(b, {__index = a})
print(pcall(function() return a.loop end))
