-- A second file adds to a class made in the first one.
makeclass("furnace")
function furnace.cool() return "cool" end
assert(furnace.burn and furnace.cool, "methods of both files")
