local i = 0
while i < 5 do i = i + 1 end
print(i)
local j = 10
repeat j = j - 3 until j < 0
print(j)
local k = 0
repeat
  local sq = k * k
  k = k + 1
until sq > 50
print(k)
local collatz = 27
local steps = 0
while collatz ~= 1 do
  if collatz % 2 == 0 then collatz = collatz // 2 else collatz = 3 * collatz + 1 end
  steps = steps + 1
end
print("collatz(27) steps", steps)
local x = 0
while true do
  x = x + 1
  if x > 1000 then break end
end
print(x)
repeat local done = true until done
print("end")
