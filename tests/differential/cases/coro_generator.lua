local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i, i * i) end
    return "finished"
  end)
end
local g = gen(3)
print(g()) print(g()) print(g()) print(g())
print(pcall(g))
local function primes()
  return coroutine.wrap(function()
    local found = {}
    local n = 2
    while true do
      local isp = true
      for _, p in ipairs(found) do
        if p * p > n then break end
        if n % p == 0 then isp = false break end
      end
      if isp then found[#found + 1] = n coroutine.yield(n) end
      n = n + 1
    end
  end)
end
local s = ""
local p = primes()
for _ = 1, 20 do s = s .. p() .. " " end
print(s)
