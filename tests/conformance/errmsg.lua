-- Runtime error messages, including the variable-name annotations
-- (local/global/field/upvalue/method/constant).
-- The chunk name is "errmsg.lua" (run as: cd tests/conformance && lua5.4 errmsg.lua).
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ":\n expected: " .. tostring(b) .. "\n      got: " .. tostring(a), 2)
  end
end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end
local U -- an upvalue that is nil
local T = {} -- an upvalue table

-- indexing
eq(errof(function() local x; return x.y end), "errmsg.lua:18: attempt to index a nil value (local 'x')", "local")
eq(errof(function() return undefined_global.y end), "errmsg.lua:19: attempt to index a nil value (global 'undefined_global')", "global")
eq(errof(function() local t = {} return t.a.b end), "errmsg.lua:20: attempt to index a nil value (field 'a')", "field")
eq(errof(function() return U.z end), "errmsg.lua:21: attempt to index a nil value (upvalue 'U')", "upvalue")
eq(errof(function() return T.a.b end), "errmsg.lua:22: attempt to index a nil value (field 'a')", "field of upvalue")
eq(errof(function() local t = {{}} return t[1].x.y end), "errmsg.lua:23: attempt to index a nil value (field 'x')", "field after index")
eq(errof(function() local a = {b = {}}; a.b.c.d = 1 end), "errmsg.lua:24: attempt to index a nil value (field 'c')", "assignment through nil field")
eq(errof(function() undefined_global.y = 1 end), "errmsg.lua:25: attempt to index a nil value (global 'undefined_global')", "assign through nil global")
eq(errof(function() local f = 5; f.x = 1 end), "errmsg.lua:26: attempt to index a number value (local 'f')", "index number")
eq(errof(function() local b = true; return b[1] end), "errmsg.lua:27: attempt to index a boolean value (local 'b')", "index boolean")
eq(errof(function(...) local a = ...; return a.b end), "errmsg.lua:28: attempt to index a nil value (local 'a')", "local from varargs")
eq(errof(function(p) return p.x end), "errmsg.lua:29: attempt to index a nil value (local 'p')", "parameter")
eq(errof(function() local t = setmetatable({}, {__index = function() return nil end}) return t.a.b end), "errmsg.lua:30: attempt to index a nil value (field 'a')", "nil from __index")
eq(errof(function() return (nil).x end), "errmsg.lua:31: attempt to index a nil value", "parenthesized nil constant")

-- calling
eq(errof(function() local t = {} t:m() end), "errmsg.lua:34: attempt to call a nil value (method 'm')", "method")
eq(errof(function() local t = {} t.f() end), "errmsg.lua:35: attempt to call a nil value (field 'f')", "field call")
eq(errof(function() undefined_function() end), "errmsg.lua:36: attempt to call a nil value (global 'undefined_function')", "global call")
eq(errof(function() local f; f() end), "errmsg.lua:37: attempt to call a nil value (local 'f')", "local call")
eq(errof(function() U() end), "errmsg.lua:38: attempt to call a nil value (upvalue 'U')", "upvalue call")
eq(errof(function() T.x.y() end), "errmsg.lua:39: attempt to index a nil value (field 'x')", "index before call")
eq(errof(function() return coroutine.nope() end), "errmsg.lua:40: attempt to call a nil value (field 'nope')", "library field")
eq(errof(function() local t = {n = 1} t.n() end), "errmsg.lua:41: attempt to call a number value (field 'n')", "call number field")
eq(errof(function() local s = {} s.x:y() end), "errmsg.lua:42: attempt to index a nil value (field 'x')", "method on nil field")
eq(errof(function() return (1)() end), "errmsg.lua:43: attempt to call a number value", "call constant number")
eq(errof(function() local t = {} return t.x() end), "errmsg.lua:44: attempt to call a nil value (field 'x')", "return call")

-- arithmetic
eq(errof(function() local x; return x + 1 end), "errmsg.lua:47: attempt to perform arithmetic on a nil value (local 'x')", "arith local")
eq(errof(function() return undefined_global + 1 end), "errmsg.lua:48: attempt to perform arithmetic on a nil value (global 'undefined_global')", "arith global")
eq(errof(function() local t = {} return t.x * 2 end), "errmsg.lua:49: attempt to perform arithmetic on a nil value (field 'x')", "arith field")
eq(errof(function() return U - 1 end), "errmsg.lua:50: attempt to perform arithmetic on a nil value (upvalue 'U')", "arith upvalue")
eq(errof(function() local t = {x = 1} return t.x + t.y end), "errmsg.lua:51: attempt to perform arithmetic on a nil value (field 'y')", "second operand named")
eq(errof(function() local t = {} return t.x + t.y end), "errmsg.lua:52: attempt to perform arithmetic on a nil value (field 'x')", "first bad operand named")
eq(errof(function() return true + 1 end), "errmsg.lua:53: attempt to perform arithmetic on a boolean value", "arith constant boolean")
eq(errof(function() return -{} end), "errmsg.lua:54: attempt to perform arithmetic on a table value", "unm table")
eq(errof(function() local x = {}; return -x end), "errmsg.lua:55: attempt to perform arithmetic on a table value (local 'x')", "unm local table")
eq(errof(function() local x; return x // 2 end), "errmsg.lua:56: attempt to perform arithmetic on a nil value (local 'x')", "idiv nil")
eq(errof(function() local x; return 2 ^ x end), "errmsg.lua:57: attempt to perform arithmetic on a nil value (local 'x')", "pow nil")
eq(errof(function() local x; return x % 2 end), "errmsg.lua:58: attempt to perform arithmetic on a nil value (local 'x')", "mod nil")
eq(errof(function(a, b) return a / b end, 1, nil), "errmsg.lua:59: attempt to perform arithmetic on a nil value (local 'b')", "div nil param")

-- bitwise
eq(errof(function() local x; return x & 1 end), "errmsg.lua:62: attempt to perform bitwise operation on a nil value (local 'x')", "band nil")
eq(errof(function() local x = 1.5; return x | 1 end), "errmsg.lua:63: number (local 'x') has no integer representation", "float without integer representation")

-- comparison
eq(errof(function() return 1 < nil end), "errmsg.lua:66: attempt to compare number with nil", "number < nil")
eq(errof(function() local x; return x < 1 end), "errmsg.lua:67: attempt to compare nil with number", "nil < number")
eq(errof(function() return {} < {} end), "errmsg.lua:68: attempt to compare two table values", "two tables")
eq(errof(function() return "a" < 1 end), "errmsg.lua:69: attempt to compare string with number", "string < number")
eq(errof(function() return 1 >= "a" end), "errmsg.lua:70: attempt to compare string with number", ">= swaps operands")
eq(errof(function() return {} <= 1 end), "errmsg.lua:71: attempt to compare table with number", "table <= number")
eq(errof(function() local a, b = true, false; return a > b end), "errmsg.lua:72: attempt to compare two boolean values", "booleans")

-- concatenation
eq(errof(function() return "a" .. {} end), "errmsg.lua:75: attempt to concatenate a table value", "concat table constant")
eq(errof(function() local t = {} return "a" .. t end), "errmsg.lua:76: attempt to concatenate a table value (local 't')", "concat local table")
eq(errof(function() return "a" .. nil end), "errmsg.lua:77: attempt to concatenate a nil value", "concat nil")
eq(errof(function() local t = {} return "x" .. t.name end), "errmsg.lua:78: attempt to concatenate a nil value (field 'name')", "concat nil field")
eq(errof(function() local b = true; return b .. "" end), "errmsg.lua:79: attempt to concatenate a boolean value (local 'b')", "concat boolean")
eq(errof(function() return "a" .. U .. "b" end), "errmsg.lua:80: attempt to concatenate a nil value (upvalue 'U')", "concat upvalue")
eq(errof(function() return "a" .. undefined_global end), "errmsg.lua:81: attempt to concatenate a nil value (global 'undefined_global')", "concat global")

-- length
eq(errof(function() local x; return #x end), "errmsg.lua:84: attempt to get length of a nil value (local 'x')", "len local")
eq(errof(function() return #undefined_global end), "errmsg.lua:85: attempt to get length of a nil value (global 'undefined_global')", "len global")
eq(errof(function() local n = 3; return #n end), "errmsg.lua:86: attempt to get length of a number value (local 'n')", "len number")
eq(errof(function() return #T.missing end), "errmsg.lua:87: attempt to get length of a nil value (field 'missing')", "len field")

-- for loops
eq(errof(function() local t = {} for i = 1, t do end end), "errmsg.lua:90: bad 'for' limit (number expected, got table)", "for limit")
eq(errof(function() for i = 1, 10, {} do end end), "errmsg.lua:91: bad 'for' step (number expected, got table)", "for step")
eq(errof(function() for i = "a", 10 do end end), "errmsg.lua:92: bad 'for' initial value (number expected, got string)", "for init")
eq(errof(function() for i = 1, 10, 0 do end end), "errmsg.lua:93: 'for' step is zero", "for zero step")

-- table keys
eq(errof(function() local t = {} t[nil] = 1 end), "errmsg.lua:96: table index is nil", "nil key")
eq(errof(function() local t = {} t[0 / 0] = 1 end), "errmsg.lua:97: table index is NaN", "nan key")

-- integer conversions
eq(errof(function() return 1 // 0 end), "errmsg.lua:100: attempt to divide by zero", "idiv by zero")
eq(errof(function() return 1 % 0 end), "errmsg.lua:101: attempt to perform 'n%0'", "mod by zero")

-- errors inside nested functions report the innermost line
do
  local function inner(t) return t.x.y end
  local function outer() return inner({}) end
  eq(errof(outer), "errmsg.lua:" .. (107 - 2) .. ": attempt to index a nil value (field 'x')", "inner line")
end

-- multi-line expressions: the line of the failing operation
do
  local msg = errof(function()
    local t = {}
    local v = 1 +
      t.missing
    return v
  end)
  eq(msg, "errmsg.lua:" .. (118 - 4) .. ": attempt to perform arithmetic on a nil value (field 'missing')", "multi-line")
end

return "OK"
