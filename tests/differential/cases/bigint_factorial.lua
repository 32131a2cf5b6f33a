-- arbitrary precision factorial with base 10^7 limbs
local BASE = 10000000
local function mul(a, m)
  local carry = 0
  for i = 1, #a do
    local v = a[i] * m + carry
    a[i] = v % BASE
    carry = v // BASE
  end
  while carry > 0 do a[#a + 1] = carry % BASE carry = carry // BASE end
end
local function tostr(a)
  local s = tostring(a[#a])
  for i = #a - 1, 1, -1 do
    local limb = tostring(a[i])
    while #limb < 7 do limb = "0" .. limb end
    s = s .. limb
  end
  return s
end
local f = {1}
for i = 1, 100 do
  mul(f, i)
  if i == 25 or i == 50 or i == 100 then print(i, tostr(f)) end
end
local s = tostr(f)
print(#s)
