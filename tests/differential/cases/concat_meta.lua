-- __concat (one metamethod call per concatenation expression; see README:
-- Debian's lua5.4 5.4.4 mishandles chains that call __concat more than once
-- when the stack is reallocated)
collectgarbage("stop")
local function grow(n) if n > 0 then return grow(n - 1) + 1 end return 0 end
grow(300)
local B = {}
B.__concat = function(a, b)
  local x = type(a) == "table" and a.s or a
  local y = type(b) == "table" and b.s or b
  return setmetatable({s = x .. y}, B)
end
local function buf(s) return setmetatable({s = s}, B) end
local r = buf("a") .. "b"
print(r.s)
r = "x" .. buf("y")
print(r.s)
r = 1 .. buf("z")
print(r.s)
r = buf("p") .. buf("q")
print(r.s)
local acc = buf("")
for i = 1, 5 do acc = acc .. i end
print(acc.s)
print(pcall(function() return "a" .. {} end))
print(pcall(function() return {} .. "a" end))
collectgarbage("restart")
