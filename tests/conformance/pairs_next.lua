-- next / pairs / __pairs (order-independent checks only).
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- next on empty table
eq(next({}), nil, "next of empty")
eq(select("#", next({})), 1, "next of empty returns one nil")

-- next walks every key once
do
  local t = {1, 2, 3, x = "a", y = "b"}
  local n, k = 0, nil
  local keys = {}
  repeat
    local v
    k, v = next(t, k)
    if k ~= nil then
      assert(not keys[k], "duplicate key")
      keys[k] = v
      n = n + 1
    end
  until k == nil
  eq(n, 5, "five keys")
  eq(keys.x, "a", "x visited")
  eq(keys[3], 3, "3 visited")
end

-- next(t, lastkey) returns nil
do
  local t = {only = 1}
  local k = next(t)
  eq(k, "only", "single key")
  eq(next(t, k), nil, "after last key")
end

-- invalid key
do
  local ok, e = pcall(next, {}, "nokey")
  eq(ok, false, "invalid key raises")
  eq(e, "invalid key to 'next'", "invalid key message")
end

-- pairs returns next, t, nil when there is no __pairs
do
  local t = {}
  local f, s, c = pairs(t)
  eq(f, next, "pairs returns next")
  eq(s, t, "pairs returns the table")
  eq(c, nil, "pairs initial control")
end

-- __pairs
do
  local calls = 0
  local t = setmetatable({}, {__pairs = function(self)
    calls = calls + 1
    local i = 0
    return function(_, _)
      i = i + 1
      if i <= 3 then return i, i * 10 end
    end, self, nil
  end})
  local s = 0
  for k, v in pairs(t) do s = s + k + v end
  eq(s, 66, "__pairs iterator")
  eq(calls, 1, "__pairs called once")
  -- next ignores __pairs
  eq(next(t), nil, "raw next of empty proxy")
end

-- __pairs results are truncated to three values
do
  local t = setmetatable({}, {__pairs = function() return 1, 2, 3, 4 end})
  local r = {n = select("#", pairs(t)), pairs(t)}
  eq(r.n, 3, "three values from pairs")
end

-- __pairs can be used for ordered traversal
do
  local ordered = {keys = {"z", "a", "m"}, vals = {z = 26, a = 1, m = 13}}
  setmetatable(ordered, {__pairs = function(self)
    local i = 0
    return function()
      i = i + 1
      local k = self.keys[i]
      if k then return k, self.vals[k] end
    end
  end})
  local out = ""
  for k, v in pairs(ordered) do out = out .. k .. v end
  eq(out, "z26a1m13", "ordered __pairs")
end

-- integer and float keys
do
  local t = {}
  t[1] = "int"
  t[2.0] = "float2"
  t[2.5] = "frac"
  local ints, floats = 0, 0
  for k in pairs(t) do
    if tostring(k) == tostring(k * 1.0) then floats = floats + 1 else ints = ints + 1 end
  end
  eq(ints, 2, "1 and 2 (normalised) are integer keys")
  eq(floats, 1, "2.5 stays float")
end

-- keys of all types
do
  local f = function() end
  local tk = {}
  local t = {[f] = "fn", [tk] = "tab", [true] = "bool", [false] = "false", ["s"] = "str", [1] = "one"}
  local n = 0
  for k, v in pairs(t) do
    n = n + 1
    eq(t[k], v, "lookup matches traversal")
  end
  eq(n, 6, "six key types")
  eq(t[f], "fn", "function key")
  eq(t[tk], "tab", "table key")
  eq(t[false], "false", "false key")
end

-- large table traversal
do
  local t = {}
  for i = 1, 1000 do t[i] = i end
  for i = 1, 1000 do t["k" .. i] = i end
  local n, s = 0, 0
  for _, v in pairs(t) do n = n + 1 s = s + v end
  eq(n, 2000, "2000 entries")
  eq(s, 1001000, "sum")
end

-- clearing while traversing with next
do
  local t = {}
  for i = 1, 50 do t[i] = i t["s" .. i] = i end
  local k = next(t)
  while k ~= nil do
    local nk = next(t, k)
    t[k] = nil
    k = nk
  end
  eq(next(t), nil, "cleared through next")
end

-- pairs on a table with a metatable but no __pairs uses raw traversal
do
  local t = setmetatable({a = 1}, {__index = {b = 2}})
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  eq(n, 1, "no inherited keys")
end

-- pairs(non-table) errors
do
  local ok = pcall(function() for _ in pairs(nil) do end end)
  eq(ok, false, "iterating pairs(nil) fails")
end

return "OK"
