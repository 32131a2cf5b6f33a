-- table.sort on generated arrays, with and without comparators: results,
-- comparison counts and call sequences (the port follows ltablib's
-- quicksort comparison for comparison), bad comparators and errors.
local seed = 99
local function rnd(n)
  seed = seed * 6364136223846793005 + 1442695040888963407
  return (seed >> 33) % n
end

local function gen(n, range)
  local t = {}
  for i = 1, n do t[i] = rnd(range) end
  return t
end
local function check(t, lt)
  for i = 2, #t do if lt(t[i], t[i - 1]) then return false end end
  return true
end
local function lt(a, b) return a < b end

for _, n in ipairs({0, 1, 2, 3, 4, 5, 7, 10, 16, 33, 64, 99, 100, 101, 150, 300, 1000}) do
  for _, range in ipairs({3, 50, 1000000}) do
    local t = gen(n, range)
    local calls = 0
    local t2 = {table.unpack(t)}
    table.sort(t)
    table.sort(t2, function(a, b) calls = calls + 1 return a > b end)
    local h = 0
    for i = 1, #t2 do h = (h * 31 + t2[i]) % 1000000007 end
    print(n, range, check(t, lt), check(t2, function(a, b) return a > b end), calls, h,
      table.concat(t, ",", 1, math.min(#t, 12)))
  end
end

-- the exact sequence of comparisons on a small array
local log = {}
local t = {5, 3, 9, 1, 7, 2, 8, 6, 4, 0, 11, 10}
table.sort(t, function(a, b) log[#log + 1] = a .. "<" .. b return a < b end)
print(table.concat(t, " "))
print(table.concat(log, " "))

-- strings, floats, mixed numbers, metamethods
local words = {"pear", "apple", "fig", "banana", "kiwi", "Apple", "", "a\0b", "a"}
table.sort(words) print(table.concat(words, "|"))
local nums = {3, 1.5, -2, 2^53, -0.0, 1e300, -1/0, 1/0, 7, 2}
table.sort(nums) print(table.concat(nums, " "))
local mt = {__lt = function(a, b) return a.v < b.v end}
local objs = {}
for i = 1, 20 do objs[i] = setmetatable({v = (i * 7) % 20}, mt) end
table.sort(objs)
local vs = {} for i = 1, #objs do vs[i] = objs[i].v end print(table.concat(vs, " "))
-- records by key (stable output: distinct keys)
local recs = {}
for i = 1, 30 do recs[i] = {k = (i * 13) % 31, name = "r" .. i} end
table.sort(recs, function(a, b) return a.k > b.k end)
local names = {} for i = 1, #recs do names[i] = recs[i].name end print(table.concat(names, " "))

-- bad comparators: errors where lua5.4 raises them, never a hang
local bad = {
  function() return true end,
  function(a, b) return a <= b end,
  function(a, b) return a ~= b end,
  function(a, b) return (a + b) % 3 == 0 end,
}
for k, f in ipairs(bad) do
  for _, n in ipairs({3, 4, 10, 50, 120}) do
    local t = gen(n, 7)
    local ok, e = pcall(table.sort, t, f)
    print("bad", k, n, ok, e)
  end
end
print(pcall(table.sort, {3, 1, 2}, 3))
print(pcall(table.sort, {1, "x", 3}))
print(pcall(table.sort, {{}, {}}))
print(pcall(table.sort, "abc"))
print(pcall(table.sort))
print(pcall(table.sort, {1, nil, 3}))
local ok, e = pcall(table.sort, {3, 2, 1}, function(a, b) error("boom") end)
print(ok, e)
print(pcall(table.sort, setmetatable({}, {__len = function() return math.maxinteger end})))
-- proxies: __index/__newindex/__len
local store = {5, 4, 3, 2, 1}
local reads, writes = 0, 0
local proxy = setmetatable({}, {
  __index = function(_, i) reads = reads + 1 return store[i] end,
  __newindex = function(_, i, v) writes = writes + 1 store[i] = v end,
  __len = function() return #store end,
})
table.sort(proxy)
print(table.concat(store, " "), reads, writes)
-- comparator that yields inside a coroutine
local co = coroutine.wrap(function()
  local t = {4, 2, 3, 1}
  local ok, e = pcall(table.sort, t, function(a, b) return a < b end)
  return ok, e, table.concat(t, " ")
end)
print(co())
