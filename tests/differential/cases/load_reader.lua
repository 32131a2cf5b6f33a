local parts = {"local a ", "= 40 ", "return a ", "+ 2"}
local i = 0
print(load(function() i = i + 1 return parts[i] end)())
local j = 0
local split = {"ret", "urn 'sp", "lit'", " .. 'ok'"}
print(load(function() j = j + 1 return split[j] end)())
local k = 0
print(load(function() k = k + 1 if k == 1 then return "return 'first'" elseif k == 2 then return "" else return " .. 'never'" end end)())
local m = 0
local f, err = load(function() m = m + 1 if m == 1 then return "return +" end return nil end, "=reader")
print(f, err)
local n = 0
local src = {}
for line = 1, 100 do src[line] = "x = (x or 0) + " .. line .. "\n" end
src[101] = "return x"
print(load(function() n = n + 1 return src[n] end)())
