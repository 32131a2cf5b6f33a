local t = {}
t[1] = "int 1"
t[1.0] = "float 1.0 overwrites"
t[2.5] = "two and a half"
t["1"] = "string 1"
t[-0.0] = "zero"
t[2^53] = "2^53"
print(t[1], t[2.5], t["1"], t[0], t[9007199254740992])
print(#t, rawlen(t))
local k = next({[3.0] = 1})
print(k, tostring(k) == "3")
print(pcall(function() t[0/0] = 1 end))
print(pcall(function() t[nil] = 1 end))
print(t[nil], t[0/0])
