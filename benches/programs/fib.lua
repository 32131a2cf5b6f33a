-- Recursive Fibonacci: function call overhead, integer add/compare.
local N = tonumber(arg and arg[1]) or 36
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
print("fib(" .. N .. ") = " .. fib(N))
