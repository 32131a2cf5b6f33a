-- The metamethod paths that call a function `__index`, `__newindex` or an
-- arithmetic event at once (meta.rs `index_op`, `newindex_op`,
-- `arith_slow`): each case beside the general walk it short-cuts.

local log = {}
local function note(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  log[#log + 1] = table.concat(t, " ", 1, t.n)
end

-- `__newindex` as a function: absent key, existing key (raw update, no
-- call), a tombstone (nil value: the metamethod again), a key built at
-- run time (a loose string whose twin is in the table).
local calls = 0
local mt = {__newindex = function(t, k, v) calls = calls + 1; rawset(t, k, v * 10) end}
local o = setmetatable({}, mt)
o.a = 1
o.a = 2
note("newindex", o.a, calls)
o.a = nil
o.a = 3
note("tombstone", o.a, calls)
local key = ("b"):rep(1) .. ""
o[key] = 4
o.b = 5
note("loose", o.b, o[key], calls)
o[1] = 6
o[1] = 7
o[2.0] = 8
note("int", o[1], o[2], calls)

-- `__newindex` as a native function and as a table.
local store = {}
local p = setmetatable({}, {__newindex = rawset})
p.x = 1
note("native", rawget(p, "x"))
local q = setmetatable({}, {__newindex = store})
q.y = 2
note("table", rawget(q, "y"), store.y)
local r = setmetatable({}, {__newindex = q})
r.z = 3
note("chain", rawget(r, "z"), rawget(q, "z"), store.z)

-- `__newindex` that errors: the message and the line.
local bad = setmetatable({}, {__newindex = function() error("no writes") end})
note("error", pcall(function() bad.w = 1 end))

-- `__index` as a function: no results, two results, a key built at run
-- time, an integer and a float key.
local none = setmetatable({}, {__index = function() end})
note("none", tostring(none.k))
local two = setmetatable({}, {__index = function(t, k) return k, "extra" end})
note("two", two.k, two[key], two[3], two[2.5])
local seen = {}
local withkey = setmetatable({b = "raw"}, {__index = function(t, k) seen[#seen + 1] = k; return "meta" end})
note("present", withkey[key], withkey.b, withkey.c, #seen)
local native = setmetatable({}, {__index = rawget})
note("native index", tostring(native.k))

-- An arithmetic event on the left and on the right, native and Lua.
local V = {}
V.__index = V
V.__add = function(a, b)
  local x = type(a) == "table" and a.v or a
  local y = type(b) == "table" and b.v or b
  return setmetatable({v = x + y}, V)
end
V.__unm = function(a) return setmetatable({v = -a.v}, V) end
local v = setmetatable({v = 1}, V)
note("add", (v + 2).v, (2 + v).v, (v + v).v, (-v).v)
local S = setmetatable({}, {__add = rawequal})
note("native add", S + 7)
note("arith error", pcall(function() return setmetatable({}, {}) + 1 end))

-- Many calls in a loop, the counts checked.
local n = 0
local counter = setmetatable({}, {__index = function(t, k) n = n + 1; return n end,
                                  __newindex = function(t, k, val) n = n + val end})
for i = 1, 1000 do
  local _ = counter.x
  counter.y = 2
end
note("loop", n)

for _, l in ipairs(log) do print(l) end
