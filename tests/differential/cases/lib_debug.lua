-- The debug library (and string.dump round trips) against lua5.4:
-- everything printed is address-free.

local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " "))
end

-- getinfo on functions and levels
local function f(a, b, ...)
  local x = a + b
  local info = debug.getinfo(1, "Slnu")
  show(info.short_src, info.linedefined, info.lastlinedefined, info.what,
       info.currentline, info.name, info.namewhat, info.nups, info.nparams, info.isvararg)
  return x
end
f(1, 2, 3)
local i = debug.getinfo(print)
show(i.what, i.short_src, i.source, i.currentline, i.linedefined, i.nparams, i.isvararg)
i = debug.getinfo(f, "S")
show(i.what, i.source, i.linedefined, i.lastlinedefined)
show(debug.getinfo(100))
show(pcall(debug.getinfo, 1, ">"))
show(select("#", debug.getinfo(1, "")))

-- getlocal / setlocal, varargs and temporaries
local function locals(p, q, ...)
  local r = p * q
  local names = {}
  for n = 1, 10 do
    local name, value = debug.getlocal(1, n)
    if not name then break end
    names[#names + 1] = name .. "=" .. (type(value) == "table" and "table" or tostring(value))
  end
  print(table.concat(names, ","))
  show(debug.getlocal(1, -1), debug.getlocal(1, -2), debug.getlocal(1, -3))
  show(debug.setlocal(1, 3, 99), r)
  return r
end
locals(6, 7, "va", "vb")
show(debug.getlocal(locals, 1), debug.getlocal(locals, 2), debug.getlocal(locals, 3))
show(pcall(debug.getlocal, 50, 1))

-- upvalues
local up1, up2 = 10, 20
local function g() return up1 + up2 end
show(debug.getupvalue(g, 1), debug.getupvalue(g, 2), debug.getupvalue(g, 3))
show(debug.setupvalue(g, 1, 100), g())
local function h() return up2 end
show(debug.upvalueid(g, 2) == debug.upvalueid(h, 1), debug.upvalueid(g, 1) == debug.upvalueid(h, 1))
debug.upvaluejoin(g, 1, h, 1)
show(g())
show(debug.getupvalue(string.gmatch("a", "a"), 1) ~= nil)

-- metatables and the registry
local t = setmetatable({}, {__index = function() return "mt" end})
show(t.x, type(debug.getmetatable(t)), type(debug.getregistry()))
debug.setmetatable(10, {__index = function(n, k) return k .. n end})
show((5).foo)
debug.setmetatable(10, nil)
show(pcall(function() return (5).foo end))

-- traceback (the text, with levels)
local function deep(n) if n == 0 then return debug.traceback("msg", 1) end return deep(n - 1) end
print((deep(3):gsub("\t", "  ")))
print(debug.traceback(123))
show(type(debug.traceback(nil)), type(debug.traceback({})))
local co = coroutine.create(function() coroutine.yield() end)
coroutine.resume(co)
print((debug.traceback(co, "co"):gsub("\t", "  ")))

-- hooks: call/return counts, lines, counts
local calls, rets, lines = 0, 0, {}
local function work(n) local s = 0 for k = 1, n do s = s + k end return s end
debug.sethook(function(ev, line)
  if ev == "call" then calls = calls + 1
  elseif ev == "return" then rets = rets + 1
  elseif ev == "line" then lines[#lines + 1] = line end
end, "crl")
work(3)
debug.sethook()
show(calls, rets, #lines, table.concat(lines, ","))
local mask_f, mask = debug.gethook()
show(mask_f, mask)
local count = 0
debug.sethook(function() count = count + 1 end, "", 100)
work(1000)
debug.sethook()
show(count > 10, count < 200)
debug.sethook(function() end, "l")
local hf, hm, hc = debug.gethook()
debug.sethook()
show(type(hf), hm, hc)

-- string.dump round trips (the bytes differ by design; behaviour must not)
local function adder(x) return function(y) return x + y end end
local d = string.dump(adder)
show(type(d), d:sub(1, 4) == "\27Lua")
local adder2 = load(d, "dumped", "b")
show(adder2(2)(3))
show(load(d, "dumped", "t"))
show(load("return 1", "text", "b"))
local function withup() return up1 end
local w = load(string.dump(withup))
show(type(select(2, pcall(w))))
local stripped = load(string.dump(f, true))
show(pcall(stripped, 1, 2))
show(pcall(string.dump, print))
