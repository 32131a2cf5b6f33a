local function rpn(tokens)
  local st = {}
  for _, t in ipairs(tokens) do
    if type(t) == "number" then st[#st + 1] = t
    else
      local b, a = st[#st], st[#st - 1]
      if a == nil or b == nil then error("stack underflow at " .. t, 0) end
      st[#st] = nil
      if t == "+" then a = a + b elseif t == "-" then a = a - b
      elseif t == "*" then a = a * b elseif t == "/" then a = a / b
      elseif t == "//" then a = a // b elseif t == "^" then a = a ^ b
      else error("unknown op " .. t, 0) end
      st[#st] = a
    end
  end
  return st[#st], #st
end
print(rpn({3, 4, "+", 2, "*"}))
print(rpn({5, 1, 2, "+", 4, "*", "+", 3, "-"}))
print(rpn({2, 3, "^", 2, "/"}))
print(rpn({7, 2, "//", 1.5, "*"}))
print(pcall(rpn, {1, "+"}))
print(pcall(rpn, {1, 2, "%"}))
print(pcall(rpn, {1, 0, "//"}))
