-- Concatenations whose result fits a short string (at most 40 bytes), built
-- on the Rust stack with integers formatted in place, and those just past it.
print("a" .. math.mininteger, math.maxinteger .. "b", -5 .. "", 0 .. 0, "x" .. 1.5, ("y"):rep(39) .. "z", ("y"):rep(40) .. "z", "" .. "", 1 .. 2 .. 3 .. "q" .. -7)
local t = {}
for i = -3, 3 do t[#t+1] = "k" .. i .. "v" end
print(table.concat(t, ","))
local s = "12345678901234567890" .. "12345678901234567890"
print(#s, s == "1234567890123456789012345678901234567890", s .. "1" == "12345678901234567890123456789012345678901")
local a = "ab" .. "c"; print(a == "abc", rawequal(a, "abc"))
