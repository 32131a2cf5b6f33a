-- register machine computing primes and gcds
local function run(code, regs)
  local pc = 1
  local steps = 0
  while true do
    local ins = code[pc]
    steps = steps + 1
    local op, a, b, c = ins[1], ins[2], ins[3], ins[4]
    if op == "set" then regs[a] = b pc = pc + 1
    elseif op == "mov" then regs[a] = regs[b] pc = pc + 1
    elseif op == "add" then regs[a] = regs[b] + regs[c] pc = pc + 1
    elseif op == "sub" then regs[a] = regs[b] - regs[c] pc = pc + 1
    elseif op == "mod" then regs[a] = regs[b] % regs[c] pc = pc + 1
    elseif op == "jz" then if regs[a] == 0 then pc = b else pc = pc + 1 end
    elseif op == "jmp" then pc = a
    elseif op == "halt" then return regs, steps
    end
  end
end
-- gcd(r1, r2) -> r1
local gcd = {
  {"jz", 2, 6},
  {"mod", 3, 1, 2},
  {"mov", 1, 2},
  {"mov", 2, 3},
  {"jmp", 1},
  {"halt"},
}
for _, p in ipairs({{48, 18}, {1071, 462}, {17, 5}, {100, 75}}) do
  local regs, steps = run(gcd, {p[1], p[2], 0})
  print("gcd", p[1], p[2], "=", regs[1], "steps", steps)
end
