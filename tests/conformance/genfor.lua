-- Generic for: stateless and stateful iterators, the control variable, the
-- 4th (closing) value, ipairs and pairs.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- stateless iterator: f(s, control)
do
  local function iter(limit, i)
    i = i + 1
    if i <= limit then return i, i * i end
  end
  local s = ""
  for i, sq in iter, 4, 0 do s = s .. i .. ":" .. sq .. " " end
  eq(s, "1:1 2:4 3:9 4:16 ", "stateless iterator")
end

-- the iterator receives the state and the previous first value
do
  local calls = ""
  local function f(state, ctl)
    calls = calls .. tostring(state) .. "," .. tostring(ctl) .. ";"
    if ctl < 3 then return ctl + 1, "ignored" end
  end
  for _ in f, "S", 0 do end
  eq(calls, "S,0;S,1;S,2;S,3;", "state and control passed")
end

-- the loop ends when the first value is nil (other values do not matter)
do
  local n = 0
  local function f(_, c)
    if c < 3 then return c + 1 end
    return nil, "not nil"
  end
  for _ in f, nil, 0 do n = n + 1 end
  eq(n, 3, "ends at first nil")
  -- false does not end the loop
  local k = 0
  local function g(_, c)
    k = k + 1
    if k == 1 then return false end
    if k == 2 then return true end
  end
  local seen = ""
  for v in g, nil, nil do seen = seen .. tostring(v) end
  eq(seen, "falsetrue", "false does not stop the loop")
end

-- stateful iterator (closure)
do
  local function range(n, step)
    local i = 0
    return function()
      i = i + 1
      if i <= n then return i * (step or 1) end
    end
  end
  local s = 0
  for v in range(10, 2) do s = s + v end
  eq(s, 110, "closure iterator")
end

-- iterator over a linked list
do
  local list = nil
  for i = 1, 5 do list = {value = i, next = list} end
  local function nodes(l)
    return function(_, node)
      if node == nil then return l end
      return node.next
    end, nil, nil
  end
  local s = ""
  for node in nodes(list) do s = s .. node.value end
  eq(s, "54321", "linked list iteration")
end

-- many loop variables; extra ones are nil
do
  local function f(_, c) if c < 2 then return c + 1, "b", nil end end
  local out = ""
  for a, b, c, d in f, nil, 0 do out = out .. a .. b .. tostring(c) .. tostring(d) .. ";" end
  eq(out, "1bnilnil;2bnilnil;", "extra variables nil")
end

-- the 4th value is closed at the end of the loop
do
  local closed = 0
  local tbc = setmetatable({}, {__close = function() closed = closed + 1 end})
  local function f(_, c) if c < 3 then return c + 1 end end
  for _ in f, nil, 0, tbc do end
  eq(closed, 1, "closed once after normal end")
  for i in f, nil, 0, tbc do if i == 2 then break end end
  eq(closed, 2, "closed after break")
  -- nil as the closing value is fine
  local n = 0
  for _ in f, nil, 0, nil do n = n + 1 end
  eq(n, 3, "nil closing value")
end

-- a non-closable 4th value is an error
do
  local ok, e = pcall(function()
    for _ in next, {}, nil, {} do end
  end)
  eq(ok, false, "non-closable closing value")
  eq(e, "genfor.lua:" .. (110 - 3) .. ": variable '(for state)' got a non-closable value", "message")
end

-- ipairs stops at the first nil
do
  local t = {1, 2, 3, nil, 5}
  local n = 0
  for i, v in ipairs(t) do n = i end
  eq(n, 3, "ipairs stops at nil")
  local s = 0
  for _, v in ipairs({10, 20, 30}) do s = s + v end
  eq(s, 60, "ipairs sum")
  for _ in ipairs({}) do error("should not run") end
  for _ in ipairs({nil, 2}) do error("should not run") end
  -- ipairs returns three values: function, table, 0
  local f, st, init = ipairs(t)
  eq(st, t, "ipairs state")
  eq(init, 0, "ipairs initial")
  local i1, v1 = f(t, 0)
  eq(i1, 1, "first index")
  eq(v1, 1, "first value")
  eq(f(t, 3), nil, "ipairs iterator stops")
end

-- ipairs respects __index (Lua 5.4)
do
  local proxy = setmetatable({}, {__index = function(_, i) if i <= 4 then return i * 100 end end})
  local s = 0
  for i, v in ipairs(proxy) do s = s + v end
  eq(s, 1000, "ipairs uses __index")
end

-- ipairs with a table changed during the traversal
do
  local t = {1, 2, 3}
  local n = 0
  for i, v in ipairs(t) do
    n = n + 1
    if i == 2 then t[4] = 4 end
  end
  eq(n, 4, "ipairs sees appended element")
end

-- pairs visits every key exactly once (order unspecified)
do
  local t = {10, 20, 30, a = 1, b = 2, [1.5] = 3, [true] = 4}
  local count, sumv = 0, 0
  local seen = {}
  for k, v in pairs(t) do
    assert(not seen[k], "key visited twice")
    seen[k] = true
    count = count + 1
    sumv = sumv + v
  end
  eq(count, 7, "pairs count")
  eq(sumv, 70, "pairs sum")
end

-- pairs allows clearing fields during traversal
do
  local t = {}
  for i = 1, 100 do t["k" .. i] = i end
  for k in pairs(t) do t[k] = nil end
  eq(next(t), nil, "all cleared")
end

-- modifying values of existing keys during traversal is allowed
do
  local t = {a = 1, b = 2, c = 3}
  for k, v in pairs(t) do t[k] = v * 10 end
  eq(t.a + t.b + t.c, 60, "values updated")
end

-- nested generic loops
do
  local m = {{1, 2}, {3, 4}, {5, 6}}
  local s = 0
  for _, row in ipairs(m) do
    for _, v in ipairs(row) do s = s + v end
  end
  eq(s, 21, "nested ipairs")
end

-- the control variable is a fresh local per iteration
do
  local fs = {}
  for i, v in ipairs({"x", "y"}) do fs[i] = function() return i .. v end end
  eq(fs[1]() .. fs[2](), "1x2y", "fresh per iteration")
end

-- iterator errors propagate
do
  local ok, e = pcall(function()
    for _ in function() error("iter fail", 0) end do end
  end)
  eq(e, "iter fail", "iterator error")
end

-- calling a non-function iterator uses __call
do
  local it = setmetatable({n = 0}, {__call = function(self)
    self.n = self.n + 1
    if self.n <= 2 then return self.n end
  end})
  local s = 0
  for v in it do s = s + v end
  eq(s, 3, "callable iterator")
end

return "OK"
