-- One-byte strings from gmatch, sub and gsub, compared, used as keys and
-- collected in between: each is the same string whichever way it is made.
local text = "hello, world"
local counts = {}
for c in text:gmatch(".") do counts[c] = (counts[c] or 0) + 1 end
local ks = {}
for k, n in pairs(counts) do ks[#ks + 1] = k .. "=" .. n end
table.sort(ks)
print(table.concat(ks, " "))

for round = 1, 3 do
  local same = 0
  for i = 1, #text do
    local a, b = text:sub(i, i), string.char(text:byte(i))
    if a == b and counts[a] then same = same + 1 end
  end
  -- garbage one-byte strings freed, their slots reused by longer ones
  for i = 0, 255 do local _ = string.char(i) .. "-" .. round end
  collectgarbage()
  print(round, same, ("x"):rep(3):sub(2, 2) == "x", text:sub(5, 5))
end

local out = text:gsub(".", function(c) return c == "o" and "0" or c end)
print(out, #out)
local n = 0
for c in ("abcabc"):gmatch("[ac]") do if c == "a" or c == "c" then n = n + 1 end end
print(n)
