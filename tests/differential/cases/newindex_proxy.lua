local function tracked(name)
  local store = {}
  local log = {}
  local proxy = setmetatable({}, {
    __index = function(_, k) log[#log + 1] = "get " .. tostring(k) return store[k] end,
    __newindex = function(_, k, v) log[#log + 1] = "set " .. tostring(k) .. "=" .. tostring(v) store[k] = v end,
    __len = function() return #store end,
  })
  return proxy, log
end
local p, log = tracked("p")
p.x = 1
p.y = p.x + 1
p[1] = "a"
p[2] = "b"
local _ = p.z
print(#p, p.y)
for i, l in ipairs(log) do print(i, l) end
local sink = {}
local t = setmetatable({}, {__newindex = sink})
t.a = 1
print(rawget(t, "a"), sink.a)
