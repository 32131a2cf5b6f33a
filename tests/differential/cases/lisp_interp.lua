-- a tiny Lisp over nested tables: symbols are strings, lists are tables
local Env = {}
Env.__index = function(e, k) local p = rawget(e, "__parent") if p then return p[k] end end
local function env(parent) return setmetatable({__parent = parent}, Env) end
local eval
local function apply(f, args)
  if type(f) == "function" then return f(args) end
  local e = env(f.env)
  for i, p in ipairs(f.params) do e[p] = args[i] end
  local r
  for i = 1, #f.body do r = eval(f.body[i], e) end
  return r
end
function eval(x, e)
  if type(x) == "string" then return e[x] end
  if type(x) ~= "table" then return x end
  local op = x[1]
  if op == "quote" then return x[2]
  elseif op == "if" then
    if eval(x[2], e) then return eval(x[3], e) else return eval(x[4], e) end
  elseif op == "define" then e[x[2]] = eval(x[3], e) return nil
  elseif op == "lambda" then
    local body = {}
    for i = 3, #x do body[#body + 1] = x[i] end
    return {params = x[2], body = body, env = e}
  elseif op == "begin" then
    local r
    for i = 2, #x do r = eval(x[i], e) end
    return r
  end
  local f = eval(op, e)
  local args = {}
  for i = 2, #x do args[i - 1] = eval(x[i], e) end
  return apply(f, args)
end
local global = env(nil)
global["+"] = function(a) local s = 0 for _, v in ipairs(a) do s = s + v end return s end
global["-"] = function(a) return a[1] - a[2] end
global["*"] = function(a) local s = 1 for _, v in ipairs(a) do s = s * v end return s end
global["<"] = function(a) return a[1] < a[2] end
global["="] = function(a) return a[1] == a[2] end
global["list"] = function(a) return a end
global["car"] = function(a) return a[1][1] end
global["cdr"] = function(a) local r = {} for i = 2, #a[1] do r[i - 1] = a[1][i] end return r end
global["null?"] = function(a) return #a[1] == 0 end
local prog = {
  {"define", "fact", {"lambda", {"n"}, {"if", {"<", "n", 2}, 1, {"*", "n", {"fact", {"-", "n", 1}}}}}},
  {"define", "fib", {"lambda", {"n"}, {"if", {"<", "n", 2}, "n", {"+", {"fib", {"-", "n", 1}}, {"fib", {"-", "n", 2}}}}}},
  {"define", "sum", {"lambda", {"l"}, {"if", {"null?", "l"}, 0, {"+", {"car", "l"}, {"sum", {"cdr", "l"}}}}}},
  {"define", "make-adder", {"lambda", {"k"}, {"lambda", {"x"}, {"+", "x", "k"}}}},
  {"define", "add5", {"make-adder", 5}},
}
for _, form in ipairs(prog) do eval(form, global) end
print(eval({"fact", 10}, global))
print(eval({"fact", 20}, global))
print(eval({"fib", 15}, global))
print(eval({"sum", {"list", 1, 2, 3, 4, 5}}, global))
print(eval({"add5", 37}, global))
print(eval({"begin", {"define", "x", 4}, {"*", "x", "x"}}, global))
