local function curry(f, n)
  n = n or 2
  local function collect(args, count)
    return function(x)
      local a = {}
      for i = 1, count do a[i] = args[i] end
      a[count + 1] = x
      if count + 1 == n then
        local function unpack(t, i) i = i or 1 if i <= n then return t[i], unpack(t, i + 1) end end
        return f(unpack(a))
      end
      return collect(a, count + 1)
    end
  end
  return collect({}, 0)
end
local function compose(...)
  local fs = {...}
  return function(x)
    for i = #fs, 1, -1 do x = fs[i](x) end
    return x
  end
end
local add3 = curry(function(a, b, c) return a + b + c end, 3)
print(add3(1)(2)(3), add3(10)(20)(30))
local inc = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
local sq = function(x) return x * x end
print(compose(inc, dbl)(5), compose(dbl, inc)(5), compose(sq, inc, dbl)(3), compose()(7))
local function map(f, t) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function reduce(f, acc, t) for i = 1, #t do acc = f(acc, t[i]) end return acc end
local r = map(compose(inc, sq), {1, 2, 3, 4})
print(r[1], r[2], r[3], r[4], reduce(function(a, b) return a + b end, 0, r))
