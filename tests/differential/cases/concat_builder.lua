-- building strings by repeated concatenation
local function rep(s, n)
  local r = ""
  while n > 0 do
    if n % 2 == 1 then r = r .. s end
    s = s .. s
    n = n // 2
  end
  return r
end
local function join(t, sep)
  local r = ""
  for i = 1, #t do
    if i > 1 then r = r .. sep end
    r = r .. tostring(t[i])
  end
  return r
end
print(rep("ab", 5), #rep("xyz", 1000))
local parts = {}
for i = 1, 20 do parts[i] = i * i end
print(join(parts, ","))
print(join({1.5, true, "s", nil}, "|"))
local line = ""
for i = 1, 10 do line = line .. rep("*", i) .. "\n" end
print(line)
local buf = {}
for i = 1, 1000 do buf[#buf + 1] = i % 10 end
local s = join(buf, "")
print(#s)
local acc = ""
for i = 1, 300 do acc = acc .. i end
print(#acc)
