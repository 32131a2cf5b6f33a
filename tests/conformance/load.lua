-- load: string and function readers, chunk names, env parameter, mode,
-- syntax errors returned as messages.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ":\n expected: " .. tostring(b) .. "\n      got: " .. tostring(a), 2)
  end
end
local function pack(...) return {n = select("#", ...), ...} end
local function synerr(src, name)
  local f, msg = load(src, name or "=x")
  if f ~= nil then error("expected a syntax error for: " .. src, 2) end
  return msg
end

-- basic string chunks
eq(load("return 1 + 1")(), 2, "simple chunk")
eq(load("return ...")(7), 7, "chunks are vararg functions")
eq(pack(load("return ...")(1, nil, 3)).n, 3, "all varargs")
eq(load("")(), nil, "empty chunk")
eq(pack(load("return")()).n, 0, "return nothing")
eq(type(load("local x = 1")), "function", "load returns a function")

-- function readers
do
  local parts = {"return ", "1 ", "+ 41"}
  local i = 0
  local f = load(function() i = i + 1 return parts[i] end)
  eq(f(), 42, "reader pieces")
  local j = 0
  local g = load(function()
    j = j + 1
    if j == 1 then return "return 'a'" end
    if j == 2 then return "" end -- empty string ends the chunk
    return " .. 'never'"
  end)
  eq(g(), "a", "empty string ends reading")
  -- pieces can split tokens
  local src = {"ret", "urn 12", "34 + 0x", "10"}
  local k = 0
  eq(load(function() k = k + 1 return src[k] end)(), 1250, "split tokens")
  -- a reader called one char at a time
  local text = "local t = {} for i = 1, 5 do t[i] = i * i end return t[5]"
  local chars = {}
  -- build single-character pieces using the reader itself (no string library):
  -- feed the whole text through a reader that returns it once
  local done = false
  local h = load(function() if done then return nil end done = true return text end)
  eq(h(), 25, "single-piece reader")
end

-- chunk names
eq(synerr("x = ", "=name"), "name:1: unexpected symbol near <eof>", "=name")
eq(synerr("x = ", "@file.lua"), "file.lua:1: unexpected symbol near <eof>", "@name")
eq(synerr("x = ", "literal"), [[[string "literal"]:1: unexpected symbol near <eof>]], "plain name")
do
  local f, msg = load("x = ")
  eq(msg, [[[string "x = "]:1: unexpected symbol near <eof>]], "default chunk name is the source")
  f, msg = load("\n\nx = ")
  eq(msg, [[[string "..."]:3: unexpected symbol near <eof>]], "source starting with newline")
  f, msg = load("y = 1\nx = ")
  eq(msg, [[[string "y = 1..."]:2: unexpected symbol near <eof>]], "multi-line source truncated at newline")
  f, msg = load("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx = ")
  eq(msg, [[[string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."]:1: unexpected symbol near <eof>]], "long source truncated")
end
-- runtime errors use the chunk name too
eq(select(2, pcall(load("error('boom')", "=mychunk"))), "mychunk:1: boom", "runtime error chunk name")
eq(select(2, pcall(load("error('boom')", "@some/path.lua"))), "some/path.lua:1: boom", "@ chunk name")
eq(select(2, pcall(load("\n\nerror('boom')", "literal source"))), [[[string "literal source"]:3: boom]], "string chunk name")
eq(select(2, pcall(load("local x = nil; return x.f", "=c"))), "c:1: attempt to index a nil value (local 'x')", "runtime error in loaded chunk")

-- env parameter
do
  local env = {y = 5}
  eq(load("return y", "c", "t", env)(), 5, "reads from env")
  load("y = 10; z = 1", "c", "t", env)()
  eq(env.y, 10, "writes to env")
  eq(env.z, 1, "new global in env")
  eq(rawget(_ENV, "z"), nil, "real globals untouched")
  eq(load("return _ENV", "c", "t", env)(), env, "_ENV is the env")
  eq(load("return _ENV", "c", "t", nil)(), nil, "explicit nil env")
  eq(load("return print", "c", "t", {})(), nil, "empty env has no print")
  local ok, e = pcall(load("return print('x')", "=c", "t", {}))
  eq(e, "c:1: attempt to call a nil value (global 'print')", "global missing in env")
  -- env with __index falling back to the globals
  local sandbox = setmetatable({}, {__index = _ENV})
  load("newvar = type(print)", "c", "t", sandbox)()
  eq(sandbox.newvar, "function", "sandbox reads globals via __index")
  eq(rawget(_ENV, "newvar"), nil, "sandbox writes stay in sandbox")
end

-- default env is the global table
do
  load("LOAD_TEST_GLOBAL = 123")()
  eq(LOAD_TEST_GLOBAL, 123, "default env is _G")
  LOAD_TEST_GLOBAL = nil
end

-- mode
do
  local f, msg = load("return 1", "=n", "b")
  eq(f, nil, "text chunk refused in binary mode")
  eq(msg, "attempt to load a text chunk (mode is 'b')", "mode b message")
  eq(load("return 1", "=n", "t")(), 1, "mode t")
  eq(load("return 1", "=n", "bt")(), 1, "mode bt")
end

-- syntax errors (messages match lua 5.4)
eq(synerr("x = = 1"), "x:1: unexpected symbol near '='", "double =")
eq(synerr("return 1 + "), "x:1: unexpected symbol near <eof>", "dangling +")
eq(synerr("f("), "x:1: unexpected symbol near <eof>", "open call")
eq(synerr("x = }"), "x:1: unexpected symbol near '}'", "stray brace")
eq(synerr("local 1 = 2"), "x:1: <name> expected near '1'", "local number")
eq(synerr("if x then"), "x:1: 'end' expected near <eof>", "missing end")
eq(synerr("if x then\n\nelse"), "x:3: 'end' expected (to close 'if' at line 1) near <eof>", "missing end multi-line")
eq(synerr("return return"), "x:1: unexpected symbol near 'return'", "return return")
eq(synerr("x = 1 1"), "x:1: unexpected symbol near '1'", "two numbers")
eq(synerr("a.b:c = 1"), "x:1: function arguments expected near '='", "method assign")
eq(synerr("x ==== 1"), "x:1: syntax error near '=='", "====")
eq(synerr("--[[ unfinished"), "x:1: unfinished long comment (starting at line 1) near <eof>", "long comment")
eq(synerr("for i = 1 do end"), "x:1: ',' expected near 'do'", "numeric for")
eq(synerr("function f(a,) end"), "x:1: <name> or '...' expected near ')'", "param list")
eq(synerr("local t = {1,2"), "x:1: '}' expected near <eof>", "table")
eq(synerr("x = @"), "x:1: unexpected symbol near '@'", "bad char")
eq(synerr("while true do local x end until"), "x:1: <eof> expected near 'until'", "until")
eq(synerr("repeat local x = 1"), "x:1: 'until' expected near <eof>", "repeat")
eq(synerr("return 1;;"), "x:1: <eof> expected near ';'", "return must be last")
eq(synerr("return 1 return 2"), "x:1: <eof> expected near 'return'", "two returns")
eq(synerr("(f)"), "x:1: syntax error near <eof>", "parenthesized statement")
eq(synerr("f() = 1"), "x:1: syntax error near '='", "assign to call")
eq(synerr("x = \n\n"), "x:3: unexpected symbol near <eof>", "line count")
eq(synerr("break"), "x:1: break outside loop at line 1", "break")
eq(synerr("goto nowhere"), "x:1: no visible label 'nowhere' for <goto> at line 1", "goto")
eq(synerr("local x <const> = 1; x = 2"), "x:1: attempt to assign to const variable 'x'", "const")
eq(synerr("local x <close>, y <close> = 1, 2"), "x:1: multiple to-be-closed variables in local list", "multiple close")
eq(synerr("x = 'abc"), "x:1: unfinished string near <eof>", "unfinished string at eof")
eq(synerr("x = 'abc\ny = 1"), "x:1: unfinished string near ''abc'", "unfinished string at newline")
eq(synerr("x = 3x"), "x:1: malformed number near '3x'", "malformed number")

-- ; is an empty statement
eq(type(load(";;; local x = 1 ;;; return x")), "function", "empty statements")
eq(load(";;; local x = 1 ;;; return x;")(), 1, "return with semicolon")

-- load compiles functions that can be called repeatedly
do
  local counter = load("local n = ... ; return function() n = n + 1 return n end")(10)
  eq(counter(), 11, "closure from loaded chunk")
  eq(counter(), 12, "state kept")
end

-- load of non-string/non-function
do
  local ok, e = pcall(load, nil)
  eq(ok, false, "load(nil) fails")
end

return "OK"
