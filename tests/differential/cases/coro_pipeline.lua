local function source(list)
  return coroutine.wrap(function() for _, v in ipairs(list) do coroutine.yield(v) end end)
end
local function map(f, src)
  return coroutine.wrap(function() for v in src do coroutine.yield(f(v)) end end)
end
local function filter(p, src)
  return coroutine.wrap(function() for v in src do if p(v) then coroutine.yield(v) end end end)
end
local function take(n, src)
  return coroutine.wrap(function()
    for v in src do
      if n <= 0 then return end
      n = n - 1
      coroutine.yield(v)
    end
  end)
end
local nums = {}
for i = 1, 50 do nums[i] = i end
local out = ""
for v in take(5, filter(function(x) return x % 7 == 0 end, map(function(x) return x * 3 end, source(nums)))) do
  out = out .. v .. " "
end
print(out)
-- producer/consumer with resume passing values both ways
local consumer = coroutine.create(function(first)
  local total = first
  while true do
    local v = coroutine.yield(total)
    if v == nil then break end
    total = total + v
  end
  return "total=" .. total
end)
print(coroutine.resume(consumer, 1))
for i = 2, 5 do print(coroutine.resume(consumer, i)) end
print(coroutine.resume(consumer, nil))
print(coroutine.status(consumer))
