-- table.sort with a comparator, on the main thread and inside a coroutine
-- (where the comparator may yield): the same calls in the same order, the
-- same results and the same errors either way.
local function run(vals, cmpbody)
  local log = {}
  local t = {table.unpack(vals)}
  local ok, err = pcall(table.sort, t, function(a, b)
    log[#log + 1] = a .. ":" .. b
    return cmpbody(a, b, #log)
  end)
  return table.concat(t, ","), table.concat(log, " "), ok, err
end
local function both(name, vals, cmpbody)
  local r1 = {run(vals, cmpbody)}
  local r2 = {coroutine.wrap(function() return run(vals, cmpbody) end)()}
  print(name, r1[1] == r2[1], r1[2] == r2[2], r1[3], r2[3], r1[4] == r2[4])
  print(r1[1])
  print(#r1[2], r1[2]:sub(1, 120))
  if not r1[3] then print(r1[4]) end
end

local vals = {}
local seed = 7
for i = 1, 150 do seed = (seed * 1103515245 + 12345) % 2147483648; vals[i] = seed % 1000 end
both("asc", vals, function(a, b) return a < b end)
both("desc", vals, function(a, b) return a > b end)
both("bad", {5, 1, 4, 2, 3, 9, 8, 7, 6, 0}, function() return true end)
both("error", vals, function(a, b, n) if n == 300 then error("at 300", 0) end return a < b end)
both("gc", vals, function(a, b, n) if n % 50 == 0 then collectgarbage() end return a < b end)

-- objects whose only references are the table and the sort's hands
local objs = {}
for i = 1, 80 do objs[i] = {v = (i * 29) % 83} end
table.sort(objs, function(a, b) collectgarbage("step") return a.v < b.v end)
local s = {}
for i = 1, #objs do s[i] = objs[i].v end
print(table.concat(s, " "))

-- a comparator that replaces every element with a copy and collects: the
-- values the sort holds in hand are then referenced by nothing else
local objs2 = {}
for i = 1, 60 do objs2[i] = {v = (i * 17) % 61} end
local calls = 0
table.sort(objs2, function(a, b)
  calls = calls + 1
  if calls % 7 == 0 then
    for i = 1, #objs2 do objs2[i] = {v = objs2[i].v} end
    collectgarbage()
  end
  return a.v < b.v
end)
local s2 = {}
for i = 1, #objs2 do s2[i] = objs2[i].v end
print(calls, table.concat(s2, " "))
