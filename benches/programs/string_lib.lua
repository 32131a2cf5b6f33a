-- The string library in loops: gsub, find, match, gmatch, format, concat,
-- rep, sub, upper (the functions that charge their work to the budget).
local words = {}
for i = 1, 200 do words[i] = "word" .. i end
local text = table.concat(words, " ")
local acc = 0
local N = tonumber(arg and arg[1]) or 8000
for iter = 1, N do
  local s = text:gsub("(%w+)", "<%1>")
  acc = acc + #s
  local a, b = text:find("word1%d%d", 1)
  acc = acc + (a or 0)
  for w in text:gmatch("%a+(%d+)") do acc = acc + #w end
  local m = text:match("(%d+)%s+word(%d+)$")
  acc = acc + #m
  acc = acc + #string.format("%s=%d (%5.2f) [%-10s]", "key", iter, iter / 7, "v")
  local parts = {}
  for i = 1, 50 do parts[i] = string.format("%d:%s", i, words[i]) end
  acc = acc + #table.concat(parts, ",")
  acc = acc + #(("ab"):rep(50, "-")) + #text:sub(10, 200):upper()
  acc = acc + select(2, text:gsub("word", "w"))
  local x = ""
  for i = 1, 20 do x = x .. words[i] end
  acc = acc + #x
  acc = acc + (text:find("word199", 1, true) or 0)
end
print(acc)
