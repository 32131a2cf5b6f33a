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
-- string.char and table.unpack: the common shapes (integers, array
-- parts without metatables) and the others.
print(string.char(), string.char(65, 66.0, "67"), pcall(string.char, 256), pcall(string.char, 65, -1), pcall(string.char, 65, {}), pcall(string.char, 1.5))
print(table.unpack({1, 2, 3}), table.unpack({1, 2, 3}, 2), table.unpack({1, 2, 3}, 2, 5), table.unpack({}, 1, 0), table.unpack({[0] = "z"}, 0, 0))
print(table.unpack(setmetatable({}, {__index = function(t, k) return k * 10 end}), 1, 3))
print(pcall(table.unpack, {}, 1, 1e8), table.unpack({1, 2, nil, 4}, 1, 4))
local t = {} for i = 1, 100 do t[i] = i end t[200] = 200
print(select('#', table.unpack(t)), select('#', table.unpack(t, 1, 200)), (table.unpack(t, 199, 200)))
