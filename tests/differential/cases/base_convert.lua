local digits = {}
local alphabet = {"0","1","2","3","4","5","6","7","8","9","a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u","v","w","x","y","z"}
for i, c in ipairs(alphabet) do digits[i - 1] = c end
local function tobase(n, b)
  if n == 0 then return "0" end
  local neg = n < 0
  local s = ""
  if neg then
    -- work with negative remainders to support minint
    while n ~= 0 do
      local q = -((-n) // b)
      local r = q * b - n
      if r < 0 then q = q + 1 r = q * b - n end
      s = digits[r] .. s
      n = q
    end
    return "-" .. s
  end
  while n > 0 do s = digits[n % b] .. s n = n // b end
  return s
end
for _, n in ipairs({0, 1, 255, 4096, 123456789, 9223372036854775807, -255}) do
  print(n, tobase(n, 2), tobase(n, 8), tobase(n, 16), tobase(n, 36))
end
for _, n in ipairs({255, 4096, 123456789}) do
  print(tonumber(tobase(n, 16), 16) == n, tonumber(tobase(n, 36), 36) == n)
end
