-- Brainfuck interpreter; program given as a table of single-character strings
local function bf(prog, input)
  local tape, ptr, pc, out, inp = {}, 1, 1, {}, 1
  local jump, stack = {}, {}
  for i, c in ipairs(prog) do
    if c == "[" then stack[#stack + 1] = i
    elseif c == "]" then local j = stack[#stack] stack[#stack] = nil jump[i] = j jump[j] = i end
  end
  while pc <= #prog do
    local c = prog[pc]
    if c == ">" then ptr = ptr + 1
    elseif c == "<" then ptr = ptr - 1
    elseif c == "+" then tape[ptr] = ((tape[ptr] or 0) + 1) % 256
    elseif c == "-" then tape[ptr] = ((tape[ptr] or 0) - 1) % 256
    elseif c == "." then out[#out + 1] = tape[ptr] or 0
    elseif c == "," then tape[ptr] = input[inp] or 0 inp = inp + 1
    elseif c == "[" then if (tape[ptr] or 0) == 0 then pc = jump[pc] end
    elseif c == "]" then if (tape[ptr] or 0) ~= 0 then pc = jump[pc] end
    end
    pc = pc + 1
  end
  return out
end
local function chars(spec)
  -- spec is a list of {char, count}
  local t = {}
  for _, p in ipairs(spec) do for _ = 1, p[2] do t[#t + 1] = p[1] end end
  return t
end
-- cell0 = 8; loop: cell1 += 9 ; result 72 ('H'), then print; add 29 -> 101 ('e')
local prog = chars({{"+", 8}, {"[", 1}, {">", 1}, {"+", 9}, {"<", 1}, {"-", 1}, {"]", 1}, {">", 1}, {".", 1},
  {"+", 29}, {".", 1}, {"+", 7}, {".", 1}, {".", 1}, {"+", 3}, {".", 1}})
local out = bf(prog, {})
local s = ""
for _, v in ipairs(out) do s = s .. v .. " " end
print(s)
-- echo input doubled: ,[>++<-]>.
local echo = chars({{",", 1}, {"[", 1}, {">", 1}, {"+", 2}, {"<", 1}, {"-", 1}, {"]", 1}, {">", 1}, {".", 1}})
print(bf(echo, {21})[1])
