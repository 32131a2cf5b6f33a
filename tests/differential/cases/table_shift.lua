-- table.insert and table.remove at a position, and table.move within one
-- table: the shift as one move of array slots where it is raw and inside
-- the array part, one by one otherwise (metamethods, hash keys, holes).

local function show(t, n)
  local out = {}
  for i = 1, n do out[#out + 1] = tostring(t[i]) end
  return table.concat(out, " ")
end

-- Plain arrays: insert and remove at the front, middle and end.
local t = {}
for i = 1, 10 do t[i] = i * 10 end
table.insert(t, 1, "a")
table.insert(t, 6, "b")
table.insert(t, #t + 1, "c")
table.insert(t, #t, "d")
print(#t, show(t, #t))
print(table.remove(t, 1), table.remove(t, 5), table.remove(t, #t), table.remove(t))
print(#t, show(t, #t))
print(table.remove(t, #t + 1), #t)

-- An array that grows while inserting at the front.
local g = {}
for i = 1, 100 do table.insert(g, 1, i) end
print(#g, g[1], g[50], g[100])
for i = 1, 60 do table.remove(g, 2) end
print(#g, g[1], g[2], g[40])

-- Holes: nil values move with the others.
local h = {1, 2, nil, 4, 5, 6}
print(#h)
table.remove(h, 1)
print(show(h, 6))
table.insert(h, 2, "x")
print(show(h, 7))

-- Keys past the array part (in the hash part): moved one by one.
local m = {}
m[1] = "a"; m[2] = "b"; m[3] = "c"
m[4] = "d"
local big = {}
for i = 1, 8 do big[i] = i end
big[20] = 20
table.insert(big, 3, "mid")
print(#big, show(big, 10), big[20])
table.remove(big, 2)
print(#big, show(big, 10))

-- Metatables: __index and __newindex see every step.
local log = {}
local store = {1, 2, 3, 4, 5}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get" .. k; return store[k] end,
  __newindex = function(_, k, v) log[#log + 1] = "set" .. k; store[k] = v end,
  __len = function() return #store end,
})
table.insert(proxy, 2, "p")
print(show(store, 6), table.concat(log, ","))
log = {}
print(table.remove(proxy, 1), show(store, 6), table.concat(log, ","))
local counted = setmetatable({10, 20, 30, 40}, {__newindex = function(t, k, v) rawset(t, k, v) end})
table.insert(counted, 1, 5)
print(show(counted, 5))
print(table.remove(counted, 2), show(counted, 5))

-- table.move within one table, overlapping both ways, and past the end.
local mv = {}
for i = 1, 12 do mv[i] = i end
table.move(mv, 1, 5, 3)
print(show(mv, 12))
table.move(mv, 4, 10, 1)
print(show(mv, 12))
table.move(mv, 8, 12, 10)
print(#mv, show(mv, 14))
table.move(mv, 1, 3, 1)
print(show(mv, 14))
local moved = table.move(mv, 2, 4, 6, mv)
print(moved == mv, show(mv, 14))
print(pcall(table.move, mv, 1, math.maxinteger, 2))
print(pcall(table.insert, mv, 0, "z"), pcall(table.insert, mv, #mv + 2, "z"))
print(pcall(table.remove, mv, #mv + 2))

-- The shifts under a snapshot-free run still leave the table usable.
local q = {}
for r = 1, 3 do
  for i = 1, 200 do table.insert(q, 1, i) end
  for i = 1, 150 do table.remove(q, 1 + i % 5) end
end
local s = 0
for i = 1, #q do s = s + q[i] end
print(#q, s)
