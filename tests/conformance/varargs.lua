-- Varargs: select('#'), select(n), ... in the middle/end, pack/unpack helpers.
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
local function unpack(t, i, j)
  i = i or 1
  j = j or t.n or #t
  if i > j then return end
  return t[i], unpack(t, i + 1, j)
end

local function count(...) return select("#", ...) end
eq(count(), 0, "no args")
eq(count(nil), 1, "one nil")
eq(count(nil, nil), 2, "two nils")
eq(count(1, nil, 3, nil), 4, "trailing nil counted")

-- ... at the end expands, in the middle truncates to one value
local function three() return 1, 2, 3 end
eq(count(three()), 3, "expanded at end")
eq(count(three(), three()), 4, "middle truncated")
eq(count((three())), 1, "parentheses truncate")
eq(count(three(), nil), 2, "followed by nil")

local function mid(...) return count(..., "x") end
eq(mid(1, 2, 3), 2, "... in middle is one value")
eq(mid(), 2, "empty ... in middle is nil")
local function last(...) return count("x", ...) end
eq(last(1, 2, 3), 4, "... at end expands")
eq(last(), 1, "empty ... at end")

-- select
eq(select(2, "a", "b", "c"), "b", "select 2")
eq(count(select(2, "a", "b", "c")), 2, "select returns the rest")
eq(select(-1, "a", "b", "c"), "c", "select -1")
eq(count(select(-2, "a", "b", "c")), 2, "select -2 count")
eq(select(-3, "a", "b", "c"), "a", "select -3")
eq(count(select(4, "a", "b", "c")), 0, "select beyond")
eq(select("#"), 0, "select # empty")
eq(errof(function() return select(0, 1) end), "varargs.lua:48: bad argument #1 to 'select' (index out of range)", "select 0")
eq(errof(function() return select(-4, 1, 2, 3) end), "varargs.lua:49: bad argument #1 to 'select' (index out of range)", "select -4")

-- ... in table constructors
do
  local function tab(...) return {...} end
  local t = tab(1, 2, 3)
  eq(#t, 3, "{...}")
  local p = pack(nil, nil, 3)
  eq(p.n, 3, "pack n")
  eq(p[3], 3, "pack third")
  local function tab2(...) return {..., "end"} end
  local t2 = tab2(1, 2, 3)
  eq(#t2, 2, "{..., x} truncates ...")
  eq(t2[2], "end", "second element")
end

-- unpack helper roundtrip
do
  local p = pack(1, nil, 3, nil)
  eq(count(unpack(p)), 4, "unpack preserves n")
  local a, b, c, d = unpack(p)
  eq(a, 1, "a")
  eq(b, nil, "b")
  eq(c, 3, "c")
  eq(d, nil, "d")
end

-- varargs in main chunk-like functions through load
do
  local f = load("return select('#', ...), ...")
  local r = pack(f(10, 20))
  eq(r[1], 2, "chunk varargs count")
  eq(r[3], 20, "chunk varargs value")
end

-- assignment from ...
do
  local function f(...)
    local a, b, c = ...
    return a, b, c
  end
  local x, y, z = f(1, 2)
  eq(x, 1, "x")
  eq(y, 2, "y")
  eq(z, nil, "z")
end

-- vararg functions with fixed params
do
  local function f(a, b, ...) return a, b, select("#", ...) end
  local a, b, n = f(1)
  eq(a, 1, "fixed a")
  eq(b, nil, "fixed b missing")
  eq(n, 0, "no extra")
  a, b, n = f(1, 2, 3, 4, 5)
  eq(n, 3, "three extra")
end

-- passing ... through several levels and to tail calls
do
  local function l3(...) return select("#", ...), ... end
  local function l2(...) return l3(...) end
  local function l1(...) return l2(0, ...) end
  local r = pack(l1(nil, nil))
  eq(r[1], 3, "passed through")
  eq(r[2], 0, "prepended")
  eq(r.n, 4, "results")
end

-- many arguments
do
  local function sum(...)
    local s = 0
    for i = 1, select("#", ...) do s = s + (select(i, ...)) end
    return s
  end
  eq(sum(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 55, "sum 10")
  local t = {}
  for i = 1, 200 do t[i] = i end
  eq(sum(unpack(t, 1, 200)), 20100, "sum 200 args")
  eq(count(unpack(t, 1, 200)), 200, "200 args counted")
end

-- vararg in a closure is not allowed (compile error)
do
  local f, msg = load("function f() return ... end")
  eq(f, nil, "... outside vararg function")
  eq(msg, [[[string "function f() return ... end"]:1: cannot use '...' outside a vararg function near '...']], "message")
  f, msg = load("local function g(...) return function() return ... end end", "=chunk")
  eq(msg, "chunk:1: cannot use '...' outside a vararg function near '...'", "nested function")
end

-- ipairs-like iteration over a pack with holes
do
  local p = pack("a", nil, "c")
  local s = ""
  for i = 1, p.n do s = s .. tostring(p[i]) .. ";" end
  eq(s, "a;nil;c;", "iterate pack with holes")
end

return "OK"
