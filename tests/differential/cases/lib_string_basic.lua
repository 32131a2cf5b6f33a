-- string.byte/char/sub/rep/len/lower/upper/reverse/dump, the string
-- metatable and string arithmetic, with lstrlib's index rules and errors.
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

local s = "hello"
local idx = {math.mininteger, -100, -6, -5, -2, -1, 0, 1, 2, 4, 5, 6, 100, math.maxinteger}
for _, i in ipairs(idx) do
  local row = {}
  for _, j in ipairs(idx) do row[#row + 1] = s:sub(i, j) end
  print("sub", i, table.concat(row, ","))
  print("sub1", i, s:sub(i))
  print("byte", i, show(s:byte(i)), show(s:byte(i, -1)), show(s:byte(i, i + 1)))
end
print(show(string.byte("")), show(string.byte("abc", 0)), show(("\0\255"):byte(1, 2)))
print(pcall(string.sub, "x"), pcall(string.sub, "x", 1.5), pcall(string.sub, "x", "2"))
print(show(string.sub(12345, 2, 3)), show(string.len(123.0)), #tostring(12))
print(show(string.char()), show(string.char(0, 65, 255)))
print(pcall(string.char, 256), pcall(string.char, -1), pcall(string.char, 65, "x"))
print(show(string.rep("ab", 3)), show(string.rep("ab", 3, "-")), show(string.rep("x", 0)))
print(show(string.rep("x", -5, "sep")), show(string.rep("", 10)), show(string.rep("", 5, ",")))
print(show(string.rep("", 1000)), pcall(string.rep, "x", 1 << 40))
print(pcall(string.rep, "ab", math.maxinteger, ""), pcall(string.rep, "", 1 << 40, "x"))
print(#string.rep("abc", 1000, "!!"))
print(show(("MiXeD 123 \200"):lower()), show(("MiXeD 123 \200"):upper()))
print(show(("abc\0def"):reverse()), show(string.reverse("")))
print(show(string.len("a\0b")), show(("x"):len()))
print(pcall(string.len), pcall(string.len, {}), pcall(string.upper, nil))
print(pcall(string.dump, print), pcall(string.dump, 1))
-- the string metatable
local mt = getmetatable("")
print(type(mt), mt.__index == string, type(mt.__add), type(mt.__unm), mt.__band)
print(("x"):rep(3), ("%d"):format(7), pcall(function() return (5):type() end))
print("10" + 1, "0x10" * "2", -"2", "3" // 2.0, "7" % "4", "2" ^ "10", "1e1" / 4, " 5 " - 1)
print(math.type("10" + 1), math.type("10" + 1.0), math.type("1.0" + 1))
for _, f in ipairs({
  function() return "10" // "0" end, function() return "10" % 0 end,
  function() return "10" + {} end, function() return {} + "10" end,
  function() return -"abc" end, function() return "abc" + 1 end,
  function() return "1" & 1 end, function() return "a" .. {} end,
  function() return "x" < 1 end, function() return #5 end,
}) do print(pcall(f)) end
local obj = setmetatable({}, {__add = function(a, b) return "added" end})
print("5" + obj, obj + "5")
print(mt.__add("3", "4"), mt.__unm("3", "3"), pcall(mt.__add, "a", "b"))
print(pcall(mt.__idiv, 1, {}))
