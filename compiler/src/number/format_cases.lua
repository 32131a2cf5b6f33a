-- Generates format_cases.txt (the expected outputs of glibc printf through
-- lua5.4's string.format), used by format.rs's unit tests:
--   lua5.4 compiler/src/number/format_cases.lua > compiler/src/number/format_cases.txt
-- Line format: spec TAB kind TAB value TAB expected, where kind is `i`
-- (value in decimal) or `f` (value as the 16 hex digits of its bits).
local floats = {
  0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 0.125, 1/3, 2/3, 100.0,
  123.456, -123.456, 1e-5, 1e-4, 9.9999e-5, 0.000123456, 99999.5, 999999.5,
  1e15, 1e16, 1e21, 1e22, 1e100, 1e300, 1.7976931348623157e308,
  2.2250738585072014e-308, 4.9406564584125e-324, 1e-310, 2^53, 2^63, -2^63,
  2^53 + 1, 0.05, 0.15, 0.25, 0.35, 1.005, 2.675, 9.995, 0.9999999, 9.5,
  10.5, 1234567.0, 3.14159265358979, 6.02214076e23, 1/0, -1/0, 0/0, -(0/0),
  0x1.fffffffffffffp0, 0x1.08p0, 0x1.18p0, 5e-324 * 3, 123456789012345678,
  999.5, 99.96, 99.5, 1e23, 999999.5, 9.9999995, 0.99995, 0.0009995,
}
local ffmts = {
  "%e", "%E", "%.0e", "%#.0e", "%.3e", "%12.4e", "%-12.2e|", "%+e", "% e", "%015.3e",
  "%f", "%.0f", "%#.0f", "%.3f", "%.10f", "%12.2f", "%-12.2f|", "%+.1f", "% .2f",
  "%010.2f", "%g", "%G", "%.0g", "%#g", "%#.3g", "%.3g", "%.10g", "%.14g", "%.17g",
  "%12g", "%-12g|", "%+g", "%010g", "%a", "%A", "%.0a", "%.1a", "%.3a", "%#a",
  "%.20a", "%015a", "%-15a|", "%+a", "%.99f", "%.99e", "%.99g", "%5.1f", "%#.0a", "% 010.3e",
  "%#.2g", "%#.1g", "%#.23g", "%#.22g", "%#.0g", "%#10.4G",
}
local ints = {
  0, 1, -1, 7, 8, 42, -42, 255, 256, 1000, -1000, 123456789, 2^31 - 1, -2^31,
  math.maxinteger, math.mininteger, 0x7fff, 65, 97,
}
local ifmts = {
  "%d", "%i", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%.0d", "%8.3d",
  "%-8.3d|", "%+05d", "%x", "%X", "%#x", "%#X", "%08x", "%#08x", "%.4x", "%o",
  "%#o", "%#.0o", "%.0o", "%5o", "%u", "%10u", "%-10u|", "%.0x", "%#.0x", "%c",
  "%5c", "%-5c|", "%020d", "%+.0d", "% 05d",
}
local function bits(x)
  local s = string.pack("<d", x)
  local b = {string.byte(s, 1, 8)}
  local out = {}
  for i = 8, 1, -1 do out[#out + 1] = string.format("%02x", b[i]) end
  return table.concat(out)
end
for _, f in ipairs(ffmts) do
  for _, x in ipairs(floats) do
    print(f .. "\tf\t" .. bits(x) .. "\t" .. string.format(f, x))
  end
end
for _, f in ipairs(ifmts) do
  for _, x in ipairs(ints) do
    x = math.tointeger(x)
    if not (f:find("c") and (x < 32 or x > 126)) then
      print(f .. "\ti\t" .. x .. "\t" .. string.format(f, x))
    end
  end
end
-- Random doubles (fixed seed): random bit patterns and random decimals.
math.randomseed(42)
local rfmts = { "%.14g", "%.17g", "%.3e", "%g", "%.0f", "%.15g", "%.16g" }
for n = 1, 300 do
  local x
  if n % 2 == 0 then
    x = string.unpack("<d", string.pack("<i8", math.random(math.mininteger, math.maxinteger)))
  else
    x = math.random(0, 10^9) / 10^math.random(0, 12)
  end
  if x == x and x ~= 1/0 and x ~= -1/0 and math.abs(x) < 1e30 then
    for _, f in ipairs(rfmts) do
      print(f .. "\tf\t" .. bits(x) .. "\t" .. string.format(f, x))
    end
  end
end
