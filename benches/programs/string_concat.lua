-- String building: many short strings by concatenation (O(n) total),
-- number-to-string conversion and string equality/lengths.
local N = tonumber(arg and arg[1]) or 1600000
local count, len = 0, 0
local line = ""
for i = 1, N do
  local s = "item" .. i .. ":" .. (i * 3) .. ";"
  len = len + #s
  if i % 10 == 0 then
    line = ""
  end
  line = line .. s
  if s == "item7:21;" then count = count + 1 end
end
local parts = {}
for i = 1, N // 4 do parts[#parts + 1] = i % 10 .. "" end
local joined = ""
for i = 1, #parts, 50 do
  local chunk = ""
  for j = i, i + 49 do if parts[j] then chunk = chunk .. parts[j] end end
  joined = chunk
end
print("len " .. len .. " found " .. count .. " last " .. #line .. " " .. joined)
