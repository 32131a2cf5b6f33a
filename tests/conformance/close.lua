-- To-be-closed variables: <close>, __close order, errors, break/return/goto.
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

local log = ""
local function closer(name, fail)
  return setmetatable({}, {__close = function(o, e)
    log = log .. name .. "(" .. tostring(e) .. ");"
    if fail then error(fail, 0) end
  end})
end

-- reverse order at end of block
do
  log = ""
  do
    local a <close> = closer("a")
    local b <close> = closer("b")
    log = log .. "body;"
  end
  eq(log, "body;b(nil);a(nil);", "reverse order")
end

-- __close receives the object itself
do
  local got
  local obj = setmetatable({}, {__close = function(o) got = o end})
  do local x <close> = obj end
  assert(rawequal(got, obj), "__close receives the value")
end

-- nil and false are allowed and ignored
do
  local ok = pcall(function()
    local a <close> = nil
    local b <close> = false
  end)
  eq(ok, true, "nil/false closable")
end

-- non-closable values raise an error at the declaration
eq(errof(function() local x <close> = {} end), "close.lua:50: variable 'x' got a non-closable value", "table without __close")
eq(errof(function() local y <close> = 42 end), "close.lua:51: variable 'y' got a non-closable value", "number")

-- closed on return, after the return values are computed
do
  log = ""
  local function f()
    local a <close> = closer("a")
    local v = "ret"
    return v, log
  end
  local r, logAtReturn = f()
  eq(r, "ret", "return value")
  eq(logAtReturn, "", "return values evaluated before closing")
  eq(log, "a(nil);", "closed on return")
end

-- closed on break
do
  log = ""
  for i = 1, 3 do
    local c <close> = closer("i" .. i)
    if i == 2 then break end
    log = log .. "after" .. i .. ";"
  end
  eq(log, "after1;i1(nil);i2(nil);", "closed on break and per iteration")
end

-- closed on goto out of the block
do
  log = ""
  local n = 0
  ::again::
  do
    local c <close> = closer("g" .. n)
    n = n + 1
    if n < 3 then goto again end
  end
  eq(log, "g0(nil);g1(nil);g2(nil);", "closed on goto")
end

-- closed on goto continue
do
  log = ""
  for i = 1, 3 do
    local c <close> = closer("c" .. i)
    if i % 2 == 1 then goto continue end
    log = log .. "even" .. i .. ";"
    ::continue::
  end
  eq(log, "c1(nil);even2;c2(nil);c3(nil);", "continue idiom")
end

-- closed on error, receiving the error object; error is propagated
do
  log = ""
  local ok, e = pcall(function()
    local a <close> = closer("a")
    local b <close> = closer("b")
    error("boom", 0)
  end)
  eq(ok, false, "error propagates")
  eq(e, "boom", "original error")
  eq(log, "b(boom);a(boom);", "closers see the error")
end

-- error inside __close replaces the error; remaining closers still run
do
  log = ""
  local ok, e = pcall(function()
    local a <close> = closer("a")
    local b <close> = closer("b", "eb")
    local c <close> = closer("c", "ec")
    error("body", 0)
  end)
  eq(ok, false, "fails")
  eq(e, "eb", "last error wins")
  eq(log, "c(body);b(ec);a(eb);", "each closer sees the current error")
end

-- error inside __close on normal exit
do
  log = ""
  local ok, e = pcall(function()
    local a <close> = closer("a")
    local b <close> = closer("b", "eb")
    return 1
  end)
  eq(ok, false, "closing error on return")
  eq(e, "eb", "closing error value")
  eq(log, "b(nil);a(eb);", "a sees eb")
end

-- non-string error objects are passed through
do
  local errobj = {}
  local seen
  local ok, e = pcall(function()
    local a <close> = setmetatable({}, {__close = function(_, err) seen = err end})
    error(errobj)
  end)
  assert(rawequal(e, errobj), "error object identity")
  assert(rawequal(seen, errobj), "closer saw error object")
end

-- nested functions and blocks
do
  log = ""
  local function inner()
    local x <close> = closer("inner")
    return "v"
  end
  do
    local o <close> = closer("outer")
    eq(inner(), "v", "inner result")
    log = log .. "mid;"
  end
  eq(log, "inner(nil);mid;outer(nil);", "nested order")
end

-- tail call: to-be-closed variables make the call a regular call
do
  log = ""
  local function g() log = log .. "g;" return "g" end
  local function f()
    local x <close> = closer("f")
    return g()
  end
  eq(f(), "g", "result")
  eq(log, "g;f(nil);", "closed after the called function returns")
end

-- generic for: the 4th value is closed when the loop ends (normally, break, error)
do
  local function iter(n, name)
    local i = 0
    return function()
      i = i + 1
      if i <= n then return i end
    end, nil, nil, closer(name)
  end
  log = ""
  for i in iter(2, "normal") do log = log .. i .. ";" end
  eq(log, "1;2;normal(nil);", "closed after normal end")
  log = ""
  for i in iter(5, "brk") do
    if i == 2 then break end
  end
  eq(log, "brk(nil);", "closed after break")
  log = ""
  local ok = pcall(function()
    for i in iter(5, "err") do error("E", 0) end
  end)
  eq(log, "err(E);", "closed on error")
  log = ""
  local function ret()
    for i in iter(5, "ret") do return i end
  end
  eq(ret(), 1, "return from loop")
  eq(log, "ret(nil);", "closed on return from loop")
end

-- to-be-closed variable is const
do
  local f, msg = load("local x <close> = nil; x = 1")
  eq(f, nil, "assign to close var is an error")
  eq(msg, [[[string "local x <close> = nil; x = 1"]:1: attempt to assign to const variable 'x']], "message")
end

-- closed when a coroutine is closed
do
  log = ""
  local co = coroutine.create(function()
    local a <close> = closer("co")
    coroutine.yield(1)
    log = log .. "never;"
  end)
  assert(coroutine.resume(co))
  eq(log, "", "not closed while suspended")
  local ok = coroutine.close(co)
  eq(ok, true, "close ok")
  eq(log, "co(nil);", "closed by coroutine.close")
  eq(coroutine.status(co), "dead", "dead after close")
end

-- closing in a loop of many iterations
do
  local count = 0
  local mt = {__close = function() count = count + 1 end}
  for i = 1, 1000 do
    local x <close> = setmetatable({}, mt)
  end
  eq(count, 1000, "1000 closes")
end

return "OK"
