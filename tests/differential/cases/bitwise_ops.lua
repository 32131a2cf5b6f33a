local vals = {0, 1, -1, 5, 0xFF, 0x0F0F, -256, 9223372036854775807, -9223372036854775807 - 1}
for _, a in ipairs(vals) do
  print(a, ~a, a & 0xFF, a | 1, a ~ 0x5555, a >> 1, a << 1)
end
print(3.0 & 1, 2.0 << 2.0, ~0.0, 2^53 | 0)
print(pcall(function() return 1.5 & 1 end))
print(pcall(function(x) return x | 1 end, 2^63))
print(pcall(function(x) return x ~ 1 end, {}))
print(pcall(function() return "7" & 1 end))
local function bits(n)
  local s = ""
  for i = 63, 0, -1 do s = s .. ((n >> i) & 1) end
  return s
end
print(bits(1), bits(-1))
print(bits(0x0123456789ABCDEF))
