local mt = {}
for _, op in ipairs({"band", "bor", "bxor", "shl", "shr"}) do
  mt["__" .. op] = function(a, b)
    local x = type(a) == "table" and "T" or tostring(a)
    local y = type(b) == "table" and "T" or tostring(b)
    return op .. "(" .. x .. "," .. y .. ")"
  end
end
local t = setmetatable({}, mt)
print(t & 1, 1 | t, t ~ t, t << 2, 3 >> t, 1.5 & t, "s" | t)
print(pcall(function() return 1.5 & 1 end))
print(pcall(function() return "1" & 1 end))
