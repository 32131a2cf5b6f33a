local function three() return 1, 2, 3 end
local function show(t, n)
  local s = ""
  for i = 1, n do s = s .. tostring(t[i]) .. " " end
  return s
end
local t1 = {three()}
local t2 = {three(), three()}
local t3 = {(three())}
local t4 = {three(), x = 1}
local t5 = {x = 1, three()}
print(#t1, #t2, #t3, #t4, #t5)
print(show(t2, 4))
local m = {1, 2; 3, [10] = "ten", name = "n", ["key with space"] = true, [2 + 3] = "five"}
print(m[1], m[3], m[5], m[10], m.name, m["key with space"])
local nested = {{1, 2}, {3, {4, {5}}}, a = {b = {c = "deep"}}}
print(nested[2][2][2][1], nested.a.b.c)
local function va(...) return {..., "last"} end
print(#va(1, 2, 3), va(1, 2, 3)[2])
local function va2(...) return {"first", ...} end
print(#va2(1, 2, 3), va2(1, 2, 3)[4])
local e = {}
print(#e, next(e))
local order = ""
local function f(x) order = order .. x return x end
local o = {f("a"), f("b"), k = f("c"), f("d")}
print(order)
