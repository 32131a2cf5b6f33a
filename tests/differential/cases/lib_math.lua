-- The math library: integer/float results as lmathlib, edge cases,
-- errors, and math.random sequences for several seeds.
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    t[i] = math.type(v) and (math.type(v) .. ":" .. string.format("%.17g", v)) or tostring(v)
  end
  return table.concat(t, " ", 1, t.n)
end

local vals = {0, -0.0, 1, -1, 3.7, -3.7, 2.5, -2.5, 0.5, 1e15 + 0.5, 2^53, 2^63, -2^63, 1e308,
  1/0, -1/0, math.maxinteger, math.mininteger, "3.7", "10", " 0x10 ", "1e2"}
for _, v in ipairs(vals) do
  print(show(v), "|", show(math.floor(v)), show(math.ceil(v)), show(math.abs(v)),
    show(math.modf(v)), show(math.tointeger(v)), math.type(v))
end
for _, x in ipairs({0, 0.5, 1, 2, -1, 10, 100, 1e-10, 3.14159}) do
  print(x, show(math.sqrt(x < 0 and 0 or x)), show(math.exp(x)), show(math.sin(x)),
    show(math.cos(x)), show(math.tan(x)), show(math.atan(x)), show(math.atan(x, -2)),
    show(math.deg(x)), show(math.rad(x)))
  if x > 0 then
    print("", show(math.log(x)), show(math.log(x, 2)), show(math.log(x, 10)), show(math.log(x, 3)))
  end
  if x >= -1 and x <= 1 then print("", show(math.asin(x)), show(math.acos(x))) end
end
for _, p in ipairs({{7, 3}, {-7, 3}, {7, -3}, {-7, -3}, {7, 1}, {7, -1}, {math.mininteger, -1},
  {7.5, 2}, {-7.5, 2}, {7, 0.5}, {1, 1/0}, {5, 3.0}, {"7", 3}}) do
  print("fmod", show(p[1], p[2]), show(math.fmod(p[1], p[2])))
end
print(pcall(math.fmod, 1, 0), pcall(math.fmod, 1))
print(show(math.fmod(1, 0.0)):sub(1, 6), show(math.fmod(0, 2)))
print(show(math.max(1, 2.5, -1)), show(math.min(1, 2.5, -1)), show(math.max(3)), show(math.min(2, 2.0)))
print(show(math.max(2.0, 2)), show(math.max(math.maxinteger, 2^63)), show(math.min(-0.0, 0)))
print(pcall(math.max), pcall(math.min), pcall(math.max, 1, "x"), pcall(math.max, "a", "b"))
print(math.ult(1, -1), math.ult(-1, 1), math.ult(0, 0), pcall(math.ult, 1.5, 2))
print(math.type(1), math.type(1.0), math.type("1"), math.type(nil), pcall(math.type))
print(show(math.abs(math.mininteger)), show(math.abs(-0.0)), show(math.abs("-3")))
print(show(math.tointeger("8")), show(math.tointeger("x")), show(math.tointeger({})), pcall(math.tointeger))
print(show(math.pi), show(math.huge), show(-math.huge), show(math.maxinteger), show(math.mininteger))
print(pcall(math.floor, "x"), pcall(math.sin), pcall(math.abs, {}))
print(show(math.floor(-0.0)), show(math.ceil(-0.5)), show(math.floor(2^62 + 0.0)))
print(show(math.log(0)), show(math.log(8, 2)), show(math.log(100, 10)), show(math.log(27, 3)))
-- deprecated functions kept by Debian's build (LUA_COMPAT_MATHLIB)
print(show(math.pow(2, 10)), show(math.log10(1000)), show(math.ldexp(0.75, 4)), show(math.frexp(48)))
print(show(math.cosh(1)), show(math.sinh(1)), show(math.tanh(1)), show(math.atan2(1, 1)))
print(show(math.frexp(-0.1)), show(math.frexp(0)), show(math.ldexp(1, -1074)), show(math.ldexp(1, 1024)))

-- random
for _, seed in ipairs({0, 1, 42, -7, 123456789, math.maxinteger, math.mininteger}) do
  print("seed", seed, show(math.randomseed(seed)))
  local out = {}
  for i = 1, 6 do out[#out + 1] = show(math.random(1, 100)) end
  out[#out + 1] = show(math.random(0))
  out[#out + 1] = show(math.random())
  out[#out + 1] = show(math.random(10))
  out[#out + 1] = show(math.random(-5, 5))
  out[#out + 1] = show(math.random(math.mininteger, math.maxinteger))
  out[#out + 1] = show(math.random(3, 3))
  out[#out + 1] = show(math.random(1, 1 << 40))
  print(table.concat(out, " "))
end
print(show(math.randomseed(5, 6)), show(math.random(1000)), show(math.random(1000)))
math.randomseed(11)
print(pcall(math.random, 2, 1), show(math.random(100)))
math.randomseed(11)
print(pcall(math.random, 1, 2, 3), show(math.random(100)))
math.randomseed(11)
print(pcall(math.random, "x"), show(math.random(100)))
print(pcall(math.random, 1.5), pcall(math.randomseed, 1.5), pcall(math.randomseed, "x"))
math.randomseed(3.0)
local t = {} for i = 1, 10 do t[i] = math.random(6) end print(table.concat(t, ""))
local sum = 0 for i = 1, 10000 do sum = sum + math.random() end print(show(sum))
print(select("#", math.randomseed()))
