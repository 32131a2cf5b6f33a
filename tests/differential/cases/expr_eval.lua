-- recursive-descent evaluator over a token list (no string library needed)
local function parse(tokens)
  local pos = 1
  local function peek() return tokens[pos] end
  local function take() pos = pos + 1 return tokens[pos - 1] end
  local expr
  local function atom()
    local t = take()
    if t == "(" then
      local v = expr()
      if take() ~= ")" then error("expected )") end
      return v
    elseif t == "-" then return {"neg", atom()}
    elseif type(t) == "number" then return {"num", t}
    elseif type(t) == "string" then return {"var", t}
    end
    error("unexpected token " .. tostring(t))
  end
  local function power()
    local b = atom()
    if peek() == "^" then take() return {"^", b, power()} end
    return b
  end
  local function term()
    local l = power()
    while peek() == "*" or peek() == "/" or peek() == "%" do l = {take(), l, power()} end
    return l
  end
  function expr()
    local l = term()
    while peek() == "+" or peek() == "-" do l = {take(), l, term()} end
    return l
  end
  local tree = expr()
  if pos <= #tokens then error("trailing tokens") end
  return tree
end
local function eval(n, env)
  local k = n[1]
  if k == "num" then return n[2]
  elseif k == "var" then return env[n[2]] or error("unbound " .. n[2])
  elseif k == "neg" then return -eval(n[2], env)
  end
  local a, b = eval(n[2], env), eval(n[3], env)
  if k == "+" then return a + b elseif k == "-" then return a - b
  elseif k == "*" then return a * b elseif k == "/" then return a / b
  elseif k == "%" then return a % b elseif k == "^" then return a ^ b end
end
local function show(n)
  if n[1] == "num" then return tostring(n[2]) end
  if n[1] == "var" then return n[2] end
  if n[1] == "neg" then return "(-" .. show(n[2]) .. ")" end
  return "(" .. show(n[2]) .. " " .. n[1] .. " " .. show(n[3]) .. ")"
end
local cases = {
  {1, "+", 2, "*", 3},
  {"(", 1, "+", 2, ")", "*", 3},
  {2, "^", 3, "^", 2},
  {"-", 2, "^", 2},
  {"x", "*", "x", "-", "y", "/", 4},
  {10, "%", 3, "+", 7.5},
  {1, "+"},
  {"z"},
}
for _, c in ipairs(cases) do
  local ok, tree = pcall(parse, c)
  if ok then
    local ok2, v = pcall(eval, tree, {x = 3, y = 2})
    print(show(tree), ok2, v)
  else
    print("parse error", tree)
  end
end
