-- table.insert/remove/move/concat/pack/unpack: results, lengths,
-- metamethods (__index/__newindex/__len as lua_geti/lua_seti/luaL_len)
-- and ltablib's error messages.
local function dump(t, n)
  local out = {}
  for i = 1, n or #t do out[#out + 1] = tostring(t[i]) end
  return "{" .. table.concat(out, ",") .. "}"
end

local t = {}
table.insert(t, "a") table.insert(t, "b") table.insert(t, 1, "c") table.insert(t, 2, "d")
table.insert(t, #t + 1, "e")
print(dump(t), #t)
print(pcall(table.insert, t, 0, "x"), pcall(table.insert, t, 7, "x"), pcall(table.insert, t, 6, "x"))
print(pcall(table.insert, t), pcall(table.insert, t, 1, 2, 3), pcall(table.insert, nil, 1))
print(pcall(table.insert, t, "2", "y"), pcall(table.insert, t, 1.5, "y"), dump(t))
print(table.remove(t), table.remove(t, 1), dump(t), #t)
print(table.remove({}), table.remove({}, 0), table.remove({}, 1), pcall(table.remove, {}, 2))
local r = {1, 2, 3}
print(pcall(table.remove, r, 5), pcall(table.remove, r, -1), table.remove(r, 4), dump(r))
print(table.remove(r, #r + 1), dump(r), table.remove(r, 1), dump(r))
local z = {[0] = "zero"} print(table.remove(z, 0), z[0])
print(pcall(table.remove, {n = 1}, "x"))

print(table.concat({}), table.concat({1, 2, 3}), table.concat({1, 2.5, "x"}, ", "))
print(table.concat({"a", "b", "c"}, "-", 2), table.concat({"a", "b", "c"}, "-", 2, 3))
print(table.concat({"a", "b", "c"}, "-", 3, 2), table.concat({"a", "b"}, 0, 1, 2))
print(pcall(table.concat, {1, {}, 3}), pcall(table.concat, {1, 2}, "", 1, 3))
print(pcall(table.concat, {true}), pcall(table.concat, {}, {}), pcall(table.concat, "x"))

local p = table.pack() print(p.n, #p)
p = table.pack(1, nil, 3, nil) print(p.n, p[1], p[2], p[3], p[4])
print(table.unpack({1, 2, 3}))
print(table.unpack({1, 2, 3}, 2), table.unpack({1, 2, 3}, 2, 5))
print(table.unpack({1, 2, 3}, -1, 1))
print(select("#", table.unpack({}, 1, 0)), select("#", table.unpack({}, 5, 2)))
print(table.unpack({"x"}, math.maxinteger, math.maxinteger))
print(table.unpack({"y"}, math.mininteger, math.mininteger))
print(pcall(table.unpack, {}, 1, 1e8), pcall(table.unpack, {}, math.mininteger, math.maxinteger))
print(pcall(table.unpack, {}, 1, "x"), pcall(table.unpack, nil))
print(table.unpack(setmetatable({}, {__index = function(_, i) return i * 10 end}), 1, 3))

print(dump(table.move({1, 2, 3}, 1, 3, 2), 4), dump(table.move({1, 2, 3}, 2, 3, 1)))
print(dump(table.move({1, 2, 3}, 1, 3, 1, {}), 3), dump(table.move({1, 2, 3}, 1, 0, 1, {9}), 1))
print(dump(table.move({1, 2, 3, 4, 5}, 2, 4, 3), 6))
print(pcall(table.move, {}, 1, math.maxinteger, 2))
print(pcall(table.move, {}, -1, math.maxinteger, 2))
print(pcall(table.move, {}, 1, 2, math.maxinteger))
print(pcall(table.move, {}, 1, 2), pcall(table.move, 1, 1, 1, 1), pcall(table.move, {}, 1, 1, 1, 2))
local a = {1, 2, 3}
print(table.move(a, 1, 3, 1, a) == a, table.move(a, 1, 3, 1) == a)

-- metamethods
local log = {}
local store = {10, 20, 30}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get" .. k return store[k] end,
  __newindex = function(_, k, v) log[#log + 1] = "set" .. k .. "=" .. tostring(v) store[k] = v end,
  __len = function() log[#log + 1] = "len" return #store end,
})
table.insert(proxy, 40) table.insert(proxy, 1, 5)
print(table.remove(proxy), table.remove(proxy, 1), table.concat(proxy, ","), table.unpack(proxy))
print(table.concat(log, " "))
log = {}
table.move(proxy, 1, 3, 2) print(table.concat(log, " "), dump(store))
print(pcall(table.insert, setmetatable({}, {__len = function() return "3" end}), "x"))
print(pcall(table.insert, setmetatable({}, {__len = function() return 2.5 end}), "x"))
print(pcall(table.insert, setmetatable({}, {__len = function() return {} end}), "x"))
local ud = setmetatable({}, {__len = function() return 2 end})
table.insert(ud, "v") print(rawget(ud, 3))
-- non-table first argument with the metamethods it needs
local s = "abc"
print(pcall(table.concat, s), pcall(table.insert, s, 1), pcall(table.unpack, s))
print(#(function(...) return table.pack(...) end)(1, 2, 3))
