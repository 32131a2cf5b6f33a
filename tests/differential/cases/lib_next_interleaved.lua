-- `next` over several tables at once, with keys taken from another
-- traversal, cleared during the traversal, and absent: the answers never
-- depend on which call came before. (Orders are compared, not printed:
-- the reference's traversal order is its hash order.)
local a, b = {}, {}
for i = 1, 12 do a["k" .. i] = i end
for i = 12, 1, -1 do b["k" .. i] = -i end
local function alone(t)
  local s, k = {}, nil
  repeat k = next(t, k) s[#s + 1] = tostring(k) until k == nil
  return table.concat(s, " ")
end
local sa, sb = {}, {}
local ka, kb = nil, nil
repeat
  ka = next(a, ka)
  kb = next(b, kb)
  sa[#sa + 1] = tostring(ka)
  sb[#sb + 1] = tostring(kb)
until ka == nil and kb == nil
print(table.concat(sa, " ") == alone(a), table.concat(sb, " ") == alone(b), #sa)

-- a key found in one table, asked of the other, back and forth
local ok = true
for k in pairs(a) do
  local x = next(b, k)
  local y = next(a, k)
  local x2 = next(b, k)
  ok = ok and x == x2 and (y == nil or a[y] ~= nil) and (x == nil or b[x] ~= nil)
end
print(ok)

-- clearing the visited field while traversing
local n, sum = 0, 0
for k, v in pairs(a) do
  a[k] = nil
  n, sum = n + 1, sum + v
end
print(n, sum, next(a))

-- mixed keys: every key visited once
local f = {[2^53] = "big", [0.5] = "half", x = 1, [true] = 2, [-7] = 3}
f[3.0] = "three"
local count, seen = 0, {}
for k in pairs(f) do count = count + 1 seen[k] = (seen[k] or 0) + 1 end
print(count, seen[2^53], seen[3], seen[0.5], seen.x, seen[true], seen[-7])

-- an absent key, right after a successful call
print((pcall(next, b, "k5")), pcall(next, b, "nope"))
print(pcall(next, b, 0/0))
