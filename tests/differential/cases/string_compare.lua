local words = {"banana", "Apple", "apple", "", "a", "ab", "abc", "B", "b", "10", "9", "a\0b", "a\0a", "~", " "}
-- insertion sort with <
for i = 2, #words do
  local w = words[i]
  local j = i - 1
  while j >= 1 and words[j] > w do words[j + 1] = words[j] j = j - 1 end
  words[j + 1] = w
end
for i, w in ipairs(words) do print(i, "[" .. w .. "]", #w) end
print("a" < "b", "a" <= "a", "b" > "a", "abc" >= "abd", "" == "", "x" ~= "X")
