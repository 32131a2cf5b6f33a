-- Lines longer than 40 bytes read from a file: as table keys, compared
-- with constants and with each other, concatenated, matched, and read
-- by every format that returns text.
local name = os.tmpname()
local long = string.rep("0123456789", 6)         -- 60 bytes
local lines = {}
for i = 1, 200 do
  lines[i] = long .. ":" .. (i % 17)              -- duplicates every 17
end
lines[201] = "short"
lines[202] = string.rep("x", 40)                  -- exactly 40 bytes
lines[203] = string.rep("y", 41)
local f = assert(io.open(name, "w"))
f:write(table.concat(lines, "\n"), "\n")
f:close()

local count, distinct, order = {}, 0, {}
for line in io.lines(name) do
  if not count[line] then
    distinct = distinct + 1
    order[#order + 1] = line
  end
  count[line] = (count[line] or 0) + 1
end
print("distinct", distinct)
print(count[long .. ":0"], count[long .. ":16"], count["short"], count[string.rep("y", 41)])
print(order[1] == long .. ":1", order[1] == lines[1], #order[18], order[18])

local f2 = assert(io.open(name))
local a = f2:read("l")
local b = f2:read("L")
print(a == lines[1], b == lines[2] .. "\n", #a, #b)
local seen = {}
seen[a] = 1
print(seen[lines[1]], rawget(seen, long .. ":1"), next(seen) == a)
local rest = f2:read("a")
print(#rest, select(2, rest:gsub("\n", "")), rest:sub(1, 63) == lines[3])
f2:close()

-- the lines as values everywhere a string goes
local f3 = assert(io.open(name))
local l1, l2 = f3:read("l", "l")
f3:close()
print(l1 < l2, l1 .. "|" .. l2 == lines[1] .. "|" .. lines[2])
print(l1:match(":(%d+)$"), l1:find(":", 1, true), #l1:upper())
local t = {[l1] = "one"}
t[l2] = "two"
print(t[lines[1]], t[lines[2]], t[long .. ":2"])
os.remove(name)
