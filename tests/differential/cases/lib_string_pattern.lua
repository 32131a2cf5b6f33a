-- The glue of find/match/gmatch/gsub: return values, captures (including
-- position captures), init handling, gsub replacements and counts, on
-- generated subjects and patterns.
local seed = 777
local function rnd(n)
  seed = seed * 6364136223846793005 + 1442695040888963407
  return (seed >> 33) % n
end
local function pick(t) return t[rnd(#t) + 1] end
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    if type(v) == "string" then
      t[i] = "'" .. v:gsub("[%c\128-\255]", function(c) return "\\" .. c:byte() end) .. "'"
    else
      t[i] = tostring(v)
    end
  end
  return table.concat(t, " ", 1, t.n)
end

local alphabet = {"a", "b", "c", " ", "1", "2", ".", "(", ")", "%", "\0", "x", "y"}
local function subject()
  local t = {}
  for i = 1, rnd(12) do t[i] = pick(alphabet) end
  return table.concat(t)
end
local items = {"a", "b", ".", "%a", "%d", "%s", "%w", "[ab]", "[^a]", "%.", "%%", "()", "x",
  "%bxy", "%f[%w]", "%z", "[%d.]", "%p", "(a)", "(%a+)", "(.-)", "%1"}
local quants = {"", "", "", "*", "+", "-", "?"}
local function pattern()
  local p = rnd(5) == 0 and "^" or ""
  for _ = 1, 1 + rnd(4) do
    local it = pick(items)
    p = p .. it
    if #it <= 2 and it ~= "()" and it ~= "%1" then p = p .. pick(quants) end
  end
  if rnd(6) == 0 then p = p .. "$" end
  return p
end

local inits = {nil, 1, 2, -1, -3, 0, 5, 100, -100}
for i = 1, 400 do
  local s, p = subject(), pattern()
  local init = inits[rnd(9) + 1]
  print(i, show(s, p, init))
  print("  find ", show(pcall(string.find, s, p, init)))
  print("  findp", show(pcall(string.find, s, p, init, true)))
  print("  match", show(pcall(string.match, s, p, init)))
  local ok, it = pcall(string.gmatch, s, p, init)
  local res = {}
  if ok then
    local ok2, e = pcall(function()
      for a, b in it do res[#res + 1] = show(a, b) if #res > 20 then break end end
    end)
    if not ok2 then res[#res + 1] = "error: " .. e end
  end
  print("  gmatch", table.concat(res, " | "))
  print("  gsub s", show(pcall(string.gsub, s, p, "<%0>", rnd(4) == 0 and 2 or nil)))
  print("  gsub t", show(pcall(string.gsub, s, p, {a = "A", b = false, ["1"] = 11, x = 1.5})))
  print("  gsub f", show(pcall(string.gsub, s, p, function(...)
    local n = select("#", ...)
    if n % 2 == 0 then return nil end
    return "[" .. n .. "]"
  end)))
end

-- fixed cases
print(show(string.find("hello world", "o", 6)))
print(show(string.find("hello", "")), show(string.find("hello", "", 10)), show(string.find("", "")))
print(show(string.find("a+b", "+", 1, true)), show(string.find("a.b", ".", 2, true)))
print(show(string.match("key = value", "(%w+)%s*=%s*(%w+)")))
print(show(string.match("  x", "()x()")))
print(show(string.match("hello", "^(h)(e)")), show(string.match("hello", "^e")))
print(show(string.gsub("hello world", "(o)", "[%1]")))
print(show(string.gsub("abc", "", "-")))
print(show(string.gsub("hello", "l", {l = 1})))
print(show(string.gsub("abc", "%w", "%%")))
print(show(pcall(string.gsub, "abc", "%w", "%2")))
print(show(pcall(string.gsub, "abc", "(%w)", "%9")))
print(show(pcall(string.gsub, "abc", "%w", "%x")))
print(show(pcall(string.gsub, "abc", "%w", true)))
print(show(pcall(string.gsub, "abc", "%w", function() return {} end)))
print(show(pcall(string.gsub, "abc", "%w", {a = {}})))
print(show(pcall(string.gsub, "abc", "(", "x")))
print(show(pcall(string.find, "abc", "[a")))
print(show(pcall(string.find, "abc", "%")))
print(show(pcall(string.find, "abc", "%g(")))
print(show(pcall(string.match, "abc", "%f")))
print(show(pcall(string.rep, "x", -1)), show(pcall(string.match, string.rep("a", 300), string.rep("(a)", 33))))
print(show(string.gsub("abc def", "%w+", "%0 %0", 1)))
print(show(string.gsub("one two three", "(%w+)", string.upper)))
print(show(string.gsub(12345, 3, 9)))
print(show(string.gsub("x = $x, y = $y", "%$(%w+)", {x = 10, y = "why"})))
local env = setmetatable({}, {__index = function(_, k) return k:upper() end})
print(show(string.gsub("a b c", "%w", env)))
for k, v in string.gmatch("a=1, b=2, c=3", "(%w+)=(%w+)") do io.write(k, "->", v, " ") end print()
for w in string.gmatch("^a^b", "^%w") do io.write("[", w, "]") end print()
for p in string.gmatch("abc", "()") do io.write(p, " ") end print()
for a in string.gmatch("hello", ".", 3) do io.write(a) end print()
for a in string.gmatch("hello", ".", -2) do io.write(a) end print()
local it = string.gmatch("ab", ".")
print(it(), it(), it(), it())
print(pcall(string.gmatch, "x"))
print(pcall(string.find, nil, "x"))
print(pcall(string.find, "x", "x", "y"))
print(string.find("abc", "b", 2.0), pcall(string.find, "abc", "b", 2.5))
