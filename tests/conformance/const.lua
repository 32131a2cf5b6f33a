-- <const> local variables: compile-time constant semantics.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

local N <const> = 10
local S <const> = "str"
local F <const> = 1.5
local B <const> = true
local NIL <const> = nil
local T <const> = {1, 2}

eq(N * 2, 20, "const int")
eq(S .. "!", "str!", "const string")
eq(F + F, 3.0, "const float")
eq(B, true, "const bool")
eq(NIL, nil, "const nil")
eq(#T, 2, "const table")

-- the table itself is mutable; only the variable is constant
T[3] = 3
eq(#T, 3, "const table contents mutable")

-- constants captured in closures
local function getN() return N end
eq(getN(), 10, "const captured")
local function mk()
  local k <const> = {}
  return function() return k end
end
local f1, f2 = mk(), mk()
assert(f1() ~= f2(), "non-constant-expression const is a fresh value each time")
assert(f1() == f1(), "same closure same value")

-- constant folding of const in expressions, in loops
local total = 0
for i = 1, N do total = total + N end
eq(total, 100, "const in loop")
local LIMIT <const> = 2 ^ 10
eq(LIMIT, 1024.0, "folded pow")
local MASK <const> = 0xFF
eq(0x1234 & MASK, 0x34, "const bitwise")

-- assignment is a compile-time error
local function compile(src)
  local fn, msg = load(src)
  return msg
end
eq(compile("local x <const> = 1; x = 2"),
  [[[string "local x <const> = 1; x = 2"]:1: attempt to assign to const variable 'x']], "assign const")
eq(compile("local x <const> = 1\nlocal function f() x = 2 end"),
  [[[string "local x <const> = 1..."]:2: attempt to assign to const variable 'x']], "assign const upvalue")
eq(compile("local a, b <const> = 1, 2; a = 3; b = 4"),
  [[[string "local a, b <const> = 1, 2; a = 3; b = 4"]:1: attempt to assign to const variable 'b']], "only b is const")
eq(compile("local x <foo> = 1"), [[[string "local x <foo> = 1"]:1: unknown attribute 'foo']], "unknown attribute")
eq(compile("local x <const> = 1; for x = 1, 2 do x = 3 end"), nil, "loop variable shadows const")
eq(compile("local x <const> = 1; do local x = 2; x = 3 end"), nil, "shadowing local is assignable")

-- const shadowing
do
  local v <const> = 1
  do
    local v = 2
    v = v + 1
    eq(v, 3, "inner shadow")
  end
  eq(v, 1, "outer const unchanged")
end

-- multiple assignment with const values in expressions
local A <const>, Bv <const> = 3, 4
local hyp = (A * A + Bv * Bv) ^ 0.5
eq(hyp, 5.0, "pythagoras with consts")

-- const as upvalue in nested functions at several depths
local function outer()
  local C <const> = "c"
  return function()
    return function() return C .. S end
  end
end
eq(outer()()(), "cstr", "nested const upvalues")

return "OK"
