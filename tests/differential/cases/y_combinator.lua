local Y = function(f)
  return (function(x) return x(x) end)(function(x)
    return f(function(...) return x(x)(...) end)
  end)
end
local fact = Y(function(self) return function(n) if n == 0 then return 1 end return n * self(n - 1) end end)
local fib = Y(function(self) return function(n) if n < 2 then return n end return self(n - 1) + self(n - 2) end end)
print(fact(10), fact(20), fib(20))
local church = function(n) return function(f) return function(x) for _ = 1, n do x = f(x) end return x end end end
local to_int = function(c) return c(function(x) return x + 1 end)(0) end
local add = function(a, b) return function(f) return function(x) return a(f)(b(f)(x)) end end end
print(to_int(church(7)), to_int(add(church(3), church(4))))
