-- Weak tables: __mode "k", "v", "kv"; collection of unreachable entries.
-- All garbage is created inside helper functions so no stale local keeps it alive.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
local function full() collectgarbage() collectgarbage() end

-- weak values
do
  local cache = setmetatable({}, {__mode = "v"})
  local keep = {}
  local function fill()
    for i = 1, 10 do
      local v = {i}
      cache[i] = v
      if i % 2 == 0 then keep[#keep + 1] = v end
    end
    cache.str = "strings are values, never collected"
    cache.num = 42
    cache.bool = true
  end
  fill()
  full()
  eq(count(cache), 5 + 3, "only reachable table values remain (+ non-collectable)")
  for i = 2, 10, 2 do assert(cache[i] ~= nil, "kept value " .. i) end
  for i = 1, 9, 2 do eq(cache[i], nil, "collected value " .. i) end
  eq(cache.num, 42, "number value stays")
end

-- weak keys
do
  local props = setmetatable({}, {__mode = "k"})
  local alive = {}
  local function fill()
    for i = 1, 10 do
      local k = {}
      props[k] = i
      if i <= 3 then alive[i] = k end
    end
    props["name"] = "string keys stay"
    props[1] = "number keys stay"
  end
  fill()
  full()
  eq(count(props), 3 + 2, "only reachable keys remain")
  for i = 1, 3 do eq(props[alive[i]], i, "alive key " .. i) end
end

-- weak keys and values
do
  local kv = setmetatable({}, {__mode = "kv"})
  local k1, v2 = {}, {}
  local function fill()
    kv[k1] = {}        -- value unreachable -> removed
    kv[{}] = v2        -- key unreachable -> removed
    kv[k1 and "s"] = v2 -- string key, reachable value -> stays
    kv.x = {}          -- value unreachable -> removed
  end
  fill()
  full()
  eq(count(kv), 1, "kv table keeps only fully reachable entries")
  eq(kv.s, v2, "entry with reachable value stays")
end

-- ephemerons: a value that refers to its own key does not keep the key alive
do
  local eph = setmetatable({}, {__mode = "k"})
  local function fill()
    for i = 1, 5 do
      local k = {}
      eph[k] = {ref = k}
    end
  end
  fill()
  full()
  eq(count(eph), 0, "ephemeron cycle collected")
  -- but a key reachable from elsewhere keeps its value
  local root = {}
  eph[root] = {ref = root, data = {1, 2, 3}}
  full()
  eq(#eph[root].data, 3, "reachable key keeps value")
end

-- a strong table is unaffected
do
  local strong = {}
  local function fill() for i = 1, 10 do strong[{}] = i end end
  fill()
  full()
  eq(count(strong), 10, "strong table keeps everything")
end

-- weak values holding closures and coroutines
do
  local w = setmetatable({}, {__mode = "v"})
  local keepf = function() return 1 end
  local function fill()
    w.f1 = keepf
    w.f2 = function() return 2 end
    w.co = coroutine.create(function() end)
  end
  fill()
  full()
  eq(w.f1, keepf, "referenced closure kept")
  eq(w.f2, nil, "unreferenced closure collected")
  eq(w.co, nil, "unreferenced coroutine collected")
end

-- memoization cache with weak values
do
  local memo = setmetatable({}, {__mode = "v"})
  local computed = 0
  local function get(n)
    local v = memo[n]
    if not v then
      computed = computed + 1
      v = {n * n}
      memo[n] = v
    end
    return v
  end
  local a = get(3)
  local b = get(3)
  eq(computed, 1, "memoized while referenced")
  assert(a == b, "same object")
  a, b = nil, nil
  full()
  local c = get(3)
  eq(computed, 2, "recomputed after collection")
  eq(c[1], 9, "value")
end

-- changing __mode after creation (set before any entries)
do
  local t = {}
  setmetatable(t, {__mode = "k"})
  local function fill() t[{}] = 1 end
  fill()
  full()
  eq(next(t), nil, "mode set by setmetatable works")
end

return "OK"
