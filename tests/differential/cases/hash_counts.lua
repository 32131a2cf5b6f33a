-- word frequency with deterministic (sorted) output
local text = {"the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog",
  "the", "fox", "barks", "and", "the", "dog", "runs", "quick", "quick"}
local counts = {}
for _, w in ipairs(text) do counts[w] = (counts[w] or 0) + 1 end
local keys = {}
for k in pairs(counts) do keys[#keys + 1] = k end
for i = 2, #keys do
  local k = keys[i]
  local j = i - 1
  while j >= 1 and (counts[keys[j]] < counts[k] or (counts[keys[j]] == counts[k] and keys[j] > k)) do
    keys[j + 1] = keys[j]
    j = j - 1
  end
  keys[j + 1] = k
end
for _, k in ipairs(keys) do print(k, counts[k]) end
local n = 0
for _ in pairs(counts) do n = n + 1 end
print("distinct", n)
