-- Tight loops with float arithmetic: +, *, /, comparisons (Leibniz pi and a polynomial).
local N = tonumber(arg and arg[1]) or 30000000
local pi, sign = 0.0, 1.0
for k = 0, N - 1 do
  pi = pi + sign / (2 * k + 1)
  sign = -sign
end
local s, x = 0.0, 0.0
for i = 1, N // 2 do
  x = i * 1e-6
  s = s + ((0.5 * x - 1.25) * x + 3.0) * x / (1.0 + x)
end
print("pi ~ " .. 4 * pi .. " poly " .. s)
