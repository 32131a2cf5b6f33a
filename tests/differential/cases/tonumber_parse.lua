local inputs = {"10", "  10  ", "0x10", "0X1f", "1e2", "1E-2", ".5", "5.", "0x.8", "0x1p4",
  "-7", "+7", "- 7", "1 0", "", " ", "abc", "12abc", "0x", "1e", "inf", "nan", "0b11",
  "9223372036854775807", "9223372036854775808", "-9223372036854775808", "0xffffffffffffffff",
  "1e309", "-0", "-0.0", "\t42\n", "00012", "1..2", "0x7FFFFFFFFFFFFFFF"}
for _, s in ipairs(inputs) do
  print("[" .. s .. "]", tonumber(s))
end
local based = {{"ff", 16}, {"FF", 16}, {"777", 8}, {"101", 2}, {"z", 36}, {"Zz", 36}, {"12", 2},
  {"-10", 16}, {" 11 ", 2}, {"1.5", 10}, {"", 10}, {"7fffffffffffffff", 16}, {"ffffffffffffffff", 16}}
for _, p in ipairs(based) do
  print(p[1], p[2], tonumber(p[1], p[2]))
end
print(tonumber(42), tonumber(4.5), tonumber(nil), tonumber(true), tonumber({}) )
print(pcall(tonumber, "10", 99))
print(pcall(tonumber, 10, 16))
print(pcall(tonumber))
