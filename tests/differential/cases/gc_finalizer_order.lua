collectgarbage("stop")
local function mk(name)
  return setmetatable({name = name}, {__gc = function(o) print("finalize " .. o.name) end})
end
local function batch(prefix, n) for i = 1, n do mk(prefix .. i) end end
batch("a", 3)
collectgarbage()
print("--")
local keep = mk("kept")
batch("b", 2)
collectgarbage()
print("--")
keep = nil
collectgarbage()
print("--")
local resurrected
local function phoenix()
  setmetatable({name = "phoenix"}, {__gc = function(o) print("finalize", o.name) resurrected = o end})
end
phoenix()
collectgarbage()
print("resurrected:", resurrected.name)
resurrected = nil
collectgarbage()
print("no second finalization")
local function late()
  local mt = {}
  setmetatable({}, mt)
  mt.__gc = function() print("never: __gc added after setmetatable") end
end
late()
collectgarbage()
print("end")
collectgarbage("restart")
