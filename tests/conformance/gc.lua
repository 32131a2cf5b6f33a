-- collectgarbage options and basic collector behaviour (no exact numbers).
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- "count" returns a single number (KB in use)
do
  local k = collectgarbage("count")
  eq(type(k), "number", "count is a number")
  eq(select("#", collectgarbage("count")), 1, "count returns one value")
  assert(k > 0, "some memory is in use")
end

-- collect (default) returns 0
eq(collectgarbage(), 0, "collectgarbage()")
eq(collectgarbage("collect"), 0, "collect")

-- step returns a boolean
eq(type(collectgarbage("step")), "boolean", "step returns boolean")
eq(type(collectgarbage("step", 0)), "boolean", "step 0 returns boolean")
eq(type(collectgarbage("step", 100)), "boolean", "step 100 returns boolean")
do
  -- in incremental mode, repeated steps eventually finish a cycle
  -- (lua.c starts in generational mode, where "step" need not report that)
  local prev = collectgarbage("incremental")
  local finished = false
  for _ = 1, 10000 do
    if collectgarbage("step", 10) then finished = true break end
  end
  eq(finished, true, "a cycle finishes after enough steps")
  collectgarbage(prev)
end

-- stop / restart / isrunning
eq(collectgarbage("isrunning"), true, "running initially")
eq(collectgarbage("stop"), 0, "stop returns 0")
eq(collectgarbage("isrunning"), false, "stopped")
do
  -- allocation works while stopped; explicit collection still works
  local t = {}
  for i = 1, 1000 do t[i] = {i} end
  eq(#t, 1000, "allocation while stopped")
  eq(collectgarbage(), 0, "explicit collect while stopped")
  eq(collectgarbage("isrunning"), false, "still stopped after explicit collect")
end
eq(collectgarbage("restart"), 0, "restart returns 0")
eq(collectgarbage("isrunning"), true, "running again")

-- mode switches return the previous mode name
do
  local prev = collectgarbage("incremental")
  assert(prev == "incremental" or prev == "generational", "previous mode name")
  eq(collectgarbage("generational"), "incremental", "switch to generational")
  eq(collectgarbage("incremental"), "generational", "switch back")
  eq(collectgarbage(prev), "incremental", "restore the original mode")
end

-- invalid option
do
  local ok, e = pcall(collectgarbage, "bogus")
  eq(ok, false, "invalid option")
  eq(e, "bad argument #1 to 'collectgarbage' (invalid option 'bogus')", "invalid option message")
end

-- memory is reclaimed: count after freeing a big structure is lower than before
do
  collectgarbage()
  local base = collectgarbage("count")
  local big = {}
  for i = 1, 100000 do big[i] = {i} end
  local peak = collectgarbage("count")
  assert(peak > base, "allocation raises the count")
  big = nil
  collectgarbage()
  collectgarbage()
  local after = collectgarbage("count")
  assert(after < peak, "collection lowers the count")
end

-- lots of garbage with the collector running does not break anything
do
  local keep = {}
  for i = 1, 200000 do
    local t = {i, tostring(i)}
    if i % 1000 == 0 then keep[#keep + 1] = t end
  end
  eq(#keep, 200, "kept objects survive")
  eq(keep[200][1], 200000, "kept object intact")
  eq(keep[100][2], "100000", "kept string intact")
end

-- strings and closures survive collection while referenced
do
  local s = ""
  for i = 1, 100 do s = s .. "ab" end
  local f = (function() local up = s return function() return up end end)()
  collectgarbage()
  eq(#f(), 200, "closure upvalue string survives")
end

-- coroutines are collected and referenced ones survive
do
  local co = coroutine.create(function() local x = {1, 2, 3} coroutine.yield() return #x end)
  coroutine.resume(co)
  collectgarbage()
  local ok, n = coroutine.resume(co)
  eq(n, 3, "suspended coroutine's locals survive")
  for _ = 1, 1000 do
    local c = coroutine.create(function() coroutine.yield() end)
    coroutine.resume(c)
  end
  collectgarbage()
end

return "OK"
