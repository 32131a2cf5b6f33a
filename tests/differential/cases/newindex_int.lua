-- `t[i] = v` with an integer key through a `__newindex` function: the key
-- absent (the call), present (a raw set), in the array part or the hash
-- part, errors inside the metamethod, and recursion through it.
local log = {}
local store = {}
local p = setmetatable({}, {__newindex = function(t, k, v)
  log[#log + 1] = math.type(k) .. ":" .. tostring(k) .. "=" .. tostring(v)
  store[k] = v
end})
for i = -2, 5 do p[i] = i * 10 end
p[2.0] = "float two"
print(table.concat(log, " "))
print(rawget(p, 1), store[1], store[2])

-- a present key is set raw: no call
rawset(p, 7, "raw")
log = {}
p[7] = "again"
print(#log, rawget(p, 7))

-- array keys present, then one past them
local q = setmetatable({1, 2, 3}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end})
q[2] = 20; q[4] = 40; q[100] = 1
print(q[2], q[4], q[100], #q)

-- an error inside: the message and the line
local r = setmetatable({}, {__newindex = function(t, k, v) error("no key " .. k) end})
print(pcall(function() r[3] = 1 end))
local ok, e = pcall(function() local x = nil; r[1] = x.y end)
print(ok, e)

-- __newindex a table: the set goes there
local back = {}
local s = setmetatable({}, {__newindex = back})
s[1] = "a"; s[2] = "b"
print(rawget(s, 1), back[1], back[2])

-- a metamethod that assigns through another proxy, deeply
local depth = 0
local chain
chain = setmetatable({}, {__newindex = function(t, k, v)
  depth = depth + 1
  if k > 0 then chain[k - 1] = v end
end})
chain[150] = true
print(depth)

-- a value returned by __newindex is dropped; the statement's result
local u = setmetatable({}, {__newindex = function() return 1, 2, 3 end})
local function f() u[1] = 5; return "done" end
print(f())
