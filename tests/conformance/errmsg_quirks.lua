-- Error-message details specific to the reference implementation (Lua 5.4.4).
-- Kept apart from errmsg.lua because these annotations are odd corners.
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

-- constant integer keys are described as 'integer index'
eq(errof(function() local t = {} t[1]() end), "errmsg_quirks.lua:15: attempt to call a nil value (field 'integer index')", "call t[1]")
eq(errof(function() local t = {} return t[1][2] end), "errmsg_quirks.lua:16: attempt to index a nil value (field 'integer index')", "index t[1]")
eq(errof(function() local t = {} t[1][2] = 3 end), "errmsg_quirks.lua:17: attempt to index a nil value (field 'integer index')", "assign t[1][2]")
-- non-constant keys are '?'
eq(errof(function() local a = {}; local k = "key"; return a[k].z end), "errmsg_quirks.lua:19: attempt to index a nil value (field '?')", "variable key")
-- a nil generic-for iterator
eq(errof(function() for i in nil do end end), "errmsg_quirks.lua:21: attempt to call a nil value (for iterator 'for iterator')", "nil iterator")
-- string constants
eq(errof(function() return ("x")() end), "errmsg_quirks.lua:23: attempt to call a string value (constant 'x')", "call string constant")
eq(errof(function() return "3" | 0 end), "errmsg_quirks.lua:24: attempt to perform bitwise operation on a string value (constant '3')", "bitwise string constant")
-- a field of a field
eq(errof(function() local t = {x = 1.5} return t.x | 0 end), "errmsg_quirks.lua:26: number (field 'x') has no integer representation", "field without integer repr")
-- upvalue arithmetic
local up = {}
eq(errof(function() return up + 1 end), "errmsg_quirks.lua:29: attempt to perform arithmetic on a table value (upvalue 'up')", "upvalue arith")
-- global function call through _ENV field
eq(errof(function() local _ENV = {} return x() end), "errmsg_quirks.lua:31: attempt to call a nil value (global 'x')", "local _ENV still says global")
eq(errof(function() local env = {} return env.x() end), "errmsg_quirks.lua:32: attempt to call a nil value (field 'x')", "other table says field")
-- pairs(nil) succeeds in 5.4.4 (returns next, nil, nil); the loop then fails
eq(errof(function() for k in pairs(nil) do end end), "errmsg_quirks.lua:34: bad argument #1 to 'for iterator' (table expected, got nil)", "pairs(nil)")
-- library functions are named with their table
eq(errof(function() return coroutine.resume(1) end), "errmsg_quirks.lua:36: bad argument #1 to 'resume' (thread expected, got number)", "coroutine.resume(1)")

return "OK"
