-- The length operator: strings, sequences, borders, __len, rawlen.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
-- a border: (n == 0 or t[n] ~= nil) and t[n + 1] == nil
local function isborder(t, n)
  return (n == 0 or rawget(t, n) ~= nil) and rawget(t, n + 1) == nil
end

-- strings
eq(#"", 0, "empty string")
eq(#"abc", 3, "abc")
eq(#"a\0b", 3, "embedded zero")
eq(#"\u{10FFFF}", 4, "utf8 bytes")
eq(#[[
x]], 1, "long string skips first newline")

-- sequences
eq(#{}, 0, "empty table")
eq(#{1, 2, 3}, 3, "constructor")
eq(#{nil}, 0, "{nil}")
eq(#{n = 1}, 0, "hash only")
do
  local t = {}
  for i = 1, 100 do t[i] = i end
  eq(#t, 100, "filled with loop")
  t[#t + 1] = 101
  eq(#t, 101, "append")
  t[#t] = nil
  eq(#t, 100, "remove last")
  for i = 100, 51, -1 do t[i] = nil end
  eq(#t, 50, "shrink")
  for i = 50, 1, -1 do t[i] = nil end
  eq(#t, 0, "emptied")
end

-- sequences built in the hash part (reverse order, non-constructor)
do
  local t = {}
  for i = 10, 1, -1 do t[i] = i end
  eq(#t, 10, "filled backwards")
  local u = {}
  u[3] = 3 u[1] = 1 u[2] = 2
  eq(#u, 3, "out of order")
  local w = {[1] = "a", [2] = "b", [3] = "c"}
  eq(#w, 3, "keyed constructor")
end

-- float integral keys count
do
  local t = {}
  t[1.0] = 1 t[2.0] = 2
  eq(#t, 2, "float keys normalised")
end

-- tables with holes: any border is acceptable
do
  local cases = {
    {1, nil, 3},
    {1, 2, nil},
    {nil, nil, 3},
    {1, nil, 3, nil, 5, nil},
  }
  for i, t in ipairs(cases) do
    assert(isborder(t, #t), "case " .. i .. ": #t = " .. #t .. " is a border")
  end
  local t = {}
  t[1] = 1 t[2] = 2 t[4] = 4
  assert(isborder(t, #t), "hash hole border")
  local big = {}
  for i = 1, 1000 do big[i] = i end
  big[500] = nil
  assert(isborder(big, #big), "big hole border")
end

-- __len
do
  local t = setmetatable({1, 2, 3}, {__len = function(self) return 10 end})
  eq(#t, 10, "__len")
  eq(rawlen(t), 3, "rawlen")
  local s = setmetatable({}, {__len = function() return "not a number" end})
  eq(#s, "not a number", "__len result unchecked")
  eq(rawlen("abcd"), 4, "rawlen string")
end

-- rawlen errors
do
  local ok, e = pcall(rawlen, 5)
  eq(e, "bad argument #1 to 'rawlen' (table or string expected, got number)", "rawlen(5)")
end

-- length of a string built by concatenation
do
  local s = ""
  for i = 1, 1000 do s = s .. "x" end
  eq(#s, 1000, "1000 chars")
  local t = s .. s
  eq(#t, 2000, "doubled")
end

-- # has higher precedence than binary operators, lower than ^
eq(#"abc" + 1, 4, "# before +")
eq(-#"ab", -2, "unary combination")
eq(#"abc" .. "", "3", "# before ..")

-- length used in loops
do
  local t = {"a", "b", "c", "d"}
  local out = ""
  for i = #t, 1, -1 do out = out .. t[i] end
  eq(out, "dcba", "reverse via #")
end

return "OK"
