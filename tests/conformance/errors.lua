-- pcall / xpcall / error: values, levels, position prefixes, handlers.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function pack(...) return {n = select("#", ...), ...} end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end

-- pcall success returns true plus all results
do
  local r = pack(pcall(function(a, b) return a + b, a * b end, 3, 4))
  eq(r.n, 3, "pcall result count")
  eq(r[1], true, "pcall status")
  eq(r[2], 7, "first result")
  eq(r[3], 12, "second result")
  r = pack(pcall(function() end))
  eq(r.n, 1, "no results")
end

-- error with a string at level 1 (default) adds position
do
  eq(errof(function() error("boom") end), "errors.lua:27: boom", "level 1 prefix")
  eq(errof(function() error("boom", 1) end), "errors.lua:28: boom", "explicit level 1")
  eq(errof(function() error("boom", 0) end), "boom", "level 0 no prefix")
end

-- level 2 points at the caller
do
  local function check(x) if type(x) ~= "number" then error("number expected", 2) end return x end
  local ok, e = pcall(function()
    check("str") -- this line is reported
  end)
  eq(e, "errors.lua:" .. (38 - 2) .. ": number expected", "level 2 blames caller")
  local function lvl3() error("deeper", 3) end
  local function mid() lvl3() end
  local function top() mid() end -- reported line for level 3
  ok, e = pcall(top)
  eq(e, "errors.lua:" .. (43 - 2) .. ": deeper", "level 3")
end

-- a level that points at a C function or beyond the stack adds no position
do
  local ok, e = pcall(error, "msg", 1)
  eq(e, "msg", "level 1 is pcall (C): no position")
  ok, e = pcall(error, "msg", 50)
  eq(e, "msg", "level beyond the stack")
end

-- non-string error values are passed unchanged, no position
do
  local t = {}
  local ok, e = pcall(error, t)
  assert(rawequal(e, t), "table error value identity")
  ok, e = pcall(function() error(t) end)
  assert(rawequal(e, t), "table from Lua function")
  ok, e = pcall(function() error(42) end)
  eq(e, 42, "number error")
  eq(tostring(e), "42", "number not converted to string")
  ok, e = pcall(function() error(true) end)
  eq(e, true, "boolean error")
  ok, e = pcall(function() error() end)
  eq(ok, false, "error() fails")
  eq(e, nil, "error() value is nil")
  ok, e = pcall(function() error(nil) end)
  eq(e, nil, "error(nil)")
  local r = pack(pcall(error))
  eq(r.n, 2, "pcall(error) returns false, nil")
  local f = function() end
  ok, e = pcall(error, f)
  eq(e, f, "function error value")
end

-- error objects with __tostring stay tables
do
  local E = setmetatable({code = 7}, {__tostring = function(s) return "E" .. s.code end})
  local ok, e = pcall(error, E)
  eq(e.code, 7, "structured error")
  eq(tostring(e), "E7", "__tostring on error object")
end

-- rethrowing keeps the value (and does not add a second position)
do
  local ok, e = pcall(function()
    local ok2, e2 = pcall(error, "inner", 0)
    error(e2, 0)
  end)
  eq(e, "inner", "rethrow level 0")
  ok, e = pcall(function()
    local ok2, e2 = pcall(function() error("x") end)
    error(e2) -- adds a second prefix
  end)
  eq(e, "errors.lua:" .. (97 - 2) .. ": errors.lua:" .. (97 - 3) .. ": x", "double prefix")
end

-- nested pcall
do
  local ok, r = pcall(function()
    local ok2, e2 = pcall(error, "a", 0)
    return (ok2 and "ok" or "caught:") .. e2
  end)
  eq(ok, true, "outer ok")
  eq(r, "caught:a", "inner caught")
end

-- xpcall: handler receives the error, its first result is returned
do
  local ok, r = xpcall(function() error("E", 0) end, function(m) return "handled " .. m end)
  eq(ok, false, "xpcall status")
  eq(r, "handled E", "handler result")
  local r2 = pack(xpcall(function() error("E", 0) end, function(m) return 1, 2, 3 end))
  eq(r2.n, 2, "only the handler's first result is returned")
  local r3 = pack(xpcall(function(a, b) return a, b end, print, "x", "y"))
  eq(r3.n, 3, "xpcall passes extra arguments")
  eq(r3[3], "y", "xpcall second arg")
  local seen
  xpcall(function() error({tag = 1}) end, function(m) seen = m.tag end)
  eq(seen, 1, "handler gets table error")
  -- the handler runs before the stack unwinds: it can see the level 2 caller
  local where
  xpcall(function() local x = nil; return x.y end, function(m) where = m end); eq(where, "errors.lua:125: attempt to index a nil value (local 'x')", "runtime error in xpcall")
end

-- error inside the handler
do
  local ok, r = xpcall(function() error("a") end, function(m) error("in handler") end)
  eq(ok, false, "handler error status")
  eq(r, "error in error handling", "error in handler")
end

-- pcall of non-callable values
do
  local ok, e = pcall(nil)
  eq(e, "attempt to call a nil value", "pcall(nil)")
  ok, e = pcall({})
  eq(e, "attempt to call a table value", "pcall({})")
  ok, e = pcall(42)
  eq(e, "attempt to call a number value", "pcall(42)")
  ok, e = xpcall(nil, function(m) return "H:" .. m end)
  eq(e, "H:attempt to call a nil value", "xpcall(nil, h)")
end

-- bad arguments to pcall/xpcall/error
do
  local ok, e = pcall(pcall)
  eq(e, "bad argument #1 to 'pcall' (value expected)", "pcall()")
  ok, e = pcall(xpcall, print)
  eq(e, "bad argument #2 to 'xpcall' (function expected, got no value)", "xpcall without handler")
end

-- runtime errors caught by pcall
do
  eq(errof(function() local t = nil; t.x = 1 end), "errors.lua:157: attempt to index a nil value (local 't')", "index nil")
  eq(errof(function() return 1 + {} end), "errors.lua:158: attempt to perform arithmetic on a table value", "arith table")
  eq(errof(function() return #nil end), "errors.lua:159: attempt to get length of a nil value", "len nil")
end

-- error() in deeply nested calls unwinds to the nearest pcall
do
  local depth = 0
  local function rec(n)
    depth = n
    if n == 100 then error({at = n}) end
    return rec(n + 1) + 1
  end
  local ok, e = pcall(rec, 1)
  eq(e.at, 100, "error from depth 100")
  eq(depth, 100, "reached depth")
  -- the stack is usable after unwinding
  local ok2, e2 = pcall(rec, 50)
  eq(e2.at, 100, "again from depth 50")
end

-- errors with numbers/other values in messages: position prefix only for strings
do
  local ok, e = pcall(function() error(3.5) end)
  eq(e, 3.5, "float error value unchanged")
  eq(errof(function() error("") end), "errors.lua:182: ", "empty message gets prefix")
end

-- pcall inside loops does not leak
do
  local fails = 0
  for i = 1, 10000 do
    if not pcall(error, i) then fails = fails + 1 end
  end
  eq(fails, 10000, "10000 caught errors")
end

-- tostring of error values in a handler
do
  local ok, msg = xpcall(function() error(setmetatable({}, {__tostring = function() return "custom!" end})) end, tostring)
  eq(msg, "custom!", "tostring as handler")
end

return "OK"
