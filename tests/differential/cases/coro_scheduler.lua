-- round-robin scheduler of cooperative tasks
local tasks = {}
local log = {}
local function spawn(name, n, step)
  tasks[#tasks + 1] = {name = name, co = coroutine.create(function()
    local acc = 0
    for i = 1, n do
      acc = acc + step
      log[#log + 1] = name .. i
      coroutine.yield()
    end
    return acc
  end)}
end
spawn("A", 3, 1)
spawn("B", 5, 10)
spawn("C", 2, 100)
local results = {}
while #tasks > 0 do
  local i = 1
  while i <= #tasks do
    local t = tasks[i]
    local ok, r = coroutine.resume(t.co)
    if coroutine.status(t.co) == "dead" then
      results[#results + 1] = t.name .. "=" .. tostring(r)
      for j = i, #tasks - 1 do tasks[j] = tasks[j + 1] end
      tasks[#tasks] = nil
    else
      i = i + 1
    end
  end
end
local s = ""
for _, l in ipairs(log) do s = s .. l .. " " end
print(s)
s = ""
for _, r in ipairs(results) do s = s .. r .. " " end
print(s)
