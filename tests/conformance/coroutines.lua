-- Coroutines: create/resume/yield/status/wrap/running/isyieldable/close,
-- values in and out, errors, dead coroutines.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function pack(...) return {n = select("#", ...), ...} end

-- values in and out
do
  local log = ""
  local co = coroutine.create(function(a, b)
    log = log .. "start" .. a .. b .. ";"
    local c = coroutine.yield(a + b)
    log = log .. "got" .. c .. ";"
    local d, e = coroutine.yield(c * 2)
    return d + e, "end"
  end)
  eq(coroutine.status(co), "suspended", "initial status")
  local r = pack(coroutine.resume(co, 1, 2))
  eq(r.n, 2, "resume returns true + yielded")
  eq(r[2], 3, "first yield value")
  eq(coroutine.status(co), "suspended", "suspended after yield")
  r = pack(coroutine.resume(co, 10))
  eq(r[2], 20, "second yield")
  r = pack(coroutine.resume(co, 3, 4))
  eq(r.n, 3, "return values")
  eq(r[2], 7, "returned sum")
  eq(r[3], "end", "returned tag")
  eq(coroutine.status(co), "dead", "dead after return")
  eq(log, "start12;got10;", "log")
  r = pack(coroutine.resume(co))
  eq(r[1], false, "resume dead fails")
  eq(r[2], "cannot resume dead coroutine", "dead message")
end

-- yield with multiple and zero values; resume with extra values
do
  local co = coroutine.create(function(...)
    local n = select("#", ...)
    local r = pack(coroutine.yield())
    local r2 = pack(coroutine.yield(nil, nil, 3))
    return n, r.n, r2.n
  end)
  local r = pack(coroutine.resume(co, nil, nil))
  eq(r.n, 1, "yield() gives only true")
  r = pack(coroutine.resume(co))
  eq(r.n, 4, "yield(nil, nil, 3)")
  eq(r[4], 3, "third yielded")
  r = pack(coroutine.resume(co, 1, nil))
  eq(r[2], 2, "initial args count with nils")
  eq(r[3], 0, "first resume after start passed nothing")
  eq(r[4], 2, "nil counted")
end

-- generators with wrap
do
  local function gen(n)
    return coroutine.wrap(function()
      for i = 1, n do coroutine.yield(i) end
    end)
  end
  local s = 0
  for v in gen(10) do s = s + v end
  eq(s, 55, "wrap generator")
  local g = gen(2)
  eq(g(), 1, "first")
  eq(g(), 2, "second")
  eq(g(), nil, "finished (returns nothing)")
  local ok, e = pcall(g)
  eq(ok, false, "calling dead wrap fails")
  eq(e, "cannot resume dead coroutine", "dead wrap message")
end

-- errors inside coroutines
do
  local co = coroutine.create(function() error("oops") end)
  local ok, e = coroutine.resume(co)
  eq(ok, false, "error reported")
  eq(e, "coroutines.lua:" .. (81 - 3) .. ": oops", "error message with position")
  eq(coroutine.status(co), "dead", "dead after error")
  local t = {}
  co = coroutine.create(function() error(t) end)
  local ok2, e2 = coroutine.resume(co)
  assert(rawequal(e2, t), "error object passed through")
  -- wrap propagates errors (adding position to strings)
  local w = coroutine.wrap(function() error("wrapped", 0) end)
  local ok3, e3 = pcall(w)
  eq(e3, "wrapped", "wrap propagates")
  local w2 = coroutine.wrap(function() local x = nil; return x.y end)
  local ok4, e4 = pcall(w2)
  eq(e4, "coroutines.lua:" .. (93 - 2) .. ": attempt to index a nil value (local 'x')", "wrap runtime error")
end

-- status values: running, normal, suspended, dead
do
  local main_co, ismain = coroutine.running()
  eq(type(main_co), "thread", "running returns a thread in main")
  eq(ismain, true, "main flag")
  eq(coroutine.isyieldable(), false, "main not yieldable")
  local outer
  local log = ""
  outer = coroutine.create(function()
    local me, im = coroutine.running()
    eq(me, outer, "running returns the coroutine")
    eq(im, false, "not main")
    eq(coroutine.status(outer), "running", "running status")
    eq(coroutine.isyieldable(), true, "yieldable inside")
    local inner = coroutine.create(function()
      log = log .. coroutine.status(outer) .. ";"
      coroutine.yield()
    end)
    coroutine.resume(inner)
    log = log .. coroutine.status(inner) .. ";"
    local ok, e = coroutine.resume(outer)
    log = log .. tostring(ok) .. ":" .. e .. ";"
  end)
  coroutine.resume(outer)
  eq(log, "normal;suspended;false:cannot resume non-suspended coroutine;", "status transitions")
  eq(coroutine.status(main_co), "running", "main is running")
  local ok, e = coroutine.resume(main_co)
  eq(e, "cannot resume non-suspended coroutine", "resume main")
end

-- yield outside a coroutine
do
  local ok, e = pcall(coroutine.yield, 1)
  eq(ok, false, "yield from main fails")
  eq(e, "attempt to yield from outside a coroutine", "yield outside message")
end

-- close
do
  eq(coroutine.close(coroutine.create(function() end)), true, "close fresh")
  local co = coroutine.create(function() coroutine.yield() end)
  coroutine.resume(co)
  eq(coroutine.close(co), true, "close suspended")
  eq(coroutine.status(co), "dead", "closed is dead")
  local ok, e = coroutine.resume(co)
  eq(e, "cannot resume dead coroutine", "resume closed")
  local co2 = coroutine.create(function() error("E", 0) end)
  coroutine.resume(co2)
  local okc, ec = coroutine.close(co2)
  eq(okc, false, "close of errored coroutine returns false")
  eq(ec, "E", "and the error")
  local ok3, e3 = pcall(coroutine.close, coroutine.running())
  eq(e3, "cannot close a running coroutine", "close running")
end

-- wrap: arguments and results
do
  local w = coroutine.wrap(function(...)
    local n1 = select("#", ...)
    local n2 = select("#", coroutine.yield(n1))
    return n2, "a", "b"
  end)
  eq(w(nil, nil), 2, "args count")
  local r = pack(w(nil))
  eq(r.n, 3, "wrap returns all results")
  eq(r[1], 1, "resume args count")
end

-- many coroutines alive at once
do
  local cos = {}
  for i = 1, 200 do
    cos[i] = coroutine.create(function(x)
      local acc = x
      while true do acc = acc + coroutine.yield(acc) end
    end)
    coroutine.resume(cos[i], i)
  end
  local total = 0
  for round = 1, 5 do
    for i = 1, 200 do
      local _, v = coroutine.resume(cos[i], 1)
      if round == 5 then total = total + v end
    end
  end
  eq(total, 20100 + 1000, "200 coroutines x 5 rounds")
end

-- producer / consumer
do
  local producer = coroutine.create(function()
    for _, w in ipairs({"a", "b", "c"}) do coroutine.yield(w) end
    return nil
  end)
  local out = ""
  while true do
    local _, v = coroutine.resume(producer)
    if v == nil then break end
    out = out .. v
  end
  eq(out, "abc", "producer/consumer")
end

-- a coroutine resuming another (nested resumes)
do
  local function chain(n)
    if n == 0 then
      return coroutine.create(function() coroutine.yield("leaf") return "leafdone" end)
    end
    local child = chain(n - 1)
    return coroutine.create(function()
      local _, v = coroutine.resume(child)
      coroutine.yield(v .. "<" .. n)
      local _, v2 = coroutine.resume(child)
      return v2 .. "<" .. n
    end)
  end
  local top = chain(5)
  local _, v = coroutine.resume(top)
  eq(v, "leaf<1<2<3<4<5", "nested yields")
  local _, v2 = coroutine.resume(top)
  eq(v2, "leafdone<1<2<3<4<5", "nested returns")
end

-- argument errors
do
  local ok, e = pcall(coroutine.create, nil)
  eq(e, "bad argument #1 to 'coroutine.create' (function expected, got nil)", "create(nil)")
  ok, e = pcall(coroutine.resume, 1)
  eq(e, "bad argument #1 to 'coroutine.resume' (thread expected, got number)", "resume(1)")
  ok, e = pcall(coroutine.status, nil)
  eq(e, "bad argument #1 to 'coroutine.status' (thread expected, got nil)", "status(nil)")
  ok, e = pcall(coroutine.wrap, 1)
  eq(e, "bad argument #1 to 'coroutine.wrap' (function expected, got number)", "wrap(1)")
end

-- type and tostring of threads
do
  local co = coroutine.create(print)
  eq(type(co), "thread", "type thread")
end

return "OK"
