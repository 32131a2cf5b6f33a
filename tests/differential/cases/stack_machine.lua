-- a tiny stack-based VM with instructions as tables
local program = {
  {"push", 10}, {"push", 20}, {"add"}, {"dup"}, {"mul"}, {"print"},
  {"push", 0}, {"store", "i"},
  {"load", "i"}, {"push", 5}, {"lt"}, {"jz", 20},
  {"load", "i"}, {"print"},
  {"load", "i"}, {"push", 1}, {"add"}, {"store", "i"},
  {"jmp", 9},
  {"push", "done"}, {"print"}, {"halt"},
}
local function run(prog)
  local stack, vars, pc = {}, {}, 1
  local function push(v) stack[#stack + 1] = v end
  local function pop() local v = stack[#stack] stack[#stack] = nil return v end
  while true do
    local ins = prog[pc]
    local op = ins[1]
    pc = pc + 1
    if op == "push" then push(ins[2])
    elseif op == "add" then local b, a = pop(), pop() push(a + b)
    elseif op == "mul" then local b, a = pop(), pop() push(a * b)
    elseif op == "lt" then local b, a = pop(), pop() push(a < b and 1 or 0)
    elseif op == "dup" then local v = pop() push(v) push(v)
    elseif op == "print" then print(pop())
    elseif op == "store" then vars[ins[2]] = pop()
    elseif op == "load" then push(vars[ins[2]])
    elseif op == "jz" then if pop() == 0 then pc = ins[2] end
    elseif op == "jmp" then pc = ins[2]
    elseif op == "halt" then return #stack
    else error("bad op " .. tostring(op)) end
  end
end
print("stack left", run(program))
