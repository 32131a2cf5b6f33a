-- Deep (non-tail) recursion raises a catchable "stack overflow" error and the
-- interpreter recovers afterwards.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- each recursive function is written on one line so the position is unambiguous
local function f(n) return 1 + f(n + 1) end
local ok, msg = pcall(f, 1)
eq(ok, false, "overflow is an error")
eq(msg, "stackoverflow.lua:10: stack overflow", "overflow message")

-- recovery: normal deep-ish recursion works after the overflow
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
eq(depth(10000), 10000, "recursion works after overflow")

-- again, with more locals per frame
local function g(a, b, c, d, e) local x, y, z = a, b, c; return g(x, y, z, d, e) + 1 end
ok, msg = pcall(g, 1, 2, 3, 4, 5)
eq(ok, false, "overflow with locals")
eq(msg, "stackoverflow.lua:" .. (23 - 3) .. ": stack overflow", "overflow message 2")

-- overflow inside a coroutine is reported by resume
local co = coroutine.create(function() return f(1) end)
local okc, msgc = coroutine.resume(co)
eq(okc, false, "overflow in coroutine")
eq(msgc, "stackoverflow.lua:10: stack overflow", "coroutine overflow message")
eq(coroutine.status(co), "dead", "coroutine dead after overflow")

-- overflow through xpcall with a handler
local handled
local okx = xpcall(f, function(m) handled = m return "H" end, 1)
eq(okx, false, "xpcall reports overflow")
eq(handled, "stackoverflow.lua:10: stack overflow", "handler got the message")

-- recursion through pcall layers (each level is a protected call)
local levels = 0
local function p(n) levels = n; local ok2 = pcall(p, n + 1); return ok2 end
local okp = pcall(p, 1)
assert(levels > 100, "pcall nesting went deep before failing")

-- after all of that, normal execution continues
local t = {}
for i = 1, 100 do t[i] = depth(100) end
eq(t[100], 100, "still working")

return "OK"
