-- table.concat over strings, numbers, holes filled by __index, bad values
-- part way, ranges and separators (its string run takes one borrow).
local function show(...)
  local ok, r = pcall(table.concat, ...)
  print(ok, ok and (#r .. ":" .. r:sub(1, 60)) or r)
end
local t = {}
for i = 1, 40 do t[i] = "s" .. i end
show(t)
show(t, ", ")
show(t, "", 5, 9)
show(t, "--", 40, 40)
show(t, "x", 41, 40)
show(t, "x", 39, 41)
show(t, "x", -2, 1)
local m = {"a", "b", 3, 4.5, "c", 2^53, -0.0, "d", 1e300, math.mininteger}
show(m, "|")
show(m, "|", 3, 7)
local holes = setmetatable({"a", nil, "c", nil, "e"}, {__index = function(_, k) return "<" .. k .. ">" end})
show(holes, ",", 1, 5)
show(holes, ",", 4, 8)
local shadowed = setmetatable({"raw1", "raw2"}, {__index = function() return "meta" end})
show(shadowed, "+", 1, 4)
show({"a", "b", {}, "d"}, ",")
show({"a", "b", true, "d"}, ",")
show({"a", "b"}, ",", 1, 3)
local big = {}
for i = 1, 5000 do big[i] = (i % 7 == 0) and i or ("w" .. i) end
local r = table.concat(big, " ")
print(#r, r:sub(1, 40), r:sub(-40))
local long = string.rep("z", 300)
local lt = {long, long, "q", long}
print(#table.concat(lt, string.rep("-", 50)))
local hash = {}
hash[1], hash[2], hash[3] = "h1", "h2", "h3"
hash[100] = "far"
show(hash, ".", 1, 3)
show(hash, ".", 99, 100)
print(table.concat({}, "x"), table.concat({}, "x", 1, 0))
print(pcall(table.concat, {1, 2}, {}))
-- Ranges at the ends of the integers: the index must not step past last.
local maxi, mini = math.maxinteger, math.mininteger
print(table.concat({[maxi] = "alo", [maxi - 1] = "y"}, "-", maxi - 1, maxi))
print(table.concat({[maxi] = "alo"}, "x", maxi, maxi))
print(table.concat({[mini] = "a", [mini + 1] = "b"}, "", mini, mini + 1))
print(pcall(table.concat, {[maxi] = 1, [maxi - 1] = "s"}, "+", maxi - 1, maxi))
print(table.concat({}, "x", maxi, maxi - 1), table.concat({}, "x", maxi, mini))
