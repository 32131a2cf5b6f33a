-- Arithmetic metamethods: __add __sub __mul __div __mod __pow __unm __idiv
-- __band __bor __bxor __shl __shr __bnot __concat __len.
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
local function describe(x)
  if type(x) == "table" then return "T" .. (rawget(x, "id") or "?") end
  return tostring(x)
end

-- Workaround for the reference interpreter (Debian lua5.4 5.4.4): a __concat
-- metamethod running while the Lua stack gets reallocated (grown, or shrunk by
-- the GC) corrupts the concatenation or crashes. Pre-grow the stack and stop
-- the collector while __concat is exercised. (Harmless for other VMs.)
collectgarbage("stop")
local function grow(n) if n > 0 then return grow(n - 1) + 1 end return 0 end
grow(500)

local mt = {}
local names = {"add", "sub", "mul", "div", "mod", "pow", "unm", "idiv",
  "band", "bor", "bxor", "shl", "shr", "bnot", "concat", "len"}
for _, n in ipairs(names) do
  mt["__" .. n] = function(a, b)
    return n .. "(" .. describe(a) .. "," .. describe(b) .. ")"
  end
end
local A = setmetatable({id = "A"}, mt)
local B = setmetatable({id = "B"}, mt)

eq(A + 1, "add(TA,1)", "__add")
eq(1 + A, "add(1,TA)", "__add right")
eq(A - B, "sub(TA,TB)", "__sub")
eq(A * 2.5, "mul(TA,2.5)", "__mul")
eq(A / 0, "div(TA,0)", "__div")
eq(A % 3, "mod(TA,3)", "__mod")
eq(2 ^ A, "pow(2,TA)", "__pow")
eq(-A, "unm(TA,TA)", "__unm gets the operand twice")
eq(A // B, "idiv(TA,TB)", "__idiv")
eq(A & 1, "band(TA,1)", "__band")
eq(A | 1, "bor(TA,1)", "__bor")
eq(A ~ 1, "bxor(TA,1)", "__bxor")
eq(A << 1, "shl(TA,1)", "__shl")
eq(A >> 1, "shr(TA,1)", "__shr")
eq(~A, "bnot(TA,TA)", "__bnot gets the operand twice")
eq(A .. "x", "concat(TA,x)", "__concat")
eq("x" .. A, "concat(x,TA)", "__concat right")
eq(#A, "len(TA,TA)", "__len")
eq(A .. B, "concat(TA,TB)", "__concat two tables")

-- the first operand's metamethod wins
do
  local m1 = {__add = function() return "first" end}
  local m2 = {__add = function() return "second" end}
  local x, y = setmetatable({}, m1), setmetatable({}, m2)
  eq(x + y, "first", "left metamethod first")
  eq(y + x, "second", "left metamethod first (swapped)")
  eq({} + y, "second", "falls back to right operand")
end

-- strings/numbers with a table: metamethod receives original operands
eq("10" + A, "add(10,TA)", "string operand passed unchanged")
eq(A + "10", "add(TA,10)", "string operand passed unchanged (right)")

-- concat chains are evaluated right to left; runs of strings/numbers at the
-- right end are joined before a metamethod sees them
eq("a" .. "b" .. A, "aconcat(b,TA)", "right pair first")
eq(A .. "a" .. "b", "concat(TA,ab)", "right string run joined first")
eq("a" .. A .. "b", "aconcat(TA,b)", "right to left")
eq("a" .. "b" .. A .. "c" .. "d", "abconcat(TA,cd)", "longer chain")
eq(1 .. A, "concat(1,TA)", "number left operand of __concat")

-- results can be any type and can chain
do
  local Vec = {}
  Vec.__index = Vec
  local function vec(x, y) return setmetatable({x = x, y = y}, Vec) end
  Vec.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
  Vec.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
  Vec.__mul = function(a, b)
    if type(a) == "number" then return vec(a * b.x, a * b.y) end
    if type(b) == "number" then return vec(a.x * b, a.y * b) end
    return a.x * b.x + a.y * b.y
  end
  Vec.__unm = function(a) return vec(-a.x, -a.y) end
  Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
  Vec.__len = function(a) return (a.x * a.x + a.y * a.y) ^ 0.5 end
  Vec.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
  Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
  local v = vec(1, 2) + vec(3, 4) * 2 - -vec(1, 1)
  eq(tostring(v), "(8,11)", "vector expression")
  eq(vec(1, 2) * vec(3, 4), 11, "dot product")
  eq(#vec(3, 4), 5.0, "__len returning float")
  assert(vec(1, 2) == vec(1, 2), "__eq on vectors")
  eq(vec(1, 2) .. vec(3, 4), "(1,2)(3,4)", "__concat on vectors")
  eq(vec(1, 2) .. "!", "(1,2)!", "__concat with string")
end

-- __len is used even for tables; absent -> primitive length; multiple returns truncated
do
  local t = setmetatable({1, 2, 3}, {__len = function() return 42, 43 end})
  eq(#t, 42, "__len overrides")
  eq(rawlen(t), 3, "rawlen ignores __len")
  local u = setmetatable({1, 2}, {})
  eq(#u, 2, "no __len")
end

-- metamethods are looked up raw in the metatable (no __index on metatable)
do
  local base = {__add = function() return "base" end}
  local meta = setmetatable({}, {__index = base})
  local o = setmetatable({}, meta)
  eq(errof(function() return o + 1 end), "arith_meta.lua:119: attempt to perform arithmetic on a table value (upvalue 'o')", "mm lookup is raw")
end

-- metamethod can be a callable table
do
  local callable = setmetatable({}, {__call = function(self, a, b) return "called" end})
  local o = setmetatable({}, {__add = callable})
  eq(o + 1, "called", "callable table as metamethod")
end

-- errors without metamethods
eq(errof(function(x) return x + 1 end, {}), "arith_meta.lua:130: attempt to perform arithmetic on a table value (local 'x')", "table + 1")
eq(errof(function(x) return -x end, {}), "arith_meta.lua:131: attempt to perform arithmetic on a table value (local 'x')", "-table")
eq(errof(function(x) return #x end, 5), "arith_meta.lua:132: attempt to get length of a number value (local 'x')", "#number")
eq(errof(function(x) return x .. "" end, {}), "arith_meta.lua:133: attempt to concatenate a table value (local 'x')", "concat table")
eq(errof(function(x) return 1 + x end, true), "arith_meta.lua:134: attempt to perform arithmetic on a boolean value (local 'x')", "1 + true")

-- metamethod errors propagate
do
  local o = setmetatable({}, {__add = function() error("boom", 0) end})
  eq(errof(function() return o + 1 end), "boom", "error in metamethod")
end

collectgarbage("restart")
return "OK"
