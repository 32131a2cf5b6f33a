local function grade(s)
  if s >= 90 then return "A"
  elseif s >= 80 then return "B"
  elseif s >= 70 then return "C"
  elseif s >= 60 then return "D"
  else return "F" end
end
local out = ""
for _, s in ipairs({95, 85, 75, 65, 55, 90, 89.9, 60, 0}) do out = out .. grade(s) end
print(out)
local function truthy(v) if v then return "T" else return "F" end end
print(truthy(nil), truthy(false), truthy(0), truthy(""), truthy({}), truthy(0.0))
local function fizz(n)
  if n % 15 == 0 then return "FizzBuzz" elseif n % 3 == 0 then return "Fizz" elseif n % 5 == 0 then return "Buzz" end
  return n
end
local s = ""
for i = 1, 20 do s = s .. fizz(i) .. " " end
print(s)
print(1 and 2, nil and 1, false or "x", nil or false, 1 or error("no"), false and error("no"))
