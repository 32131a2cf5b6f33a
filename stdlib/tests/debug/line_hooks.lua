-- Line hooks see the lines PUC Lua's code generator assigns: an `if`
-- arm's test and jump carry the line of `then`, a generic `for` closes its
-- scope on the line of `end`, loops jump back from the body's last line.
-- (Expected traces recorded from lua5.4.)

local function trace(s)
  local lines = {}
  local f = assert(load(s))
  debug.sethook(function (_, l) lines[#lines + 1] = l end, "l")
  f()
  debug.sethook()
  return table.concat(lines, ",")
end

local cases = {
  {"if\nmath.sin(1)\nthen\n  a=1\nelse\n  a=2\nend\n", "2,3,4,7"},
  {"--\nif nil then\n  a=1\nelse\n  a=2\nend\n", "2,5,6"},
  {"local a\na=1\nwhile a<=3 do\n  a=a+1\nend\n", "1,2,3,4,3,4,3,4,3,5"},
  {"while math.sin(1) do\n  if math.sin(1)\n  then break\n  end\nend\na=1", "1,2,3,6"},
  {"for i=1,3 do\n  a=i\nend\n", "1,2,1,2,1,2,1,3"},
  {"for i,v in pairs{'a','b'} do\n  a=tostring(i) .. v\nend\n", "1,2,1,2,1,3"},
  {"a=1\nrepeat\n  a=a+1\nuntil a==3\n", "1,3,4,3,4"},
  {"if false then\nelseif\n  math.sin(1)\nthen\n  a=1\nend\n", "1,3,4,5,6"},
}

for i, c in ipairs(cases) do
  -- drop the first and last events: `trace`'s own lines (`f()` and the
  -- `debug.sethook()` that ends the trace)
  local got = trace(c[1]):gsub("^%d+,", ""):gsub(",%d+$", "")
  assert(got == c[2], string.format("case %d: got %s, want %s", i, got, c[2]))
end

return "OK"
