local ping, pong
local log = ""
ping = coroutine.create(function(n)
  for i = 1, n do
    log = log .. "ping" .. i .. " "
    coroutine.resume(pong, i)
  end
  return "ping done"
end)
pong = coroutine.create(function(i)
  while true do
    log = log .. "pong" .. i .. " "
    i = coroutine.yield()
  end
end)
print(coroutine.resume(ping, 4))
print(log)
print(coroutine.status(ping), coroutine.status(pong))
local a = coroutine.wrap(function(x) while true do x = coroutine.yield(x * 2) end end)
local b = coroutine.wrap(function(x) while true do x = coroutine.yield(x + 1) end end)
local v = 1
for _ = 1, 10 do v = b(a(v)) end
print(v)
