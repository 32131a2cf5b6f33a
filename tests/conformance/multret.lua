-- Multiple results and adjustment rules.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function count(...) return select("#", ...) end
local function none() end
local function one() return 1 end
local function two() return 1, 2 end
local function three() return 1, 2, 3 end

-- assignment adjusts
do
  local a, b, c = three()
  eq(c, 3, "all three")
  local x, y = three()
  eq(y, 2, "truncated")
  local p, q, r, s = two()
  eq(r, nil, "padded r")
  eq(s, nil, "padded s")
  local u, v, w = two(), 10
  eq(u, 1, "truncated in middle")
  eq(v, 10, "next value")
  eq(w, nil, "padded")
  local m, n = none()
  eq(m, nil, "none -> nil")
  local e1, e2, e3 = 5, three()
  eq(e2, 1, "expanded at end e2")
  eq(e3, 2, "expanded at end e3")
end

-- multiple assignment evaluates all expressions before assigning
do
  local a, b = 1, 2
  a, b = b, a
  eq(a, 2, "swap a")
  eq(b, 1, "swap b")
  local t = {1, 2}
  local i = 1
  i, t[i] = i + 1, 20
  eq(i, 2, "i updated")
  eq(t[1], 20, "t[1] uses the old i")
  eq(t[2], 2, "t[2] unchanged")
end

-- call arguments
eq(count(none()), 0, "none")
eq(count(none(), none()), 1, "none in middle becomes nil")
eq(count(three(), three()), 4, "three in middle -> 1")
eq(count((three())), 1, "parenthesized")
eq(count(three(), (three())), 2, "parenthesized at end")

-- return adjusts
local function ret_all() return three() end
local function ret_paren() return (three()) end
local function ret_mid() return three(), 10 end
eq(count(ret_all()), 3, "return f()")
eq(count(ret_paren()), 1, "return (f())")
eq(count(ret_mid()), 2, "return f(), x")

-- table constructors
do
  local t = {three()}
  eq(#t, 3, "{f()}")
  t = {three(), three()}
  eq(#t, 4, "{f(), f()}")
  t = {three(), x = 1}
  eq(#t, 1, "{f(), x=1}: not last positional -> truncated")
  t = {x = 1, three()}
  eq(#t, 3, "{x=1, f()}: last field expands")
  t = {(three())}
  eq(#t, 1, "{(f())}")
  t = {none(), none()}
  eq(t[1], nil, "none in constructor middle")
end

-- expressions always take the first value
eq(three() + 10, 11, "arith uses first")
eq(two() .. "", "1", "concat uses first")
eq(-three(), -1, "unary uses first")
do
  local t = {}
  t[two()] = "k"
  eq(t[1], "k", "index uses first")
end
eq(none() == nil, true, "no value is nil in expressions")

-- string method-style call results
do
  local obj = {}
  function obj:vals() return self, "a", "b" end
  local s, a, b = obj:vals()
  eq(s, obj, "self returned")
  eq(b, "b", "method multiple results")
end

-- pcall returns multiple results
do
  local r = {pcall(three)}
  eq(#r, 4, "pcall + 3 results")
  eq(r[1], true, "status")
  eq(r[4], 3, "last")
end

-- recursion building results
do
  local function range(i, n) if i > n then return end return i, range(i + 1, n) end
  eq(count(range(1, 100)), 100, "100 results through recursion")
  local t = {range(1, 250)}
  eq(#t, 250, "250 results into a table")
  eq(t[250], 250, "last of 250")
end

-- many return values from a vararg function
do
  local function id(...) return ... end
  local function build(n) local t = {} for i = 1, n do t[i] = i end return t end
  local function unpack(t, i) i = i or 1 if i <= #t then return t[i], unpack(t, i + 1) end end
  local big = build(500)
  eq(count(id(unpack(big))), 500, "500 values through id")
end

-- select on multiple results
eq(select("#", three()), 3, "select # of call")
eq(select(2, three()), 2, "select 2 of call")

-- nil padding in locals
do
  local a, b, c
  eq(a, nil, "a nil")
  eq(c, nil, "c nil")
  local x, y = 1
  eq(y, nil, "y padded")
end

return "OK"
