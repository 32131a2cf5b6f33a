-- setmetatable/getmetatable, __metatable protection, rawget/rawset/rawequal/rawlen.
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

-- setmetatable returns its first argument
do
  local t, mt = {}, {}
  eq(setmetatable(t, mt), t, "returns table")
  eq(getmetatable(t), mt, "getmetatable")
  eq(setmetatable(t, nil), t, "remove metatable")
  eq(getmetatable(t), nil, "removed")
  eq(getmetatable({}), nil, "no metatable")
  eq(getmetatable(1), nil, "numbers have no metatable")
  eq(getmetatable(nil), nil, "nil has no metatable")
  eq(getmetatable(print), nil, "functions have no metatable")
end

-- __metatable protection
do
  local t = setmetatable({}, {__metatable = "locked"})
  eq(getmetatable(t), "locked", "__metatable value returned")
  eq(errof(setmetatable, t, {}), "cannot change a protected metatable", "cannot change")
  eq(errof(setmetatable, t, nil), "cannot change a protected metatable", "cannot remove")
  local u = setmetatable({}, {__metatable = false})
  eq(getmetatable(u), false, "__metatable false is returned")
  eq(errof(setmetatable, u, {}), "cannot change a protected metatable", "false still protects")
end

-- argument checks
eq(errof(setmetatable, 1, {}), "bad argument #1 to 'setmetatable' (table expected, got number)", "setmetatable(1)")
eq(errof(setmetatable, {}, 1), "bad argument #2 to 'setmetatable' (nil or table expected, got number)", "setmetatable(t, 1)")
eq(errof(setmetatable, {}), "bad argument #2 to 'setmetatable' (nil or table expected, got no value)", "setmetatable(t)")
eq(errof(getmetatable), "bad argument #1 to 'getmetatable' (value expected)", "getmetatable()")

-- a metatable can be shared and can be its own metatable
do
  local mt = {}
  mt.__index = mt
  mt.shared = "yes"
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  eq(a.shared, "yes", "shared a")
  eq(b.shared, "yes", "shared b")
  local self = {}
  self.__index = self
  setmetatable(self, self)
  self.x = 1
  eq(self.x, 1, "self-metatable")
  eq(errof(function() return self.missing end), "metatables.lua:56: '__index' chain too long; possible loop", "self-metatable miss loops")
end

-- metamethods added after setmetatable take effect
do
  local mt = {}
  local t = setmetatable({}, mt)
  eq(t.x, nil, "no __index yet")
  mt.__index = function() return "late" end
  eq(t.x, "late", "__index added later")
  mt.__index = nil
  eq(t.x, nil, "__index removed")
end

-- rawget / rawset
do
  local t = setmetatable({}, {
    __index = function() return "mm" end,
    __newindex = function() error("no writes") end,
  })
  eq(rawget(t, "a"), nil, "rawget ignores __index")
  eq(rawset(t, "a", 1), t, "rawset returns the table")
  eq(rawget(t, "a"), 1, "rawset ignores __newindex")
  eq(t.a, 1, "normal read of raw-set field")
  eq(rawget(t, 1.0), nil, "rawget float key")
  rawset(t, 2.0, "two")
  eq(rawget(t, 2), "two", "rawset normalises float keys")
  eq(errof(rawset, t, nil, 1), "table index is nil", "rawset nil key")
  eq(errof(rawset, t, 0 / 0, 1), "table index is NaN", "rawset NaN key")
  eq(rawget(t, nil), nil, "rawget nil key is fine")
  eq(errof(rawget, 1, 2), "bad argument #1 to 'rawget' (table expected, got number)", "rawget(1)")
  eq(errof(rawset, 1, 2, 3), "bad argument #1 to 'rawset' (table expected, got number)", "rawset(1)")
end

-- rawequal
do
  local mt = {__eq = function() return true end}
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  eq(a == b, true, "__eq")
  eq(rawequal(a, b), false, "rawequal ignores __eq")
  eq(rawequal(a, a), true, "rawequal same")
  eq(rawequal(1, 1.0), true, "rawequal 1 == 1.0")
  eq(rawequal("a", "a"), true, "rawequal strings")
  eq(rawequal(0 / 0, 0 / 0), false, "rawequal nan")
  eq(errof(rawequal, 1), "bad argument #2 to 'rawequal' (value expected)", "rawequal(1)")
end

-- rawlen
do
  local t = setmetatable({1, 2, 3}, {__len = function() return 99 end})
  eq(#t, 99, "__len")
  eq(rawlen(t), 3, "rawlen table")
  eq(rawlen("hello"), 5, "rawlen string")
  eq(errof(rawlen, 1), "bad argument #1 to 'rawlen' (table or string expected, got number)", "rawlen(1)")
end

-- metatables and __index of a metatable are not consulted for metamethods
do
  local proto = {__add = function() return "proto" end}
  local mt = setmetatable({}, {__index = proto})
  local t = setmetatable({}, mt)
  eq(pcall(function() return t + 1 end), false, "metamethods use raw access")
end

-- __metatable field does not affect metamethods
do
  local t = setmetatable({}, {__metatable = {}, __index = function() return 5 end})
  eq(t.x, 5, "metamethods still work when protected")
end

-- type names through __name in error messages
do
  local T = setmetatable({}, {__name = "MyType"})
  eq(errof(function() return T + 1 end), "metatables.lua:129: attempt to perform arithmetic on a MyType value (upvalue 'T')", "__name in arithmetic error")
end

return "OK"
