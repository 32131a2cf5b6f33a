-- Table constructors: positional, named, keyed, mixed, trailing varargs/calls,
-- more than 50 items (several SETLIST batches), nesting, separators.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end

do
  local t = {1, 2, 3}
  eq(t[1] + t[2] + t[3], 6, "positional")
  local n = {x = 1, y = 2}
  eq(n.x + n.y, 3, "named")
  local k = {["a b"] = 1, [10] = 2, [2.5] = 3, [true] = 4}
  eq(k["a b"], 1, "keyed string")
  eq(k[10], 2, "keyed int")
  eq(k[2.5], 3, "keyed float")
  eq(k[true], 4, "keyed bool")
end

-- mixed, with ; separators and trailing separator
do
  local t = {1, x = "x"; 2, [10] = 10; 3,}
  eq(t[1], 1, "mixed 1")
  eq(t[2], 2, "mixed 2")
  eq(t[3], 3, "mixed 3")
  eq(t.x, "x", "mixed x")
  eq(t[10], 10, "mixed 10")
  eq(count(t), 5, "mixed count")
end

-- positional items override keyed items with the same index
do
  -- (the order of assignments in a constructor is undefined; both are valid)
  local t = {[1] = "keyed", "positional"}
  assert(t[1] == "positional" or t[1] == "keyed", "either is allowed")
  local u = {"positional", [1] = "keyed"}
  -- order of evaluation: implementation assigns positional items at the end of batches
  assert(u[1] == "positional" or u[1] == "keyed", "either is allowed")
end

-- duplicated keys: the last one wins
do
  local t = {x = 1, x = 2}
  eq(t.x, 2, "last named wins")
end

-- nil values
do
  local t = {nil, nil, 3}
  eq(t[3], 3, "nil placeholders")
  local u = {x = nil}
  eq(next(u), nil, "named nil not stored")
end

-- expressions are evaluated left to right
do
  local log = ""
  local function f(s) log = log .. s return s end
  local t = {f("a"), f("b"), k = f("c"), f("d")}
  eq(log, "abcd", "evaluation order")
end

-- trailing function call / varargs expand
do
  local function three() return 1, 2, 3 end
  eq(#{three()}, 3, "trailing call expands")
  eq(#{three(), three()}, 4, "only last expands")
  eq(#{(three())}, 1, "parenthesized truncates")
  local function va(...) return {...} end
  eq(#va(1, 2, 3, 4), 4, "trailing varargs")
  local function va2(...) return {..., 0} end
  eq(#va2(1, 2, 3), 2, "varargs not last truncated")
  local function many(n) if n > 0 then return n, many(n - 1) end end
  local t = {"first", many(100)}
  eq(#t, 101, "trailing call with 100 results")
  eq(t[101], 1, "last of trailing results")
end

-- more than 50 positional items (SETLIST batches of 50)
do
  local t = {
     1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
    61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
    81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100,
    101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120,
  }
  eq(#t, 120, "120 items")
  local s = 0
  for i = 1, #t do
    eq(t[i], i, "item " .. i)
    s = s + t[i]
  end
  eq(s, 7260, "sum 1..120")
end

-- 50+ items mixed with named fields and a trailing call
do
  local function tail() return "x", "y" end
  local t = {
    a = 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, b = 2, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, c = 3, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, d = 4, tail()
  }
  eq(#t, 57, "55 items + 2 from the call")
  eq(t[55], 55, "item 55")
  eq(t[56], "x", "call result 1")
  eq(t[57], "y", "call result 2")
  eq(t.a + t.b + t.c + t.d, 10, "named fields")
end

-- huge constructor from a generated chunk
do
  local src = "return {"
  for i = 1, 1000 do src = src .. i .. "," end
  src = src .. "}"
  local t = load(src)()
  eq(#t, 1000, "1000-element constructor")
  eq(t[777], 777, "element 777")
end

-- nesting
do
  local t = {{1, {2, {3, {4}}}}, x = {y = {z = "deep"}}}
  eq(t[1][2][2][2][1], 4, "nested positional")
  eq(t.x.y.z, "deep", "nested named")
  local m = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
  eq(m[2][3] + m[3][1], 13, "matrix")
end

-- functions and method definitions in constructors
do
  local obj = {
    value = 5,
    get = function(self) return self.value end,
    [1] = function() return "one" end,
  }
  eq(obj:get(), 5, "method in constructor")
  eq(obj[1](), "one", "function at index 1")
end

-- each evaluation creates a new table
do
  local function mk() return {} end
  assert(mk() ~= mk(), "fresh tables")
end

-- keys computed from expressions
do
  local base = 10
  local t = {[base + 1] = "eleven", ["k" .. base] = "k10", [base * 1.0] = "ten"}
  eq(t[11], "eleven", "computed int key")
  eq(t.k10, "k10", "computed string key")
  eq(t[10], "ten", "float key normalised")
end

-- nil/NaN keys in constructors are errors
do
  local ok, e = pcall(function() local k; return {[k] = 1} end)
  eq(ok, false, "nil key in constructor")
  eq(e, "constructors.lua:" .. (164 - 2) .. ": table index is nil", "nil key message")
  ok, e = pcall(function() return {[0 / 0] = 1} end)
  eq(e, "constructors.lua:" .. (166 - 1) .. ": table index is NaN", "nan key message")
end

return "OK"
