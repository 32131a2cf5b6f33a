-- table.sort without a comparator: the order of `__lt` calls, sorting
-- through a proxy (`__index`/`__newindex`), collections run from inside
-- the metamethods while values are in flight, and the errors (mixed
-- types, holes, an inconsistent `__lt`) with the table's state after them.
local log = {}
local mt = {__lt = function(a, b) log[#log + 1] = a.v .. "<" .. b.v return a.v < b.v end}
local function objs(vals)
  local t = {}
  for i, v in ipairs(vals) do t[i] = setmetatable({v = v}, mt) end
  return t
end
local function show(t)
  local s = {}
  for i = 1, #t do s[i] = tostring(type(t[i]) == "table" and t[i].v or t[i]) end
  return table.concat(s, " ")
end

local t = objs({5, 3, 9, 1, 7, 2, 8, 6, 4, 0, 11, 10, 3, 3})
table.sort(t)
print(show(t))
print(#log, table.concat(log, " "))

-- the same through a proxy whose accessors collect garbage: the values
-- the sort holds between a read and the write back must stay alive
local gcs = 0
local function proxy(store)
  return setmetatable({}, {
    __index = function(_, i) return store[i] end,
    __newindex = function(_, i, v) store[i] = v collectgarbage() gcs = gcs + 1 end,
    __len = function() return #store end,
  })
end
local store = objs({12, 4, 19, 7, 1, 15, 3, 18, 9, 0, 6, 11, 14, 2, 17, 8, 5, 16, 10, 13})
log = {}
table.sort(proxy(store))
print(show(store), gcs > 0, #log)

-- `__lt` collecting garbage, on values only the table holds
local gmt = {__lt = function(a, b) collectgarbage() return a.v < b.v end}
local big = {}
for i = 1, 60 do big[i] = setmetatable({v = (i * 37) % 61}, gmt) end
table.sort(big)
print(show(big))

-- numbers and strings, mixed integers and floats
local nums = {}
for i = 1, 200 do nums[i] = (i * 7919) % 211 + ((i % 3 == 0) and 0.5 or 0) end
table.sort(nums)
print(nums[1], nums[50], nums[100], nums[200])
local strs = {}
for i = 1, 100 do strs[i] = string.format("k%03d", (i * 37) % 101) end
table.sort(strs)
print(strs[1], strs[2], strs[100])

-- errors, and what the table holds after them
local mixed = {3, 1, "x", 2, 5, 4}
print(pcall(table.sort, mixed))
print(show(mixed))
local holes = {4, 2, nil, 1, 3}
holes[6] = 0
print(pcall(table.sort, holes))
local bad = objs({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
local badmt = {__lt = function() return true end}
for i = 1, #bad do setmetatable(bad[i], badmt) end
print(pcall(table.sort, bad))
print(show(bad))

-- a `__lt` that errors part way
local n = 0
local emt = {__lt = function(a, b) n = n + 1 if n == 25 then error("stop at 25") end return a.v < b.v end}
local e = {}
for i = 1, 30 do e[i] = setmetatable({v = (i * 11) % 31}, emt) end
print(pcall(table.sort, e))
print(show(e))
