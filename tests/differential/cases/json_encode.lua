local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  for i = 2, #ks do
    local v = ks[i]
    local j = i - 1
    while j >= 1 and tostring(ks[j]) > tostring(v) do ks[j + 1] = ks[j] j = j - 1 end
    ks[j + 1] = v
  end
  return ks
end
local function is_array(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end
local escapes = {['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t"}
local function encode(v)
  local ty = type(v)
  if ty == "nil" then return "null"
  elseif ty == "boolean" then return tostring(v)
  elseif ty == "number" then
    if v ~= v or v == 1/0 or v == -1/0 then return "null" end
    return tostring(v)
  elseif ty == "string" then
    -- strings are given as lists of characters in this test (no string library)
    return '"' .. v .. '"'
  elseif ty == "table" then
    if v.__chars then
      local s = '"'
      for _, c in ipairs(v.__chars) do s = s .. (escapes[c] or c) end
      return s .. '"'
    end
    local parts = ""
    if is_array(v) then
      for i = 1, #v do parts = parts .. (i > 1 and "," or "") .. encode(v[i]) end
      return "[" .. parts .. "]"
    end
    for i, k in ipairs(sorted_keys(v)) do
      parts = parts .. (i > 1 and "," or "") .. '"' .. tostring(k) .. '":' .. encode(v[k])
    end
    return "{" .. parts .. "}"
  end
  error("cannot encode " .. ty)
end
print(encode({1, 2.5, "three", true, false, {}}))
print(encode({name = "lua", version = 5.4, tags = {"fast", "small"}, nested = {a = {b = {c = 1}}}}))
print(encode({__chars = {"a", '"', "b", "\\", "\n"}}))
print(encode({1/0, -1/0, 2^63, -0.0, 1e-10}))
print(pcall(encode, {f = print}))
