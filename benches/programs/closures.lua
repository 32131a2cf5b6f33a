-- Closures: creating many closures with upvalues and calling them.
local N = tonumber(arg and arg[1]) or 6000000
local function make_adder(k)
  return function(x) return x + k end
end
local function make_counter()
  local c = 0
  return function() c = c + 1 return c end
end
local total = 0
for i = 1, N do
  local add = make_adder(i)
  total = total + add(1)
end
local counters = {}
for i = 1, 100 do counters[i] = make_counter() end
for r = 1, N // 100 do
  for i = 1, 100 do total = total + counters[i]() end
end
local function compose(f, g) return function(x) return f(g(x)) end end
local inc = make_adder(1)
local f = inc
for i = 1, 50 do f = compose(f, inc) end
for i = 1, N // 50 do total = total + f(i) end
print("total " .. total)
