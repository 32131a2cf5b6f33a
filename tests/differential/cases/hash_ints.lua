-- Appends to tables whose hash part holds fields, integer keys, or
-- integer keys deleted since: the hash part's positive-integer flag.
local function dump(t)
  local ks = {}
  for k, v in pairs(t) do ks[#ks + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(ks) -- the hash part's order is ours (insertion), not 5.4's
  return #t .. " [" .. table.concat(ks, " ") .. "]"
end

-- fields and an array
local o = {name = "x", [0] = 0, [-3] = "neg"}
for i = 1, 20 do o[#o + 1] = i * i end
print(dump(o))

-- a positive key ahead of the array, then appends that reach it
local a = {tag = true}
a[5] = "five"
for i = 1, 8 do
  if a[i] == nil then a[i] = i end
end
print(dump(a))

-- a key deleted (a tombstone in the hash part), then re-set by an append
local b = {k = 1}
b[3] = 3
b[3] = nil
b[1] = 1; b[2] = 2; b[3] = "again"; b[4] = 4
print(dump(b))
print(b[3], b[4], b[5])

-- table.insert and # on a table with fields
local c = {n = 0}
for i = 1, 100 do table.insert(c, i); c.n = c.n + 1 end
table.insert(c, 1, "first")
print(#c, c[1], c[2], c[101], c.n)

-- reads past the array part
local d = {x = 1}
for i = 1, 10 do d[i] = i end
print(d[11], d[0], d[-1], d[10])
d[12] = 12
print(d[11], d[12], #d == 10 or #d == 12)

-- a float key equal to an integer goes where the integer would
local e = {y = 2}
e[1.0] = "one"; e[2] = "two"; e[3.0] = "three"
print(dump(e), math.type(next(e)))

-- counting in the hash part, then growing the array over it
local f = {}
for i = 10, 1, -1 do f[i] = i end
f.z = "z"
for i = 11, 30 do f[i] = i end
local s = 0
for i, v in ipairs(f) do s = s + v end
print(s, #f, f.z)
