-- gsub with a replacement function: the function's results, errors,
-- yields, collections and nesting.
local text = "alpha beta, gamma-delta  epsilon"

-- results of every type the replacement may give
print(text:gsub("%a+", function(w) return #w end))
print(text:gsub("%a+", function(w) if #w > 4 then return w:upper() end end))
print(text:gsub("%a+", function(w) return #w % 2 == 0 and w:upper() end))
print(pcall(string.gsub, text, "%a+", function(w) return {} end))
print(pcall(string.gsub, text, "%a", function(w) return true end))
print(text:gsub("(%a)(%a*)", function(a, b) return b .. a end))
print(text:gsub("()(%a+)()", function(p, w, q) return p .. w .. q end))
print(text:gsub(".", function(c) if c == " " then return "_" end end, 7))
print(("abc"):gsub("", function() return "-" end))
print(("abc"):gsub("x*", function(e) return "[" .. e .. "]" end))

-- errors raised by the replacement carry its position
print(pcall(string.gsub, text, "%a+", function(w) error("no " .. w) end))
local ok, e = pcall(string.gsub, text, "%a+", function(w) error({w}) end)
print(ok, type(e), e[1])
print(select(2, pcall(string.gsub, text, "%a+", function(w) local x = nil; return x.y end)))

-- a collection in the replacement: the captures handed over survive it
local seen = {}
local r = text:gsub("(%a)(%a+)", function(a, b)
  collectgarbage()
  for i = 1, 50 do local _ = {i, tostring(i) .. b} end
  seen[#seen + 1] = a .. b
  return b .. a
end)
print(r, table.concat(seen, ","))

-- nested: gsub inside the replacement of a gsub
print(text:gsub("%a+", function(w)
  return (w:gsub(".", function(c) return c:byte() % 10 end))
end))

-- the replacement may not yield outside a coroutine (inside one, lua5.4
-- cannot yield across gsub while we can: stdlib/tests/lib_glue.rs)
print(pcall(string.gsub, text, "%a+", function(w) return coroutine.yield(w) end))

-- a C-call boundary: a metamethod call below the gsub
local t = setmetatable({}, {__index = function(_, k)
  return (k:gsub(".", function(c) return c .. c end))
end})
print(t.abc)
print(pcall(function()
  return setmetatable({}, {__index = function(_, k)
    return (k:gsub(".", function(c) return coroutine.yield(c) end))
  end}).xy
end))

-- deep recursion through gsub ends in an error, not a crash
local function deep(s, n)
  return (s:gsub(".", function(c) return deep(c, n + 1) end))
end
local ok, e = pcall(deep, "a", 0)
print(ok, (tostring(e):gsub("^.-:%d+: ", "")))
