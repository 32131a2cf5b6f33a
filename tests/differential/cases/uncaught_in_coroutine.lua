local gen = coroutine.wrap(function()
  coroutine.yield(1)
  coroutine.yield(2)
  local t = nil
  coroutine.yield(t.boom)
end)
print(gen())
print(gen())
print(gen())
