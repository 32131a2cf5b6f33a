-- A second file adds to a class made in the first one.
makeclass("furnace")
function furnace.cool() return "cool" end
assert(furnace.burn and furnace.cool, "methods of both files")

-- A class name longer than 40 bytes built by concatenation (a loose string
-- in the VM) names the same class as the same name written out, and as
-- the same concatenation made again.
local tail = string.rep("x", 30)
local long = makeclass("long_class_name_" .. tail)
assert(long == long_class_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)
assert(makeclass("long_class_name_" .. tail) == long)
assert(makeclass("long_class_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") == long)
assert(long.__class == "long_class_name_" .. tail)
