local Emitter = {}
Emitter.__index = Emitter
function Emitter.new() return setmetatable({handlers = {}}, Emitter) end
function Emitter:on(ev, f)
  local hs = self.handlers[ev] or {}
  self.handlers[ev] = hs
  hs[#hs + 1] = f
  return #hs
end
function Emitter:off(ev, id) self.handlers[ev][id] = false end
function Emitter:emit(ev, ...)
  local hs = self.handlers[ev]
  if not hs then return 0 end
  local n = 0
  for _, f in ipairs(hs) do
    if f then
      local ok, err = pcall(f, ...)
      if not ok then print("handler error:", err) end
      n = n + 1
    end
  end
  return n
end
local e = Emitter.new()
local total = 0
e:on("add", function(x) total = total + x end)
local id = e:on("add", function(x) total = total + 10 * x end)
e:on("add", function(x) if x < 0 then error("negative!", 0) end end)
print(e:emit("add", 1), total)
e:off("add", id)
print(e:emit("add", 2), total)
print(e:emit("add", -1), total)
print(e:emit("none"))
