-- N-queens: backtracking with arrays of booleans, recursion.
local N = tonumber(arg and arg[1]) or 12
local function solve(n)
  local cols, d1, d2 = {}, {}, {}
  local count = 0
  local function place(r)
    if r > n then count = count + 1 return end
    for c = 1, n do
      local a, b = r + c, r - c + n
      if not cols[c] and not d1[a] and not d2[b] then
        cols[c], d1[a], d2[b] = true, true, true
        place(r + 1)
        cols[c], d1[a], d2[b] = false, false, false
      end
    end
  end
  place(1)
  return count
end
local total = 0
for _ = 1, 2 do total = total + solve(N) end
print(N .. "-queens solutions: " .. solve(N) .. " (x2 = " .. total .. ")")
