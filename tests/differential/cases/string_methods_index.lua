-- Method calls on strings (`s:m(...)`, the SELF instruction on a string
-- receiver) under every shape of the string metatable's __index: the
-- library table, a table with its own __index, a function, a missing
-- method, and the library changed between calls of the same instruction.
local mt = getmetatable("")
local lib = mt.__index

local function calls(s)
  -- one SELF instruction per method, run many times (its hint settles)
  local out = {}
  for i = 1, 3 do
    out[#out + 1] = s:sub(i, i + 1)
    out[#out + 1] = s:upper()
    out[#out + 1] = tostring(s:len())
  end
  return table.concat(out, ",")
end

print(calls("hello"))

-- a method the library gains, then loses
local function extra(s) return s:shout() end
lib.shout = function(x) return x:upper() .. "!" end
print(extra("hey"), extra("you"))
lib.shout = nil
print(pcall(extra, "hey"))

-- the library replaced under the same instructions
mt.__index = setmetatable({}, {__index = lib})
print(calls("world"))
mt.__index = function(str, k)
  return function(self, ...) return "fn:" .. k .. ":" .. select("#", ...) end
end
print(calls("abc"))
mt.__index = {sub = function() return "own sub" end}
print(pcall(calls, "abc"))
mt.__index = nil
print(pcall(calls, "abc"))
print(pcall(function() local s = "abc"; return s.len end))
print(pcall(function() return ("abc").len end))
mt.__index = lib
print(calls("back"))

-- a key that is not a string, and a number receiver (no metatable)
print(pcall(function() local s = "x"; return s[1] end))
print(pcall(function() local n = 5; return n:foo() end))

-- rehash the library table between calls: the hint must not lie
for i = 1, 100 do lib["tmp" .. i] = i end
print(calls("after"))
for i = 1, 100 do lib["tmp" .. i] = nil end
print(calls("again"), ("%d-%s"):format(7, "x"), ("a,b"):find(",", 1, true))
