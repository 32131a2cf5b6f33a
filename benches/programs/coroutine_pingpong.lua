-- Coroutine ping-pong: resume/yield switching and value passing.
local N = tonumber(arg and arg[1]) or 6000000
local pong = coroutine.create(function(v)
  while true do v = coroutine.yield(v + 1) end
end)
local v = 0
for _ = 1, N do
  local _, r = coroutine.resume(pong, v)
  v = r
end
local gen = coroutine.wrap(function()
  local i = 0
  while true do i = i + 1 coroutine.yield(i) end
end)
local s = 0
for _ = 1, N // 2 do s = s + gen() end
print("value " .. v .. " sum " .. s)
