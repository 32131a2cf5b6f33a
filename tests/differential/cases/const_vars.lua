local N <const> = 10
local S <const> = "hello"
local function f() return N * 2, S .. "!" end
print(f())
print(load("local x <const> = 1; x = 2"))
print(load("local x <const> = 1; return function() x = 2 end"))
print(load("local a, b <const> = 1, 2; a = 5; return a + b")())
local K <const> = {}
K.field = "tables stay mutable"
print(K.field)
local BIG <const> = 2 ^ 40
local MASK <const> = 0xFF
print(BIG, 0x1234 & MASK, N // 3, N / 4)
