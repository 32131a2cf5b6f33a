-- deterministic PRNG (64-bit LCG with wrap-around) and Fisher-Yates shuffle
local state = 88172645463325252
local function rand()
  state = state * 6364136223846793005 + 1442695040888963407
  return (state >> 33)
end
local t = {}
for i = 1, 20 do t[i] = i end
for i = #t, 2, -1 do
  local j = rand() % i + 1
  t[i], t[j] = t[j], t[i]
end
local s = ""
for _, v in ipairs(t) do s = s .. v .. " " end
print(s)
local buckets = {0, 0, 0, 0, 0}
for _ = 1, 10000 do local r = rand() % 5 + 1 buckets[r] = buckets[r] + 1 end
print(buckets[1], buckets[2], buckets[3], buckets[4], buckets[5])
print(state)
