local function none() end
local function one() return 1 end
local function three() return 1, 2, 3 end
local a, b, c, d = three()
print(a, b, c, d)
a, b = three(), 10
print(a, b)
a, b, c = none(), three()
print(a, b, c)
print(three(), three())
print((three()))
print(none())
print(none(), 1)
print(({three(), three()})[4], #{three(), (three())})
local t = {}
t.x, t.y, t.z = three()
print(t.x, t.y, t.z)
local x, y = 1
print(x, y)
local p, q = 1, 2, 3
print(p, q)
local function ret_paren() return (three()) end
local function ret_all() return three() end
print(select("#", ret_paren()), select("#", ret_all()))
local i = 1
local arr = {10, 20, 30}
i, arr[i] = i + 1, 99
print(i, arr[1], arr[2])
