-- cycles are reclaimed
collectgarbage()
local before = collectgarbage("count")
for i = 1, 20000 do
  local a, b = {}, {}
  a.other = b; b.other = a
end
collectgarbage()
local after = collectgarbage("count")
print("cycles reclaimed", after < before + 64)
-- weak values
local wv = setmetatable({}, {__mode = "v"})
wv[1] = {}; wv[2] = "str"; wv[3] = 42
local keep = {}
wv[4] = keep
collectgarbage()
print("weak v", wv[1], wv[2], wv[3], wv[4] == keep)
-- weak keys (ephemerons)
local wk = setmetatable({}, {__mode = "k"})
local k1 = {}
wk[k1] = "alive"
wk[{}] = "dead"
local k2 = {}
wk[k2] = k2 -- value refers to its own key: still collectable if k2 unreachable
k2 = nil
collectgarbage()
local n = 0
for k, v in pairs(wk) do n = n + 1 end
print("weak k", n, wk[k1])
-- ephemeron chain
local e = setmetatable({}, {__mode = "k"})
local a = {}
local b = {}
e[a] = b
e[b] = {}
collectgarbage()
local cnt = 0 for _ in pairs(e) do cnt = cnt + 1 end
print("ephemeron chain", cnt)
a = nil
collectgarbage()
cnt = 0 for _ in pairs(e) do cnt = cnt + 1 end
print("ephemeron chain after", cnt)
-- kv
local kv = setmetatable({}, {__mode = "kv"})
kv[{}] = 1; kv[1] = {}; kv["s"] = "t"
collectgarbage()
cnt = 0 for _ in pairs(kv) do cnt = cnt + 1 end
print("kv", cnt, kv.s)
-- finalizers order
local order = {}
for i = 1, 5 do
  setmetatable({}, {__gc = function() order[#order + 1] = i end})
end
collectgarbage()
print("finalizer order", table and "" or "", order[1], order[2], order[3], order[4], order[5])
-- resurrection
local saved
do
  local obj = setmetatable({name = "res"}, {__gc = function(o) saved = o end})
end
collectgarbage()
print("resurrected", saved and saved.name)
saved = nil
collectgarbage()
-- __gc set after setmetatable is not honoured
local flag = false
do
  local mt = {}
  local o = setmetatable({}, mt)
  mt.__gc = function() flag = true end
end
collectgarbage()
print("late __gc", flag)
-- error in finalizer is not fatal
setmetatable({}, {__gc = function() error("in gc") end})
collectgarbage()
print("after gc error")
-- options
print(type(collectgarbage("count")), select('#', collectgarbage("count")))
print(collectgarbage("isrunning"))
print(collectgarbage("stop"), collectgarbage("isrunning"))
print(collectgarbage("restart"), collectgarbage("isrunning"))
print(collectgarbage("incremental"), collectgarbage("generational"), collectgarbage("incremental"))
print(collectgarbage("setpause", 100), collectgarbage("setpause", 200))
print(collectgarbage("setstepmul", 200), collectgarbage("setstepmul", 100))
print(pcall(collectgarbage, "foo"))
print(collectgarbage())
local done = false
for i = 1, 100 do if collectgarbage("step") then done = true break end end
print("step finished", done)
-- strings in weak tables stay
local ws = setmetatable({}, {__mode = "k"})
ws["key" .. 1] = true
collectgarbage()
print("string key kept", ws.key1)
-- churn
for i = 1, 200000 do local t = {i, i + 1, x = i} end
print("churn ok")
