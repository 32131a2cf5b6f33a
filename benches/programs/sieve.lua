-- Sieve of Eratosthenes: boolean array writes, nested loops.
local N = tonumber(arg and arg[1]) or 2000000
local ROUNDS = 7
local count
for _ = 1, ROUNDS do
  local composite = {}
  for i = 1, N do composite[i] = false end
  count = 0
  for i = 2, N do
    if not composite[i] then
      count = count + 1
      for j = i * i, N, i do composite[j] = true end
    end
  end
end
print("primes below " .. N .. ": " .. count)
