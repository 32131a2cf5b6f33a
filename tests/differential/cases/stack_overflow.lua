local function f(n) return 1 + f(n + 1) end
print(pcall(f, 1))
local function g() local t = {g()} return t end
print(pcall(g))
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(5000))
local co = coroutine.create(function() return f(1) end)
print(coroutine.resume(co))
print(select("#", pcall(f, 1)))
