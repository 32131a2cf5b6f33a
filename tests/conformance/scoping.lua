-- Scoping: locals, shadowing, blocks, globals, _ENV, local functions.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- shadowing in nested blocks
do
  local x = 1
  do
    local x = x + 1 -- the right-hand x is the outer one
    eq(x, 2, "inner x")
    do
      local x = x * 10
      eq(x, 20, "innermost")
    end
    eq(x, 2, "inner again")
  end
  eq(x, 1, "outer unchanged")
end

-- local declarations are visible only after the statement
do
  local y = "outer"
  local y, z = "inner", y
  eq(z, "outer", "right side sees the previous y")
end

-- local function can recurse; local x = function cannot see itself
do
  local function fact(n) return n <= 1 and 1 or n * fact(n - 1) end
  eq(fact(10), 3628800, "local function recursion")
  local ok = pcall(load([[
    local f = function(n) if n == 0 then return 0 end return f(n - 1) end
    return f(3)
  ]]))
  eq(ok, false, "local f = function cannot refer to itself")
end

-- globals live in _ENV
do
  SCOPING_G = 10
  eq(_ENV.SCOPING_G, 10, "global is a field of _ENV")
  _ENV.SCOPING_G = 11
  eq(SCOPING_G, 11, "and back")
  SCOPING_G = nil
  eq(rawget(_ENV, "SCOPING_G"), nil, "removed")
end

-- _G
do
  eq(_G._G, _G, "_G._G")
  eq(_G, _ENV, "_G is the initial _ENV")
  eq(_G.print, print, "print in _G")
end

-- a local _ENV changes global resolution
do
  local function sandboxed()
    local _ENV = {x = "sandbox x"}
    return x, y
  end
  local a, b = sandboxed()
  eq(a, "sandbox x", "global from local _ENV")
  eq(b, nil, "missing global in local _ENV")
  local function writer()
    local _ENV = {}
    newglobal = 1
    return _ENV
  end
  local env = writer()
  eq(env.newglobal, 1, "assignment goes to local _ENV")
  eq(rawget(_G, "newglobal"), nil, "real globals untouched")
end

-- _ENV as a parameter
do
  local function f(_ENV) return a + b end
  eq(f({a = 1, b = 2}), 3, "_ENV parameter")
end

-- _ENV as an upvalue changed at runtime
do
  local _ENV = setmetatable({}, {__index = _G})
  local function get() return val end
  val = "first"
  eq(get(), "first", "through upvalue _ENV")
  _ENV = setmetatable({val = "second"}, {__index = _G})
  eq(get(), "second", "replacing the upvalue _ENV")
end

-- globals accessed via a function's environment do not leak locals
do
  local secret = 42
  local f = load("return secret")
  eq(f(), nil, "loaded chunk does not see enclosing locals")
end

-- function statements
do
  local obj = {inner = {}}
  function obj.method(a) return a end
  function obj.inner.deep(a) return a * 2 end
  function obj:self_method() return self end
  eq(obj.method(5), 5, "function a.b")
  eq(obj.inner.deep(5), 10, "function a.b.c")
  eq(obj:self_method(), obj, "function a:b has self")
end

-- global function statement creates a global
function SCOPING_GLOBAL_FN() return "g" end
eq(SCOPING_GLOBAL_FN(), "g", "global function")
SCOPING_GLOBAL_FN = nil

-- many locals (up to the limit of 200 per function)
do
  local src = "local "
  for i = 1, 199 do src = src .. "v" .. i .. (i < 199 and "," or "") end
  src = src .. " = 1 return 'ok'"
  eq(load(src)(), "ok", "199 locals")
  local src2 = "local "
  for i = 1, 201 do src2 = src2 .. "v" .. i .. (i < 201 and "," or "") end
  src2 = src2 .. " = 1"
  local f, e = load(src2, "=many")
  eq(f, nil, "more than 200 locals fails")
  eq(e, "many:1: too many local variables (limit is 200) in main function near '='", "limit message")
end

-- a block's locals are not visible after the block
do
  do local hidden = 1 end
  eq(hidden, nil, "hidden is a (nil) global here")
end

-- repeat-until sees locals of the body
do
  local n = 0
  repeat local done = n >= 3; n = n + 1 until done
  eq(n, 4, "until uses body local")
end

-- if/elseif/else chains
do
  local function classify(n)
    if n < 0 then return "neg"
    elseif n == 0 then return "zero"
    elseif n < 10 then return "small"
    else return "big" end
  end
  eq(classify(-1) .. classify(0) .. classify(5) .. classify(50), "negzerosmallbig", "if chain")
end

-- while with complex conditions and nested breaks
do
  local i, found = 0, nil
  while true do
    i = i + 1
    if i > 100 then break end
    if i % 7 == 0 and i % 5 == 0 then found = i break end
  end
  eq(found, 35, "while/break")
end

return "OK"
