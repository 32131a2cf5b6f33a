-- Coroutines, advanced: yield across pcall/xpcall, from nested Lua calls,
-- inside metamethods (__index, __newindex, __lt, __add, __concat, __eq, __call),
-- inside for-in iterators, and close with pending to-be-closed variables.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function pack(...) return {n = select("#", ...), ...} end

-- yield across pcall
do
  local co = coroutine.create(function()
    local ok, v = pcall(function()
      local x = coroutine.yield("in pcall")
      return x * 2
    end)
    return ok, v
  end)
  local _, y = coroutine.resume(co)
  eq(y, "in pcall", "yielded inside pcall")
  local r = pack(coroutine.resume(co, 21))
  eq(r[2], true, "pcall ok")
  eq(r[3], 42, "pcall result")
end

-- error after yield inside pcall is caught by that pcall
do
  local co = coroutine.create(function()
    return pcall(function() coroutine.yield(1) error("after", 0) end)
  end)
  coroutine.resume(co)
  local r = pack(coroutine.resume(co))
  eq(r[1], true, "resume ok")
  eq(r[2], false, "pcall caught")
  eq(r[3], "after", "error value")
end

-- yield across xpcall, handler runs in the coroutine
do
  local co = coroutine.create(function()
    return xpcall(function()
      coroutine.yield("x")
      error("E", 0)
    end, function(m) return "handled " .. m end)
  end)
  coroutine.resume(co)
  local r = pack(coroutine.resume(co))
  eq(r[3], "handled E", "xpcall handler after yield")
end

-- yield from deeply nested Lua calls
do
  local function deep(n)
    if n == 0 then return coroutine.yield("bottom") end
    return deep(n - 1) + 1
  end
  local co = coroutine.create(function() return deep(100) end)
  local _, v = coroutine.resume(co)
  eq(v, "bottom", "yield from depth 100")
  local _, r = coroutine.resume(co, 0)
  eq(r, 100, "resumed value propagated back up")
end

-- yield inside __index function
do
  local t = setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end})
  local co = coroutine.create(function() return t.foo .. t.bar end)
  local _, k1 = coroutine.resume(co)
  eq(k1, "foo", "first __index yield")
  local _, k2 = coroutine.resume(co, "F")
  eq(k2, "bar", "second __index yield")
  local _, res = coroutine.resume(co, "B")
  eq(res, "FB", "__index results")
end

-- yield inside __newindex
do
  local log = ""
  local t = setmetatable({}, {__newindex = function(tab, k, v)
    local extra = coroutine.yield(k)
    rawset(tab, k, v .. extra)
  end})
  local co = coroutine.create(function() t.a = "x" return t.a end)
  local _, k = coroutine.resume(co)
  eq(k, "a", "__newindex yield")
  local _, v = coroutine.resume(co, "!")
  eq(v, "x!", "__newindex completed")
end

-- yield inside comparison and arithmetic metamethods
do
  local mt = {
    __lt = function(a, b) return coroutine.yield("lt") end,
    __le = function(a, b) return coroutine.yield("le") end,
    __eq = function(a, b) return coroutine.yield("eq") end,
    __add = function(a, b) return coroutine.yield("add") end,
    __unm = function(a) return coroutine.yield("unm") end,
    __len = function(a) return coroutine.yield("len") end,
    __concat = function(a, b) return coroutine.yield("concat") end,
    __call = function(self, x) return coroutine.yield("call") end,
  }
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  local co = coroutine.create(function()
    local r = {}
    r[1] = a < b
    r[2] = a <= b
    r[3] = a == b
    r[4] = a + 1
    r[5] = -a
    r[6] = #a
    r[7] = a .. "x"
    r[8] = a(1)
    r[9] = not (a < b)
    return r
  end)
  local tags = ""
  local answers = {false, true, 1, "sum", "neg", 99, "cat", "called", true}
  local _, tag = coroutine.resume(co)
  local i = 1
  local result
  while coroutine.status(co) == "suspended" do
    tags = tags .. tag .. ";"
    local ok, v = coroutine.resume(co, answers[i])
    assert(ok, v)
    i = i + 1
    if coroutine.status(co) == "dead" then result = v else tag = v end
  end
  eq(tags, "lt;le;eq;add;unm;len;concat;call;lt;", "metamethods that yielded")
  eq(result[1], false, "__lt result")
  eq(result[2], true, "__le result")
  eq(result[3], true, "__eq result converted to boolean")
  eq(result[4], "sum", "__add result")
  eq(result[5], "neg", "__unm result")
  eq(result[6], 99, "__len result")
  eq(result[7], "cat", "__concat result")
  eq(result[8], "called", "__call result")
  eq(result[9], false, "not (a < b) with yielded true")
end

-- yield inside a generic-for iterator
do
  local co = coroutine.create(function()
    local s = ""
    for k in function(_, prev) return coroutine.yield(prev) end, nil, 0 do
      s = s .. k
    end
    return s
  end)
  local _, p = coroutine.resume(co)
  eq(p, 0, "iterator got initial control")
  _, p = coroutine.resume(co, "a")
  eq(p, "a", "control is previous value")
  _, p = coroutine.resume(co, "b")
  local _, s = coroutine.resume(co, nil)
  eq(s, "ab", "loop body results")
end

-- generator of generators (wrap inside wrap)
do
  local function range(n)
    return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
  end
  local function filter(pred, gen)
    return coroutine.wrap(function()
      for v in gen do if pred(v) then coroutine.yield(v) end end
    end)
  end
  local function map(f, gen)
    return coroutine.wrap(function()
      for v in gen do coroutine.yield(f(v)) end
    end)
  end
  local s = 0
  for v in map(function(x) return x * x end, filter(function(x) return x % 2 == 0 end, range(10))) do
    s = s + v
  end
  eq(s, 220, "pipeline 4+16+36+64+100")
end

-- permutations generator (classic PIL example)
do
  local function permgen(a, n)
    n = n or #a
    if n <= 1 then coroutine.yield(a)
    else
      for i = 1, n do
        a[n], a[i] = a[i], a[n]
        permgen(a, n - 1)
        a[n], a[i] = a[i], a[n]
      end
    end
  end
  local count, sig = 0, ""
  for p in coroutine.wrap(function() permgen({1, 2, 3}) end) do
    count = count + 1
    sig = sig .. p[1] .. p[2] .. p[3] .. " "
  end
  eq(count, 6, "3! permutations")
  eq(sig, "231 321 312 132 213 123 ", "permutation order")
end

-- closing a coroutine with pending to-be-closed variables
do
  local log = ""
  local co = coroutine.create(function()
    local a <close> = setmetatable({}, {__close = function(_, e) log = log .. "a(" .. tostring(e) .. ")" end})
    local b <close> = setmetatable({}, {__close = function(_, e) log = log .. "b(" .. tostring(e) .. ")" end})
    coroutine.yield()
  end)
  coroutine.resume(co)
  local ok = coroutine.close(co)
  eq(ok, true, "close ok")
  eq(log, "b(nil)a(nil)", "pending closes in reverse order")
end

-- error in a __close during coroutine.close is reported
do
  local co = coroutine.create(function()
    local a <close> = setmetatable({}, {__close = function() error("close failed", 0) end})
    coroutine.yield()
  end)
  coroutine.resume(co)
  local ok, e = coroutine.close(co)
  eq(ok, false, "close reports error")
  eq(e, "close failed", "close error value")
end

-- yielding from inside a to-be-closed __close on normal exit
do
  local co = coroutine.create(function()
    do
      local x <close> = setmetatable({}, {__close = function() coroutine.yield("closing") end})
    end
    return "after"
  end)
  local _, v = coroutine.resume(co)
  eq(v, "closing", "yield inside __close")
  local _, v2 = coroutine.resume(co)
  eq(v2, "after", "finished after __close")
end

-- wrap inside pcall inside coroutine: errors and yields interplay
do
  local co = coroutine.wrap(function()
    local inner = coroutine.wrap(function()
      coroutine.yield(1)
      error("inner died", 0)
    end)
    local a = inner()
    local ok, e = pcall(inner)
    coroutine.yield(a)
    return e
  end)
  eq(co(), 1, "inner yielded through outer")
  eq(co(), "inner died", "inner error caught in outer")
end

-- resume passing values into a coroutine blocked in a deep metamethod chain
do
  local proxy = setmetatable({}, {__index = function(t, k)
    local v = coroutine.yield(k)
    rawset(t, k, v)
    return v
  end})
  local co = coroutine.wrap(function(keys)
    local s = 0
    for _, k in ipairs(keys) do s = s + proxy[k] end
    return "sum", s
  end)
  local k = co({"x", "y", "x", "z"})
  local asked = k
  while k ~= "sum" do
    local v
    k, v = co(({x = 1, y = 2, z = 3})[k])
    if k ~= "sum" then asked = asked .. k else eq(v, 7, "proxy sum") end
  end
  eq(asked, "xyz", "x asked once (cached with rawset)")
end

return "OK"
