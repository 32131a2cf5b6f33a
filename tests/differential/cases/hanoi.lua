local moves = {}
local function hanoi(n, from, to, via)
  if n == 0 then return end
  hanoi(n - 1, from, via, to)
  moves[#moves + 1] = from .. "->" .. to
  hanoi(n - 1, via, to, from)
end
hanoi(4, "A", "C", "B")
local s = ""
for i, m in ipairs(moves) do s = s .. m .. (i % 5 == 0 and "\n" or " ") end
print(s)
moves = {}
hanoi(16, "A", "C", "B")
print(#moves, moves[1], moves[#moves], moves[32768])
