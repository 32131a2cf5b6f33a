makeclass("furnace")
function furnace.heat() return "version 1" end
