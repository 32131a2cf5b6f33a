-- Calls of natives from Lua by CALL, TAILCALL and TFORCALL: results,
-- errors, tracebacks, hooks, yields and callbacks into Lua.

-- results adjusted to what the caller wants
local function pack(...) return select('#', ...), ... end
print(pack(string.byte("abc", 1, 3)))
print(pack(string.byte("abc", 10)))
local a, b, c = math.abs(-3)
print(a, b, c)
local t = { string.byte("hello", 1, -1) }
print(#t, t[1], t[5])
print((string.byte("xyz", 1, 3)))
print(math.max(1, 5, 3), math.min(4, 2, 8))
print(select(2, "a", "b", "c"))
print(select(-1, "a", "b", "c"))

-- tail calls of natives
local function tail(...) return select('#', ...) end
local function tail2(s) return string.byte(s, 1, -1) end
print(tail(), tail(nil), tail(1, 2, 3))
print(tail2("ab"))
print(pack(tail2("")))

-- errors raised in natives: message, level and traceback
local function show(ok, msg) print(ok, (string.gsub(tostring(msg), "0x%x+", "ADDR"))) end
show(pcall(math.abs))
show(pcall(math.abs, "x"))
show(pcall(string.rep))
show(pcall(function() return math.floor({}) end))
show(pcall(function() local s = string.sub; return s() end))
show(pcall(function() return ("x"):rep(1, 2, 3) .. nil end))
show(pcall(error, "plain", 0))
show(pcall(function() error("lvl1") end))
show(pcall(function() error("lvl2", 2) end))
show(pcall(setmetatable, 1, 2))
show(xpcall(function() return math.floor("a") end, function(m) return "handled: " .. m end))
print(select('#', pcall(string.byte, "")))

-- tracebacks through natives
local function lvl3() return string.rep("x", -1, {}) end
local ok, tb = xpcall(function() local r = lvl3(); return r end, debug.traceback)
print(ok, tb)
local function where() return debug.traceback("here", 1) end
print((where():gsub("\n%s*%[C%]: in %?", "")))

-- the names the caller gives
local function named()
  local info = debug.getinfo(1, "n")
  return info.name, info.namewhat
end
print(named())
print(pcall(function() local f = math.floor; return f(nil) end))

-- hooks see native calls and returns
local calls = {}
debug.sethook(function(ev)
  local info = debug.getinfo(2, "nS")
  if info.what == "C" then calls[#calls + 1] = ev .. ":" .. tostring(info.name) end
end, "cr")
local x = math.abs(-1) + math.floor(2.5)
for _ in pairs({ 1 }) do end
debug.sethook()
for i = 1, #calls do io.write(calls[i], " ") end
print(x)

-- a native sets a hook from a CALL, another clears it
local count = 0
local function f() return 1 end
debug.sethook(function() count = count + 1 end, "c")
f(); f()
debug.sethook()
f()
print("hook calls", count)

-- a native that yields, natives called inside coroutines
local co = coroutine.wrap(function(a)
  local b = coroutine.yield(a + 1)
  local c1, c2 = coroutine.yield(math.abs(b))
  return select('#', c1, c2), string.byte("A")
end)
print(co(1))
print(co(-7))
print(co(1, 2))

-- natives that call back into Lua
local arr = { 5, 2, 8, 1, 9 }
table.sort(arr, function(p, q) return math.abs(p - 4) < math.abs(q - 4) end)
print(table.concat(arr, " "))
print((string.gsub("hello world", "%w+", function(w) return string.upper(w) end)))
print(pcall(pcall, error, "nested"))
print(select('#', pcall(string.byte, "abc", 1, 3)))

-- iteration by a native iterator (TFORCALL) and by a Lua one
local keys = {}
for k, v in pairs({ a = 1, b = 2, c = 3 }) do keys[#keys + 1] = k .. "=" .. v end
table.sort(keys)
print(table.concat(keys, ","))
local n = 0
for i, v in ipairs({ 10, 20, 30, nil, 50 }) do n = n + i * v end
print(n)
for k, v in next, { 7 } do print(k, v) end
local ok2, e2 = pcall(function() for k in next, 1 do end end)
print(ok2, e2)

-- __call on a native-backed value, and a native as __call
local callable = setmetatable({}, { __call = function(self, v) return type(v) end })
print(callable(1), callable("s"))
local same = setmetatable({}, { __call = rawequal })
print(same(same), same(1))

-- many calls: the budget and the stack stay balanced
local s = 0
for i = 1, 100000 do s = s + math.abs(-i) + select('#', i, i) end
print(s)
print(type(nil), type(true), type(1), type(1.5), type("s"), type({}), type(print), type(co), type(coroutine.create(print)))
print(pcall(type))
collectgarbage()
collectgarbage()
local names = {}
for _, v in ipairs({ 0, "", {}, print, false }) do names[#names + 1] = type(v) end
print(table.concat(names, " "), type(nil) == "nil", #type(co))

-- a tail call through a native `__call` (one argument more after the
-- insertion), also with a vararg list and through two `__call` levels
local calltab = setmetatable({}, { __call = table.pack })
local function tail1() return calltab(1, 2, 3) end
local function tail2(...) return calltab(...) end
print(tail1().n, tail2("a", "b").n, tail2().n, tail2("a", "b")[3])
local outer = setmetatable({}, { __call = calltab })
local function tail3() return outer(1, 2) end
local p = tail3()
print(p.n, p[1] == calltab, p[2] == outer, p[4])
