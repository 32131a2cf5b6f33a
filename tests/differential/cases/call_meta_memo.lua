local function memoize(f)
  local cache = {}
  local hits = 0
  return setmetatable({}, {
    __call = function(self, n)
      local v = cache[n]
      if v == nil then v = f(self, n) cache[n] = v else hits = hits + 1 end
      return v
    end,
    __index = function(_, k) if k == "hits" then return hits end end,
  })
end
local fib = memoize(function(self, n) if n < 2 then return n end return self(n - 1) + self(n - 2) end)
print(fib(80), fib.hits)
print(fib(90), fib.hits)
local adder = setmetatable({total = 0}, {__call = function(self, ...)
  for i = 1, select("#", ...) do self.total = self.total + (select(i, ...)) end
  return self.total, select("#", ...)
end})
print(adder(1, 2, 3))
print(adder())
local nested = setmetatable({}, {__call = setmetatable({}, {__call = function(a, b, c) return type(a), type(b), c end})})
print(nested("arg"))
