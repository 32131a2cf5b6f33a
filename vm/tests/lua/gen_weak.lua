-- Generational mode: old weak tables lose the entries whose young keys or
-- values die, though no minor collection traverses an old table that is
-- not written to.
collectgarbage("generational")
wv = setmetatable({}, {__mode = "v"})
wk = setmetatable({}, {__mode = "k"})
collectgarbage()
for round = 1, 200 do
  local y = {round}
  wv[round % 7] = y
  wk[y] = {round}
  if round % 3 == 0 then collectgarbage("step") end
end
for _ = 1, 3 do collectgarbage("step") end
local n, m = 0, 0
for _ in pairs(wv) do n = n + 1 end
for _ in pairs(wk) do m = m + 1 end
print(n, m)
