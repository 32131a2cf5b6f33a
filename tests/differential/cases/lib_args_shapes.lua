-- string.sub, string.byte, table.insert and table.remove: the common
-- argument shapes (read at once) beside the others, edge positions,
-- metatables, errors.
local s = "hello world"
print(s:sub(2), s:sub(-3), s:sub(0), s:sub(5, 2), s:sub(-100, 100), s:sub(3, -3), s:sub(2, 2.0), s:sub("2", "4"))
print(s:byte(), s:byte(-1), s:byte(0), s:byte(3, 5), s:byte(100), s:byte(2.0), s:byte(1, -1))
print(pcall(string.sub), pcall(string.sub, s), pcall(string.sub, s, 1.5), pcall(string.byte, s, {}))
print(("x"):sub(1,1,1), string.sub(123, 2))
local t = {}
table.insert(t, 1); table.insert(t, "a"); table.insert(t, nil); table.insert(t, 3)
print(#t, t[1], t[2], t[3], t[4])
print(table.remove(t), table.remove(t), #t, table.remove({}), table.remove({[0]=5}))
local z = {[0] = "zero"}; print(table.remove(z), z[0])
local mt = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end})
table.insert(mt, 5); print(mt[1])
print(pcall(table.insert, nil, 1), pcall(table.insert, {}, 1, 2, 3), pcall(table.insert))
local big = {} for i = 1, 10 do big[i] = i end
for i = 1, 5 do table.remove(big) end print(#big, big[5], big[6])
