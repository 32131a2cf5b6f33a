-- debug.sethook / debug.gethook: call, return, line and count hooks.

assert(debug.gethook() == nil)

-- line events: new lines and backward jumps
local lines = {}
local function lh(ev, line)
  assert(ev == "line")
  lines[#lines + 1] = line
end
local chunk = load("local a = 1\nfor i = 1, 2 do\n  a = a + i\nend\nreturn a\n")
debug.sethook(lh, "l"); chunk(); debug.sethook()
assert(table.concat(lines, ",") == "1,2,3,2,3,2,5", table.concat(lines, ","))

-- gethook
local function nop() end
debug.sethook(nop, "crl", 0)
local f, mask, count = debug.gethook()
debug.sethook()
assert(f == nop and mask == "crl" and count == 0)
debug.sethook(nop, "", 7)
f, mask, count = debug.gethook()
debug.sethook()
assert(f == nop and mask == "" and count == 7)
assert(debug.gethook() == nil)
assert(getmetatable(debug.getregistry()._HOOKKEY).__mode == "k")

-- call and return events, with the function at level 2
local calls, rets = {}, {}
local function target(x) return x * 2 end
debug.sethook(function(ev)
  local fn = debug.getinfo(2, "f").func
  if fn == target then
    if ev == "call" then calls[#calls + 1] = ev else rets[#rets + 1] = ev end
  end
end, "cr")
target(1); target(2)
debug.sethook()
assert(#calls == 2 and #rets == 2 and rets[1] == "return")

-- natives get call and return events too
local seen = {}
debug.sethook(function(ev)
  local fn = debug.getinfo(2, "f").func
  if fn == math.abs then seen[#seen + 1] = ev end
end, "cr")
local _ = math.abs(-3)
debug.sethook()
assert(seen[1] == "call" and seen[2] == "return" and #seen == 2)

-- tail calls
local events = {}
local function callee() return 1 end
local function caller() return callee() end
debug.sethook(function(ev)
  if debug.getinfo(2, "f").func == callee then events[#events + 1] = ev end
end, "c")
caller()
debug.sethook()
assert(events[1] == "tail call")

-- transfer information: parameters at the call, results at the return
local inp, outp
local on = false
debug.sethook(function(ev)
  if not on then return end
  local ar = debug.getinfo(2, "r")
  local t = {}
  for k = ar.ftransfer, ar.ftransfer + ar.ntransfer - 1 do
    t[#t + 1] = select(2, debug.getlocal(2, k))
  end
  if ev == "return" then outp = t else inp = t end
end, "cr")
on = true; select(2, 10, 20, 30); on = false
debug.sethook()
assert(#inp == 4 and inp[1] == 2 and inp[4] == 30)
assert(#outp == 2 and outp[1] == 20 and outp[2] == 30)

-- count hook
local n = 0
debug.sethook(function(ev) assert(ev == "count"); n = n + 1 end, "", 1)
local s = 0
for k = 1, 100 do s = s + k end
debug.sethook()
assert(n > 100 and s == 5050)

-- hooks do not recurse; the hooked function is named 'hook'
local depth, maxdepth, named = 0, 0, nil
debug.sethook(function()
  depth = depth + 1
  if depth > maxdepth then maxdepth = depth end
  named = debug.getinfo(1, "n").namewhat
  local _ = string.rep("x", 2)
  depth = depth - 1
end, "crl")
local _ = 1 + 1
debug.sethook()
assert(maxdepth == 1 and named == "hook")

-- errors in hooks propagate to the hooked code
local ok, msg = pcall(function()
  debug.sethook(function() debug.sethook(); error("from hook") end, "l")
  local _ = 1
end)
debug.sethook()
assert(not ok and msg:find("from hook"))

-- a hook may change locals of the hooked function
local function victim()
  local v = 1
  v = v + 0
  return v
end
debug.sethook(function(ev, line)
  local name = debug.getlocal(2, 1)
  if name == "v" then debug.setlocal(2, 1, 100) end
end, "l")
local r = victim()
debug.sethook()
assert(r == 100)

-- hooks are per thread
local co = coroutine.create(function()
  local a = 1
  coroutine.yield()
  return a
end)
local colines = 0
debug.sethook(co, function() colines = colines + 1 end, "l")
assert(debug.gethook() == nil)
assert(select(2, debug.gethook(co)) == "l")
coroutine.resume(co)
coroutine.resume(co)
assert(colines >= 2)
debug.sethook(co)

return "OK"
