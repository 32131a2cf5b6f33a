local E = setmetatable({}, {__tostring = function() return "custom error object" end})
print("raising an object with __tostring")
error(E)
