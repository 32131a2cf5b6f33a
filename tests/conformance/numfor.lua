-- Numeric for loops: integer and float loops, steps, overflow edges, errors.
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
local function mtype(x)
  if tostring(x) == tostring(x * 1.0) then return "float" end
  return "integer"
end
local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1

local function count(a, b, c)
  local n = 0
  if c then
    for _ = a, b, c do n = n + 1 end
  else
    for _ = a, b do n = n + 1 end
  end
  return n
end

eq(count(1, 10), 10, "1..10")
eq(count(1, 1), 1, "1..1")
eq(count(1, 0), 0, "empty")
eq(count(10, 1, -1), 10, "downward")
eq(count(1, 10, 3), 4, "step 3: 1 4 7 10")
eq(count(1, 10, 20), 1, "step larger than range")
eq(count(-5, 5), 11, "negative start")

-- values visited
do
  local s = ""
  for i = 10, 1, -3 do s = s .. i .. " " end
  eq(s, "10 7 4 1 ", "10,1,-3")
  s = ""
  for i = 1, 2, 0.5 do s = s .. i .. " " end
  eq(s, "1.0 1.5 2.0 ", "float step values")
  s = ""
  for i = 1.0, 3 do s = s .. i .. " " end
  eq(s, "1.0 2.0 3.0 ", "float start")
end

-- float loops accumulate by repeated addition
eq(count(0.1, 1.0, 0.1), 10, "0.1 .. 1.0 step 0.1")
eq(count(1, 0, -0.25), 5, "1 .. 0 step -0.25")
eq(count(-3.5, 3), 7, "float start, int limit")

-- float limits with integer loops are floored/ceiled
eq(count(1, 3.7), 3, "limit 3.7")
eq(count(1, 0.5), 0, "limit 0.5")
eq(count(3, 1.5, -1), 2, "downward limit 1.5: 3, 2")
eq(count(1, -1 / 0), 0, "limit -inf")
eq(count(1, 0 / 0), 0, "limit nan")
do
  local n = 0
  for i = 1, 1 / 0 do n = n + 1 if n == 5 then break end end
  eq(n, 5, "limit inf with break")
  local last
  for i = 1, 3.9 do last = i end
  eq(mtype(last), "integer", "loop var stays integer with float limit")
end

-- overflow edges: loops must not wrap around
eq(count(maxi - 2, maxi), 3, "up to maxint")
eq(count(maxi, maxi), 1, "maxint..maxint")
eq(count(mini, mini + 2), 3, "from minint")
eq(count(mini + 2, mini, -1), 3, "down to minint")
eq(count(mini, mini, -1), 1, "minint..minint step -1")
eq(count(maxi - 1, 1e100), 2, "float limit beyond maxint is clipped")
eq(count(mini + 1, -1e100, -1), 2, "float limit below minint is clipped")
eq(count(1, maxi, maxi // 2 + 1), 2, "huge step")
eq(count(-1, mini, -(maxi // 2 + 1)), 2, "huge negative step")
eq(count(0, maxi, maxi), 2, "step maxint")
eq(count(maxi, 0, -maxi), 2, "step -maxint")
eq(count(mini, maxi, maxi), 3, "min to max by max")
eq(count(1, 0, mini), 1, "step minint")
do
  local vals = ""
  for i = maxi - 2, maxi do vals = vals .. i .. ";" end
  eq(vals, "9223372036854775805;9223372036854775806;9223372036854775807;", "values near maxint")
end

-- modifying the control variable does not affect the iteration
do
  local n, s = 0, 0
  for i = 1, 3 do
    i = i * 10
    s = s + i
    n = n + 1
  end
  eq(n, 3, "three iterations")
  eq(s, 60, "modified copies")
end

-- limit and step are evaluated once
do
  local evals = 0
  local function lim() evals = evals + 1 return 5 end
  local n = 0
  for i = 1, lim() do n = n + 1 end
  eq(evals, 1, "limit evaluated once")
  eq(n, 5, "five iterations")
end

-- errors
eq(errof(function() for i = 1, 10, 0 do end end), "numfor.lua:113: 'for' step is zero", "int step zero")
eq(errof(function() for i = 1.0, 10, 0.0 do end end), "numfor.lua:114: 'for' step is zero", "float step zero")
eq(errof(function() for i = 1, 10, 0.0 do end end), "numfor.lua:115: 'for' step is zero", "mixed step zero")
eq(errof(function() for i = "x", 2 do end end), "numfor.lua:116: bad 'for' initial value (number expected, got string)", "string init")
eq(errof(function() for i = 1, {} do end end), "numfor.lua:117: bad 'for' limit (number expected, got table)", "table limit")
eq(errof(function() for i = 1, 2, true do end end), "numfor.lua:118: bad 'for' step (number expected, got boolean)", "boolean step")
eq(errof(function() for i = nil, 2 do end end), "numfor.lua:119: bad 'for' initial value (number expected, got nil)", "nil init")

-- nested loops and break
do
  local pairs_count = 0
  for i = 1, 10 do
    for j = i, 10 do
      if j - i > 3 then break end
      pairs_count = pairs_count + 1
    end
  end
  eq(pairs_count, 34, "nested with break")
end

-- loop variable is local to the loop
do
  local i = "outer"
  for i = 1, 2 do end
  eq(i, "outer", "loop var does not leak")
end

-- big loop
do
  local s = 0
  for i = 1, 100000 do s = s + i end
  eq(s, 5000050000, "sum 1e5")
  local f = 0.0
  for i = 1, 1000 do f = f + 0.5 end
  eq(f, 500.0, "float accumulate")
end

return "OK"
