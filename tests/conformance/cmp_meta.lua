-- Comparison metamethods: __eq, __lt, __le.
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
local V = {}
V.__eq = function(a, b) log = log .. "eq;" return a.v == b.v end
V.__lt = function(a, b)
  log = log .. "lt;"
  local x = type(a) == "table" and a.v or a
  local y = type(b) == "table" and b.v or b
  return x < y
end
V.__le = function(a, b)
  log = log .. "le;"
  local x = type(a) == "table" and a.v or a
  local y = type(b) == "table" and b.v or b
  return x <= y
end
local function new(v) return setmetatable({v = v}, V) end

local a, b, c = new(1), new(2), new(1)

-- __eq
assert(a == c, "a == c via __eq")
assert(a ~= b, "a ~= b via __eq")
eq(log, "eq;eq;", "__eq called twice")
log = ""
assert(a == a, "identical objects are equal")
eq(log, "", "__eq not called for identical objects")
assert(a ~= 1, "table vs number never equal")
assert(a ~= "x", "table vs string never equal")
eq(log, "", "__eq not called for different types")

-- __eq from the second operand is used if the first has none
do
  local plain = {}
  local called = false
  local o = setmetatable({}, {__eq = function(x, y) called = true return true end})
  assert(plain == o, "second operand __eq")
  assert(called, "second operand __eq called")
  called = false
  assert(o == plain, "first operand __eq")
  assert(called, "first operand __eq called")
end

-- __eq result converted to boolean
do
  local mt = {__eq = function() return "yes" end}
  local x, y = setmetatable({}, mt), setmetatable({}, mt)
  eq(x == y, true, "__eq result truthy -> true")
  eq(x ~= y, false, "~= negates")
  mt.__eq = function() return nil end
  eq(x == y, false, "__eq nil -> false")
  mt.__eq = function() return 0 end
  eq(x == y, true, "__eq 0 -> true")
end

-- rawequal ignores __eq
assert(not rawequal(a, c), "rawequal ignores __eq")
assert(rawequal(a, a), "rawequal same")

-- __lt / __le
log = ""
assert(a < b, "a < b")
assert(not (b < a), "not b < a")
assert(b > a, "b > a swaps to a < b")
eq(log, "lt;lt;lt;", "__lt called three times")
log = ""
assert(a <= c, "a <= c")
assert(b >= a, "b >= a")
assert(not (b <= a), "not b <= a")
eq(log, "le;le;le;", "__le calls")

-- mixed operand types go to the metamethod
log = ""
assert(a < 5, "table < number")
assert(0 < a, "number < table")
assert(a <= 1, "table <= number")
assert(1 >= a, "number >= table")
eq(log, "lt;lt;le;le;", "mixed type calls")

-- result converted to boolean
do
  local mt = {__lt = function() return 1 end, __le = function() return false end}
  local x, y = setmetatable({}, mt), setmetatable({}, mt)
  eq(x < y, true, "__lt truthy -> true")
  eq(x <= y, false, "__le false")
  eq(x > y, true, "__gt via __lt")
end

-- note: whether __le falls back to "not __lt(b, a)" depends on LUA_COMPAT_LT_LE
-- (Debian's lua5.4 has it); this file does not test that case.

-- errors without metamethods
eq(errof(function() return {} < {} end), "cmp_meta.lua:104: attempt to compare two table values", "table < table")
eq(errof(function(x) return x < 1 end, nil), "cmp_meta.lua:105: attempt to compare nil with number", "nil < number")
eq(errof(function(x) return 1 < x end, nil), "cmp_meta.lua:106: attempt to compare number with nil", "number < nil")
eq(errof(function(x) return x <= "a" end, {}), "cmp_meta.lua:107: attempt to compare table with string", "table <= string")
eq(errof(function(x) return x > 1 end, "2"), "cmp_meta.lua:108: attempt to compare number with string", "'2' > 1 is 1 < '2'")
eq(errof(function(x, y) return x < y end, true, false), "cmp_meta.lua:109: attempt to compare two boolean values", "bool < bool")

-- strings compare lexicographically, numbers numerically, with no metamethods
assert("a" < "b" and "abc" < "abd" and "" < "a" and "Z" < "a", "string ordering")
assert("a\0b" < "a\0c", "embedded zeros")
assert(not ("a" < "a") and "a" <= "a", "string equal ordering")

-- sort using __lt (insertion sort written here)
do
  local items = {}
  local vals = {5, 3, 9, 1, 7, 2, 8}
  for i = 1, #vals do items[i] = new(vals[i]) end
  for i = 2, #items do
    local x = items[i]
    local j = i - 1
    while j >= 1 and x < items[j] do
      items[j + 1] = items[j]
      j = j - 1
    end
    items[j + 1] = x
  end
  local s = ""
  for i = 1, #items do s = s .. items[i].v end
  eq(s, "1235789", "sorted via __lt")
end

return "OK"
