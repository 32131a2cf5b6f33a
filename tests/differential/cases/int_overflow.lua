-- integer wrap-around and conversions at the limits
local maxi = 9223372036854775807
local mini = -9223372036854775807 - 1
print(maxi, mini, maxi + 1, mini - 1, maxi * 2, mini * -1, -mini)
print(maxi // -1, mini // -1, mini % -1, maxi % mini, mini % maxi)
print(0x7fffffffffffffff, 0xffffffffffffffff, 0x8000000000000000, 0x10000000000000000)
print(9223372036854775807, 9223372036854775808, -9223372036854775808)
print(maxi + 0.0, mini + 0.0, maxi + 0.0 == maxi, mini + 0.0 == mini)
print(maxi < 2^63, maxi <= 2^63, mini >= -2^63, mini > -2^63)
local x = 1
for i = 1, 70 do
  x = x * 3
  if i % 10 == 0 then print(i, x) end
end
local h = 0
for i = 1, 1000 do h = (h * 31 + i) end
print("hash", h)
local f = 1
for i = 1, 25 do f = f * i print(i, f) end
