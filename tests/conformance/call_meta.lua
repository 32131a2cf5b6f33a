-- __call: nested callable objects, varargs, method calls, errors.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end
local function pack(...) return {n = select("#", ...), ...} end

-- basic
do
  local obj = setmetatable({v = 10}, {__call = function(self, a, b) return self.v + a + b end})
  eq(obj(1, 2), 13, "__call with args")
  local r = pack(obj(1, 2))
  eq(r.n, 1, "single result")
end

-- varargs are forwarded, including nils
do
  local obj = setmetatable({}, {__call = function(self, ...) return select("#", ...), ... end})
  local r = pack(obj(nil, 2, nil))
  eq(r.n, 4, "count + 3 args")
  eq(r[1], 3, "select # sees 3 args")
  eq(r[2], nil, "first nil")
  eq(r[3], 2, "second")
  r = pack(obj())
  eq(r.n, 1, "no args")
  eq(r[1], 0, "zero args")
end

-- multiple returns
do
  local obj = setmetatable({}, {__call = function(self, n)
    local t = {}
    for i = 1, n do t[i] = i end
    local function unpack(i) if i <= n then return t[i], unpack(i + 1) end end
    return unpack(1)
  end})
  local r = pack(obj(5))
  eq(r.n, 5, "five results")
  eq(r[5], 5, "last result")
  local x, y, z = obj(2)
  eq(z, nil, "adjusted")
end

-- nested: __call is itself a callable table
do
  local inner = setmetatable({}, {__call = function(self, a, b, c)
    return "inner", a, b, c
  end})
  local outer = setmetatable({}, {__call = inner})
  local r = pack(outer("x"))
  -- inner receives (inner, outer, "x")
  eq(r[1], "inner", "nested tag")
  eq(r[2], outer, "nested: first arg is outer")
  eq(r[3], "x", "nested: arg")
  eq(r.n, 4, "nested count")
  local outer2 = setmetatable({}, {__call = outer})
  local r2 = pack(outer2(1))
  eq(r2[2], outer, "doubly nested: inner sees outer")
  eq(r2[3], outer2, "doubly nested: then outer2")
  eq(r2[4], 1, "doubly nested: then args")
end

-- method call syntax on callable fields
do
  local counter = setmetatable({n = 0}, {__call = function(self, obj, k) obj.total = obj.total + k return obj.total end})
  local o = {total = 0, add = counter}
  eq(o:add(5), 5, "method call through __call")
  eq(o:add(2), 7, "again")
end

-- __call in tail position and in loops
do
  local acc = setmetatable({}, {__call = function(self, n, s)
    if n == 0 then return s end
    return self(n - 1, s + n)
  end})
  eq(acc(10000, 0), 50005000, "recursive __call")
  local f = function(n) return acc(n, 0) end
  eq(f(100), 5050, "tail call to callable")
end

-- callable used by pcall, coroutine.wrap, metamethods, iterators
do
  local c = setmetatable({}, {__call = function(self, x) return x * 2 end})
  local ok, v = pcall(c, 21)
  eq(ok, true, "pcall callable")
  eq(v, 42, "pcall callable value")
  local iter = setmetatable({i = 0}, {__call = function(self)
    self.i = self.i + 1
    if self.i <= 3 then return self.i end
  end})
  local s = 0
  for i in iter do s = s + i end
  eq(s, 6, "callable iterator in generic for")
  local idx = setmetatable({}, {__index = c})
  local ok2 = pcall(function() return idx.x end)
  -- __index must be a function or table; callable table is treated as table
  eq(ok2, true, "__index callable table indexes the table")
end

-- errors
eq(errof(function() local t = {} t() end), "call_meta.lua:108: attempt to call a table value (local 't')", "call table")
eq(errof(function() local t = setmetatable({}, {}) t() end), "call_meta.lua:109: attempt to call a table value (local 't')", "call table with empty mt")
assert(not pcall(function() local t = setmetatable({}, {__call = 1}) t() end), "__call not callable")
eq(errof(function(f) return f(1) end, "str"), "call_meta.lua:111: attempt to call a string value (local 'f')", "call string")
eq(errof(function() local o = {} o.m() end), "call_meta.lua:112: attempt to call a nil value (field 'm')", "call nil field")
eq(errof(function() local o = {} o:m() end), "call_meta.lua:113: attempt to call a nil value (method 'm')", "call nil method")

return "OK"
