local function counter(start, step)
  local n = start
  return function() n = n + step return n end, function() return n end, function(v) n = v end
end
local inc, get, set = counter(0, 1)
local inc2, get2 = counter(100, -10)
inc() inc() inc2()
print(get(), get2())
set(50)
print(inc(), get(), get2())
local fns = {}
for i = 1, 3 do
  local c = 0
  fns[i] = function() c = c + i return c end
end
print(fns[1](), fns[1](), fns[2](), fns[3](), fns[3]())
