local srcs = {
  "x = = 1", "return 1 + ", "f(", "x = }", "local 1 = 2", "if x then", "if x then\n\nelse",
  "return return", "x = 1 1", "a.b:c = 1", "x ==== 1", "--[[ unfinished", "for i = 1 do end",
  "function f(a,) end", "local t = {1,2", "x = @", "while true do local x end until",
  "repeat local x = 1", "return 1;;", "(f)", "f() = 1", "x = \n\n", "break", "goto nowhere",
  "local x <const> = 1; x = 2", "local x <close>, y <close> = 1, 2", "x = 'abc", "x = 'abc\ny = 1",
  "x = 3x", "x = 0x", "x = [[abc", "x = '\\q'", "x = '\\300'", "::a:: ::a::", "local x <foo> = 1",
  "function f() return ... end", "x = 1 +* 2", "local function() end", "return 1 ..",
  "t = {[1] 2}", "x = y z", "do end end", "elseif", "for k, v in pairs(t)", "local a.b = 1",
  "x = function", "return not", "::lbl", "goto", "local x = 'a\\xZZ'", "x = '\\u{110000000}'",
}
for i, s in ipairs(srcs) do
  local f, err = load(s, "=src")
  print(i, f == nil, err)
end
print(load("x = ", "@file.lua"))
print(load("x = ", "literal"))
print(load("x = "))
print(load("a = 1\nb = "))
print(load("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx = "))
