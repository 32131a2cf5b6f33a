-- string.char, upper, lower and reverse around the 128-byte stack buffer
-- (stdlib string.rs SMALL): short and long results, errors past it.
print(string.char() == "", #string.char(table.unpack((function() local t = {} for i = 1, 200 do t[i] = 65 + i % 26 end return t end)())))
local t = {} for i = 1, 129 do t[i] = 66 end
print(string.char(table.unpack(t)))
t[129] = 256; print(pcall(string.char, table.unpack(t)))
t[129] = "67"; print(string.char(table.unpack(t)):sub(-3))
t[2] = 3.0; print(#string.char(table.unpack(t)))
print(pcall(string.char, 65, 66.5))
local long = ("abcXYZ"):rep(50)
print(long:upper():sub(1, 12), long:lower():sub(-6), long:reverse():sub(1, 6), #long:upper())
print(("héllo"):upper(), (""):upper(), ("a\0b"):upper() == "A\0B", ("abc"):reverse())
