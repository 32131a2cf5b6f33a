local calls = 0
local function slow_square(n) calls = calls + 1 return n * n end
local function memo(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n) cache[n] = v end
    return v
  end
end
local fast = memo(slow_square)
local total = 0
for i = 1, 100 do total = total + fast(i % 10) end
print(total, calls)
local fib
fib = memo(function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end)
print(fib(50), fib(91))
local binom
binom = function(n, k)
  local key = n * 1000 + k
  return memo(function() if k == 0 or k == n then return 1 end return binom(n - 1, k - 1) + binom(n - 1, k) end)(key)
end
local cache = {}
local function C(n, k)
  if k == 0 or k == n then return 1 end
  local key = n .. "," .. k
  if not cache[key] then cache[key] = C(n - 1, k - 1) + C(n - 1, k) end
  return cache[key]
end
print(C(30, 15), C(60, 30), C(10, 3))
