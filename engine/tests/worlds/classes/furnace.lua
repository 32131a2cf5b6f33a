-- makeclass creates the class, with __class and __index.
local furnace = makeclass("furnace")
assert(type(furnace) == "table")
assert(furnace.__class == "furnace")
assert(furnace.__index == furnace)
assert(rawget(_G, "furnace") == furnace, "the class is an entry of the environment")

function furnace.burn(self) return "burning " .. self.fuel end
function furnace.new(fuel) return setmetatable({fuel = fuel}, furnace) end

-- makeclass again keeps the table and its methods.
assert(makeclass("furnace") == furnace)
assert(furnace.burn and furnace.new)

-- A class is a metatable and an __index.
local f = furnace.new("coal")
assert(f:burn() == "burning coal")
assert(getmetatable(f).__class == "furnace")
local sub = setmetatable({}, {__index = furnace})
assert(sub.burn == furnace.burn)

-- Metamethods can live in a class.
function furnace.__tostring(self) return "furnace(" .. self.fuel .. ")" end
assert(tostring(f) == "furnace(coal)")

-- Bad arguments read like the standard library's.
local ok, err = pcall(function() makeclass(nil) end)
assert(not ok and err:find("bad argument #1 to 'makeclass' %(string expected, got nil%)"), err)
ok, err = pcall(function() maketangible({}) end)
assert(not ok and err:find("bad argument #1 to 'maketangible' %(string expected, got table%)"), err)
ok, err = pcall(function() makeclass("") end)
assert(not ok and err:find("bad argument #1 to 'makeclass' %(class name is empty%)"), err)
ok, err = pcall(function() makeclass("print") end)
assert(not ok and err:find("'print' is the name of a library global"), err)
