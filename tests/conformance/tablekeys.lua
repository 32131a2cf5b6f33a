-- Table keys: integer/float normalisation, -0.0, NaN and nil keys, key types.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end
local function errof(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then error("expected an error", 2) end
  return msg
end
local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
local function mtype(x)
  if tostring(x) == tostring(x * 1.0) then return "float" end
  return "integer"
end

-- float keys with integral values are the same as the integer keys
do
  local t = {}
  t[1.0] = "a"
  eq(t[1], "a", "t[1.0] is t[1]")
  t[2] = "b"
  eq(t[2.0], "b", "t[2.0] reads t[2]")
  t[3.0] = "c"
  eq(#t, 3, "sequence through float keys")
  eq(count(t), 3, "no duplicate keys")
  local k = next({[5.0] = true})
  eq(mtype(k), "integer", "stored key is an integer")
  t[-0.0] = "zero"
  eq(t[0], "zero", "-0.0 key is 0")
  t[2 ^ 53] = "big"
  eq(t[9007199254740992], "big", "2^53 normalised")
  t[-2 ^ 63] = "min"
  eq(t[-9223372036854775807 - 1], "min", "-2^63 normalised to minint")
end

-- non-integral and out-of-range floats stay float keys
do
  local t = {}
  t[1.5] = "x"
  eq(t[1.5], "x", "1.5")
  eq(t[1], nil, "1.5 is not 1")
  t[2 ^ 63] = "huge"
  eq(t[2 ^ 63], "huge", "2^63 float key")
  eq(t[9223372036854775807], nil, "2^63 is not maxint")
  t[1 / 0] = "inf"
  eq(t[1 / 0], "inf", "inf key")
  eq(t[-1 / 0], nil, "-inf distinct")
  t[1e-300] = "tiny"
  eq(t[1e-300], "tiny", "tiny key")
  eq(t[0], nil, "tiny is not 0")
end

-- strings are never converted to numbers as keys
do
  local t = {}
  t["1"] = "string one"
  t[1] = "number one"
  eq(t["1"], "string one", "string key")
  eq(t[1], "number one", "number key")
  eq(count(t), 2, "two different keys")
  t["1.0"] = "s"
  eq(t[1.0], "number one", "'1.0' is not 1.0")
end

-- booleans, functions, tables, coroutines as keys
do
  local t = {}
  local f, g = function() end, function() end
  local a, b = {}, {}
  local co = coroutine.create(print)
  t[true] = 1 t[false] = 2 t[f] = 3 t[g] = 4 t[a] = 5 t[b] = 6 t[co] = 7
  eq(t[true] + t[false], 3, "boolean keys")
  eq(t[f] + t[g], 7, "function keys by identity")
  eq(t[a] + t[b], 11, "table keys by identity")
  eq(t[co], 7, "coroutine key")
  eq(t[{}], nil, "fresh table is a different key")
  eq(count(t), 7, "seven keys")
end

-- nil and NaN keys
do
  local t = {}
  eq(t[nil], nil, "reading nil key is fine")
  eq(t[0 / 0], nil, "reading NaN key is fine")
  eq(errof(function() t[nil] = 1 end), "tablekeys.lua:87: table index is nil", "writing nil key")
  eq(errof(function() t[0 / 0] = 1 end), "tablekeys.lua:88: table index is NaN", "writing NaN key")
  eq(errof(function() local k; t[k] = 1 end), "tablekeys.lua:89: table index is nil", "nil from a variable")
  eq(errof(rawset, t, nil, 1), "table index is nil", "rawset nil")
  -- assigning nil to a nil key is still an error
  eq(errof(function() t[nil] = nil end), "tablekeys.lua:92: table index is nil", "nil = nil")
end

-- assigning nil removes keys
do
  local t = {a = 1, b = 2}
  t.a = nil
  eq(count(t), 1, "removed")
  eq(t.a, nil, "gone")
  t.a = 3
  eq(t.a, 3, "re-added")
end

-- integer keys across the whole range
do
  local t = {}
  local keys = {0, -1, 1, 1000000, -1000000, 9223372036854775807, -9223372036854775807 - 1}
  for i, k in ipairs(keys) do t[k] = i end
  for i, k in ipairs(keys) do eq(t[k], i, "key " .. k) end
  eq(count(t), #keys, "all stored")
end

-- many keys of mixed kinds (hash part growth, rehash)
do
  local t = {}
  for i = 1, 2000 do
    t[i] = i
    t["s" .. i] = i
    t[i + 0.5] = i
  end
  local sum = 0
  for i = 1, 2000 do sum = sum + t[i] + t["s" .. i] + t[i + 0.5] end
  eq(sum, 3 * 2001000, "6000 keys")
  for i = 1, 2000 do t[i] = nil t["s" .. i] = nil t[i + 0.5] = nil end
  eq(next(t), nil, "all removed")
end

-- arrays with negative and zero indices are hash entries
do
  local t = {[0] = "zero", [-1] = "minus one", "one"}
  eq(#t, 1, "length ignores 0 and negatives")
  eq(t[0], "zero", "index 0")
  eq(t[-1], "minus one", "index -1")
end

-- the same string built two ways is the same key
do
  local t = {}
  local a = "ke" .. "y"
  local b = "k" .. "ey"
  t[a] = 1
  eq(t[b], 1, "string keys compare by value")
  eq(t.key, 1, "literal key")
  local long1, long2 = "", ""
  for i = 1, 50 do long1 = long1 .. "xy" end
  for i = 1, 100 do long2 = long2 .. (i % 2 == 1 and "x" or "y") end
  t[long1] = "long"
  eq(t[long2], "long", "long strings compare by value")
end

return "OK"
