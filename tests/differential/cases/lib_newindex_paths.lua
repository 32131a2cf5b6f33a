local function join(t) local s = '' for i = 1, #t do s = s .. (i > 1 and ',' or '') .. tostring(t[i]) end return s end
local out = {}
local log = {}
local mt = {__newindex = function(t, k, v) log[#log + 1] = tostring(k) .. '=' .. tostring(v); rawset(t, k, v) end}
local o = setmetatable({}, mt)
local k = 'key'
o.f = 1; o[3] = 'x'; o[k] = true; o[2.5] = 7; o.f = 2; o[3] = 'y'
out[#out + 1] = join(log)
local up = setmetatable({}, mt)
local function g() up.u = 5; up[1] = 6; up.u = 7 end
g()
out[#out + 1] = join(log) .. ';' .. tostring(rawget(up, 'u'))
local function err(f) local ok, e = pcall(f); return (string.gsub(tostring(e), '^[^:]*:%d+: ', '')) end
local n
out[#out + 1] = err(function() n.x = 1 end)
out[#out + 1] = err(function() n[1] = 1 end)
out[#out + 1] = err(function() n[k] = 1 end)
local t = {}
out[#out + 1] = err(function() t[nil] = 1 end)
out[#out + 1] = err(function() t[0/0] = 1 end)
local s = 'str'
out[#out + 1] = err(function() s.x = 1 end)
local E = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = 'G' .. k end, __index = _G})
local function h() local _ENV = E; newglobal = 1 end
h()
out[#out + 1] = log[#log]
local chain = setmetatable({}, {__newindex = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = 'deep' .. k end})})
chain.z = 1; chain[9] = 2
out[#out + 1] = log[#log - 1] .. log[#log]
local arr = {}
for i = 1, 10 do arr[i] = i end
for i = 1, 10 do arr[i] = nil end
arr.x = 1; arr.x = nil; arr.x = 2
out[#out + 1] = tostring(#arr) .. tostring(arr.x)
print(join(out))
local a = {b = {}}
print(err(function() a.b.c.d = 1 end))
print(err(function() undefinedglobal.x = 1 end))
print(err(function() local loc; loc.y = 2 end))
print(err(function() a.b.c[1] = 2 end))
