local function fib_stream()
  return coroutine.wrap(function()
    local a, b = 0, 1
    while true do
      coroutine.yield(a)
      a, b = b, a + b
    end
  end)
end
local f = fib_stream()
local s = ""
for _ = 1, 30 do s = s .. f() .. " " end
print(s)
local g = fib_stream()
local last
for _ = 1, 93 do last = g() end
print(last)
print(g())
