local list = {3, 1, "2"}
local function less(a, b) return a < b end
print(less(list[1], list[2]))
print(less(list[2], list[3]))
