-- A concatenation longer than 40 bytes makes a *loose* string, one the
-- interner does not hold (vm string.rs): equal to any string of the same
-- bytes, and the same table key as any of them, whichever was made first
-- and however (a literal, string.rep, another concatenation).
local x30, y20 = string.rep("x", 30), string.rep("y", 20)
local lit = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyyyyyyyyyyyyyyyyyyyy"
local a = x30 .. y20
local b = x30 .. y20
local r = string.rep("x", 30) .. string.rep("y", 20)
print(#a, a == b, a == lit, lit == a, rawequal(a, b), rawequal(lit, b), a ~= b)
print(a < lit, a <= lit, a < a .. "!", (a .. "!") > a)
print(a == "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyyyyyyyyyyyyyyyyyyyy", a ~= "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyyyyyyyyyyyyyyyyyyyy")
-- Same length, different bytes, and a 40-byte result (still interned).
local c = x30 .. string.rep("z", 20)
local d40 = x30 .. string.rep("y", 10)
print(a == c, c == a, #d40, d40 == string.rep("x", 30) .. "yyyyyyyyyy")

-- Table keys: stored through one, found through the others.
local t = {}
t[a] = 1
print(t[b], t[lit], t[r], rawget(t, b), t[c])
t[b] = 2
print(t[a], t[lit])
rawset(t, r, 3)
print(t[lit], rawget(t, a))
local n = 0
for k, v in pairs(t) do
  n = n + 1
  print("key", #k, k == a, v)
end
print(n, next(t, b), next(t, lit))
t[a .. ""] = nil
print(t[lit], next(t))
t[lit] = "lit"
print(t[b], t[a], t[x30 .. y20])

-- A key made first by concatenation, read through a literal, and a
-- constructor's key.
local u = {[x30 .. "q" .. y20] = "first", [a] = "ctor"}
print(u["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxqyyyyyyyyyyyyyyyyyyyy"], u[lit])

-- Globals, and keys passed to metamethods.
_G[x30 .. "_global_" .. y20] = 42
print(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_global_yyyyyyyyyyyyyyyyyyyy)
local seen = {}
local proxy = setmetatable({}, {
  __index = function(_, k) return k == lit and "index" or "other" end,
  __newindex = function(_, k, v) seen[k] = v end,
})
print(proxy[b], proxy[c])
proxy[b] = "newindex"
print(seen[lit], rawget(proxy, lit))
local chain = setmetatable({}, {__index = {[lit] = "chained"}})
print(chain[a], chain[c])
-- A chain too long for the loop's own walk, a string's __index, and a
-- __newindex that does not apply to a key already there.
local deep = {[lit] = "deep"}
for _ = 1, 12 do deep = setmetatable({}, {__index = deep}) end
string[lit] = "a string field"
print(deep[b], ("s")[b], ("s")[c])
string[lit] = nil
local guarded = setmetatable({[lit] = 1}, {__newindex = function() print("__newindex called") end})
guarded[b] = 2
print(rawget(guarded, lit))

-- Strings built in a loop, compared and used as keys.
local s1, s2 = "", ""
for i = 1, 60 do
  s1 = s1 .. i
  s2 = s2 .. tostring(i)
end
local w = {[s1] = true}
print(#s1, s1 == s2, w[s2], s1:sub(1, 10), s1:find("5960", 1, true))
local parts = {}
for i = 1, 5 do parts[#parts + 1] = x30 .. i .. y20 end
table.sort(parts, function(p, q) return p > q end)
print(parts[1] == x30 .. 5 .. y20, #table.concat(parts))

-- As a module name, and through a string method and a coroutine.
package.preload[x30 .. ".module." .. y20] = function(name) return {name = #name} end
print(require("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.module.yyyyyyyyyyyyyyyyyyyy").name)
print(a:upper() == string.upper(lit), (a:gsub("x", "")) == y20)
local co = coroutine.wrap(function(v) local k = coroutine.yield(v == lit) return t[k] end)
print(co(a), co(b))
