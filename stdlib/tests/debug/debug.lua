-- The debug library: getinfo, locals, upvalues, traceback, metatables,
-- registry, error messages (hooks are in debug_hooks.lua).

-- getinfo on a function value
local function sample(a, b, ...)
  local c = a
  return c
end
local i = debug.getinfo(sample)
assert(i.what == "Lua" and i.linedefined == 5 and i.lastlinedefined == 8)
assert(i.nparams == 2 and i.isvararg == true and i.nups == 0)
assert(i.func == sample and i.currentline == -1 and i.name == nil)
assert(i.namewhat == "" and i.istailcall == false)
assert(i.ftransfer == 0 and i.ntransfer == 0)
assert(i.source:sub(1, 1) == "@" and not i.short_src:find("^%["))
local L = debug.getinfo(sample, "L").activelines
assert(L[6] and L[7] and L[8] and not L[5] and not L[9])
i = debug.getinfo(print)
assert(i.what == "C" and i.short_src == "[C]" and i.source == "=[C]")
assert(i.linedefined == -1 and i.currentline == -1 and i.isvararg)
assert(debug.getinfo(print, "L").activelines == nil)
assert(debug.getinfo(load("x = 1")).what == "main")

-- only the requested fields
i = debug.getinfo(sample, "S")
assert(i.source and i.currentline == nil and i.func == nil)

-- invalid options and levels
assert(not pcall(debug.getinfo, print, "X"))
local ok, msg = pcall(debug.getinfo, 0, ">")
assert(not ok and msg:find("invalid option '>'", 1, true))
ok, msg = pcall(debug.getinfo, 1, "q")
assert(not ok and msg == "bad argument #2 to 'debug.getinfo' (invalid option)")
assert(debug.getinfo(1000) == nil and debug.getinfo(-1) == nil)
ok, msg = pcall(function() return debug.getlocal(1000, 1) end)
assert(not ok and msg:find(":%d+: bad argument #1 to 'getlocal' %(level out of range%)$"))
ok, msg = pcall(function() return debug.setlocal(-1, 1, 10) end)
assert(not ok and msg:find(":%d+: bad argument #1 to 'setlocal' %(level out of range%)$"))
ok, msg = pcall(debug.getupvalue, {}, 1)
assert(not ok and msg:find("bad argument #1 to 'debug.getupvalue' (function expected"
                          .. ", got table)", 1, true))

-- levels, names, current lines
local function whoami()
  local me = debug.getinfo(1, "nSl")
  local caller = debug.getinfo(2, "l")
  return me.name, me.namewhat, me.currentline, caller.currentline
end
local n, nw, cur, callerline = whoami()
assert(n == "whoami" and nw == "local" and cur + 4 == callerline)
assert(callerline == debug.getinfo(1, "l").currentline - 2)
local t = {f = function() return debug.getinfo(1, "n") end}
assert(t.f().name == "f" and t.f().namewhat == "field")
function t:m() return debug.getinfo(1, "n") end
assert(t:m().name == "m" and t:m().namewhat == "method")
G = function() return debug.getinfo(1, "n") end
assert(G().name == "G" and G().namewhat == "global")
G = nil
assert(debug.getinfo(1, "S").what == "main")

-- tail calls
local function tailee() return debug.getinfo(1, "t").istailcall end
local function tailer() return tailee() end
assert(tailer() == true)
local function nottail() local r = tailee(); return r end
assert(nottail() == false)

-- getinfo(f) with the 'f' option and levels of a coroutine
local co = coroutine.create(function(x)
  local y = x + 1
  coroutine.yield(y)
  return y
end)
coroutine.resume(co, 10)
i = debug.getinfo(co, 0, "nS")
assert(i.what == "C")   -- coroutine.yield
i = debug.getinfo(co, 1, "lS")
assert(i.what == "Lua" and i.currentline == debug.getinfo(co, 1, "S").linedefined + 2)
assert(debug.getinfo(co, 2) == nil)
local name, val = debug.getlocal(co, 1, 1)
assert(name == "x" and val == 10)
name, val = debug.getlocal(co, 1, 2)
assert(name == "y" and val == 11)
assert(debug.setlocal(co, 1, 2, 41) == "y")
local _, r = coroutine.resume(co)
assert(r == 41)

-- locals: named, temporaries, varargs
local function locs(a, b, ...)
  local c = 3
  local out = {}
  for k = 1, 10 do
    local nm, v = debug.getlocal(1, k)
    if not nm then break end
    out[k] = nm .. "=" .. tostring(v)
  end
  local va = {}
  for k = 1, 10 do
    local nm, v = debug.getlocal(1, -k)
    if not nm then break end
    assert(nm == "(vararg)")
    va[k] = v
  end
  assert(debug.setlocal(1, -1, "changed") == "(vararg)")
  local first = ...
  return out, va, first
end
local out, va, first = locs(1, 2, "x", "y")
assert(out[1] == "a=1" and out[2] == "b=2" and out[3] == "c=3")
assert(out[4] == "out=table: " .. tostring(out):sub(8))
assert(va[1] == "x" and va[2] == "y" and va[3] == nil and first == "changed")
assert(debug.getlocal(locs, 1) == "a" and debug.getlocal(locs, 2) == "b")
assert(debug.getlocal(locs, 3) == nil and debug.getlocal(print, 1) == nil)
local function novararg() return debug.getlocal(1, -1) end
assert(novararg() == nil)

-- C temporaries: the arguments of the running native
n, val = debug.getlocal(0, 1)
assert(n == "(C temporary)" and val == 0)
assert(debug.getlocal(0, 3) == nil and debug.getlocal(0, 0) == nil)

-- Lua temporaries of a caller
local function peek() return select(2, debug.getlocal(2, 3)) end
local function holder(a, b) return (a + 100) + peek() end
assert(holder(1, 2) == 202)

-- upvalues
local up1, up2 = 10, 20
local function useups() return up1 + up2 end
assert(debug.getupvalue(useups, 1) == "up1")
n, val = debug.getupvalue(useups, 2)
assert(n == "up2" and val == 20)
assert(debug.getupvalue(useups, 3) == nil)
assert(select("#", debug.getupvalue(useups, 3)) == 0)
assert(debug.setupvalue(useups, 1, 5) == "up1" and up1 == 5)
assert(useups() == 25)
local function other() return up2 end
assert(debug.upvalueid(useups, 2) == debug.upvalueid(other, 1))
assert(debug.upvalueid(useups, 1) ~= debug.upvalueid(other, 1))
assert(debug.upvalueid(useups, 3) == nil)
local x1, x2 = 1, 2
local function f1() return x1 end
local function f2() return x2 end
debug.upvaluejoin(f1, 1, f2, 1)
assert(f1() == 2 and debug.upvalueid(f1, 1) == debug.upvalueid(f2, 1))
ok, msg = pcall(debug.upvaluejoin, f1, 2, f2, 1)
assert(not ok and msg:find("invalid upvalue index", 1, true))
ok, msg = pcall(debug.upvaluejoin, print, 1, f2, 1)
assert(not ok)
-- a native's upvalues have empty names
local gm = string.gmatch("x", "x")
assert(debug.getupvalue(gm, 1) == nil or debug.getupvalue(gm, 1) == "")

-- traceback
local tb = debug.traceback("msg")
assert(tb:find("^msg\nstack traceback:\n"))
assert(tb:find("debug.lua:%d+: in main chunk"))
assert(debug.traceback(12):find("^12\n"))
local tab = {}
assert(debug.traceback(tab) == tab)
assert(debug.traceback(nil) :find("^stack traceback:"))
local function deep(k) if k == 0 then return debug.traceback("m", 1) end
  return (deep(k - 1)) end
local lines = select(2, deep(30):gsub("\n", "\n"))
assert(lines == 1 + 10 + 1 + 11)   -- after msg, 10 levels, '...', 11 levels
assert(deep(30):find("\n\t...\t(skipping 11 levels)", 1, true))
co = coroutine.create(function() coroutine.yield() end)
coroutine.resume(co)
tb = debug.traceback(co)
assert(tb:find("^stack traceback:\n\t%[C%]: in function 'coroutine.yield'"))
assert(debug.traceback(co, "hi", 1):find("^hi\nstack traceback:\n\tdebug.lua"))

-- metatables and registry
assert(type(debug.getregistry()) == "table")
local prot = setmetatable({}, {__metatable = "locked"})
assert(getmetatable(prot) == "locked")
assert(type(debug.getmetatable(prot)) == "table")
assert(debug.setmetatable(prot, nil) == prot and getmetatable(prot) == nil)
debug.setmetatable(10, {__index = {twice = function(v) return v * 2 end}})
assert((21):twice() == 42)
debug.setmetatable(10, nil)
ok, msg = pcall(debug.setmetatable, 1, 2)
assert(not ok and msg:find("nil or table expected", 1, true))

-- user values (none in luprex) and the C stack limit
assert(debug.getuservalue(io.stdout) == nil)
assert(debug.setuservalue(io.stdout, 1) == nil)
assert(debug.getuservalue(10) == nil)
assert(debug.setcstacklimit(100) == 200)

-- require
assert(require("debug") == debug)

return "OK"
