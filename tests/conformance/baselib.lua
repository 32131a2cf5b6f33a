-- Base library functions not covered elsewhere: assert, type, select, next,
-- ipairs/pairs argument handling, print's existence, _VERSION.
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

-- assert returns all its arguments
do
  local r = pack(assert(1, 2, 3))
  eq(r.n, 3, "assert returns all")
  eq(r[3], 3, "third")
  r = pack(assert(true, nil, nil))
  eq(r.n, 3, "nils kept")
  eq(errof(assert, false), "assertion failed!", "default message")
  eq(errof(assert, nil), "assertion failed!", "nil condition")
  eq(errof(assert, false, "custom"), "custom", "custom message, no position")
  local t = {}
  eq(errof(assert, false, t), t, "non-string message passed as is")
  eq(errof(assert), "bad argument #1 to 'assert' (value expected)", "assert()")
  eq(assert(0), 0, "0 is true")
  eq(assert(""), "", "empty string is true")
end

-- type
eq(type(nil), "nil", "nil")
eq(type(true), "boolean", "boolean")
eq(type(1), "number", "integer")
eq(type(1.5), "number", "float")
eq(type(""), "string", "string")
eq(type({}), "table", "table")
eq(type(print), "function", "C function")
eq(type(function() end), "function", "Lua function")
eq(type(coroutine.create(print)), "thread", "thread")
eq(type(type), "function", "type is a function")
eq(errof(type), "bad argument #1 to 'type' (value expected)", "type()")
eq(type(type(nil)), "string", "type returns strings")

-- select
eq(select("#"), 0, "no varargs")
eq(select("#", nil), 1, "one nil")
eq(select(1, "a", "b"), "a", "select 1")
eq(pack(select(2, "a", "b", "c")).n, 2, "select 2 count")
eq(select(-1, "a", "b"), "b", "select -1")
eq(pack(select(3, "a", "b")).n, 0, "select past the end")
eq(select(2.0, "a", "b"), "b", "float index with integral value")
eq(errof(select, "x"), "bad argument #1 to 'select' (number expected, got string)", "select('x')")
eq(errof(select, 1.5, 1), "bad argument #1 to 'select' (number has no integer representation)", "select(1.5)")
eq(errof(select, 0), "bad argument #1 to 'select' (index out of range)", "select(0)")

-- next
eq(errof(next), "bad argument #1 to 'next' (table expected, got no value)", "next()")
eq(errof(next, {}, 1), "invalid key to 'next'", "next with absent key")
eq(next({}, nil), nil, "explicit nil key")

-- ipairs argument
do
  local f, s, i = ipairs(nil)
  eq(type(f), "function", "ipairs(nil) returns the iterator (error happens on use)")
  eq(i, 0, "initial index")
  eq(errof(ipairs), "bad argument #1 to 'ipairs' (value expected)", "ipairs()")
end

-- _VERSION
eq(_VERSION, "Lua 5.4", "_VERSION")

-- base functions are ordinary values
do
  local p = print
  eq(type(p), "function", "print is a function")
  local saved = tostring
  tostring = function() return "patched" end
  eq(tostring(1), "patched", "globals can be replaced")
  tostring = saved
  eq(tostring(1), "1", "restored")
end

-- pcall/error are first-class
do
  local call = pcall
  local ok, e = call(error, "x", 0)
  eq(e, "x", "aliased pcall/error")
end

-- unpack-like recursion over select
do
  local function sum(...)
    local n = select("#", ...)
    if n == 0 then return 0 end
    return (...) + sum(select(2, ...))
  end
  eq(sum(1, 2, 3, 4, 5), 15, "recursive select sum")
end

return "OK"
