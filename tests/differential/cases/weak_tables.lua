local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
local wv = setmetatable({}, {__mode = "v"})
local wk = setmetatable({}, {__mode = "k"})
local kv = setmetatable({}, {__mode = "kv"})
local keep = {}
local function fill()
  for i = 1, 10 do
    local o = {i}
    wv[i] = o
    wk[o] = i
    kv[o] = o
    if i % 3 == 0 then keep[#keep + 1] = o end
  end
  wv.s = "string"
  wk.s = "string"
  kv[1] = 2
end
fill()
collectgarbage()
collectgarbage()
print(count(wv), count(wk), count(kv))
local alive = ""
for i = 1, 10 do if wv[i] then alive = alive .. i .. " " end end
print(alive)
local eph = setmetatable({}, {__mode = "k"})
local function cycle() for i = 1, 5 do local k = {} eph[k] = {ref = k} end end
cycle()
collectgarbage()
print(count(eph))
