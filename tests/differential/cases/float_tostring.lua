-- tostring of huge and tiny floats, powers of ten, halves
local x = 1.0
for i = 1, 25 do
  x = x * 10
  print(i, x, 1 / x)
end
local h = 1.0
for i = 1, 12 do h = h / 2 print(h) end
print(tostring(1e22), tostring(1e21), tostring(123e20))
print(12345.678, 1234567.8, 0.000123456, 1.0e-7)
print(8.5, -8.5, 1e16 + 1, 2^53 + 1, 2^53 - 1)
print(0.1 + 0.7, 4.35 * 100, 1.1 * 1.1)
