-- FNV-1a 64-bit over byte values given as integers (wrap-around multiply)
local function fnv1a(bytes)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for _, b in ipairs(bytes) do
    h = h ~ b
    h = h * 1099511628211
  end
  return h
end
print(fnv1a({}), fnv1a({97}), fnv1a({102, 111, 111, 98, 97, 114}))
local function murmur_mix(k)
  k = k ~ (k >> 33)
  k = k * -49064778989728563
  k = k ~ (k >> 33)
  k = k * -4265267296055464877
  k = k ~ (k >> 33)
  return k
end
for _, v in ipairs({0, 1, 2, 42, -1}) do print(v, murmur_mix(v)) end
