local function range(a, b, step)
  step = step or 1
  local i = a - step
  return function()
    i = i + step
    if (step > 0 and i <= b) or (step < 0 and i >= b) then return i end
  end
end
local s = ""
for v in range(1, 10, 3) do s = s .. v .. " " end
for v in range(10, 1, -4) do s = s .. v .. " " end
print(s)
local function chars_of(list)
  local i = 0
  return function()
    i = i + 1
    if list[i] then return i, list[i] end
  end
end
for i, c in chars_of({"a", "b", "c"}) do print(i, c) end
local function zip(t1, t2)
  local i = 0
  return function()
    i = i + 1
    if t1[i] ~= nil and t2[i] ~= nil then return t1[i], t2[i] end
  end
end
for a, b in zip({1, 2, 3, 4}, {"one", "two", "three"}) do print(a, b) end
local function filter(pred, it)
  return function()
    while true do
      local v = it()
      if v == nil or pred(v) then return v end
    end
  end
end
local out = ""
for v in filter(function(x) return x % 3 == 0 end, range(1, 30)) do out = out .. v .. "," end
print(out)
-- stateless iterator with explicit state
local function evens(max, cur)
  cur = cur + 2
  if cur <= max then return cur end
end
out = ""
for v in evens, 12, 0 do out = out .. v .. " " end
print(out)
