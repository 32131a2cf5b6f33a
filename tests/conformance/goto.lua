-- goto and labels: continue idiom, nested loops, backward loops, scoping rules.
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- continue idiom
do
  local s = ""
  for i = 1, 10 do
    if i % 2 == 0 then goto continue end
    s = s .. i
    ::continue::
  end
  eq(s, "13579", "continue")
end

-- continue in while and repeat
do
  local i, s = 0, ""
  while i < 6 do
    i = i + 1
    if i == 3 then goto cont end
    s = s .. i
    ::cont::
  end
  eq(s, "12456", "while continue")
  local j, r = 0, ""
  repeat
    j = j + 1
    if j == 2 then goto cont2 end
    r = r .. j
    ::cont2::
  until j >= 4
  eq(r, "134", "repeat continue")
end

-- break out of nested loops
do
  local found
  for i = 1, 10 do
    for j = 1, 10 do
      if i * j == 42 then
        found = i .. "x" .. j
        goto done
      end
    end
  end
  ::done::
  eq(found, "6x7", "nested break")
end

-- backward goto loop
do
  local i, sum = 1, 0
  ::top::
  sum = sum + i
  i = i + 1
  if i <= 100 then goto top end
  eq(sum, 5050, "backward goto loop")
end

-- goto forward skipping code
do
  local x = 1
  goto skip
  x = 2
  ::skip::
  eq(x, 1, "skipped assignment")
end

-- labels in nested blocks with the same name are allowed
do
  local log = ""
  do
    goto a
    log = log .. "no"
    ::a::
    log = log .. "1"
  end
  do
    goto a
    log = log .. "no"
    ::a::
    log = log .. "2"
  end
  eq(log, "12", "same label name in sibling blocks")
end

-- goto to a label at the end of a block may jump past local declarations
do
  local n = 0
  for i = 1, 3 do
    if i == 2 then goto continue end
    local v = i * 10
    n = n + v
    ::continue::
  end
  eq(n, 40, "continue past local")
end

-- state machine with gotos
do
  local out = ""
  local n = 0
  ::s1::
  out = out .. "a"
  n = n + 1
  if n > 5 then goto finish end
  goto s2
  ::s2::
  out = out .. "b"
  goto s1
  ::finish::
  eq(out, "ababababab" .. "a", "state machine")
end

-- compile-time errors
local function compile(src)
  local f, msg = load(src, "=src")
  return msg
end
eq(compile("goto nowhere"), "src:1: no visible label 'nowhere' for <goto> at line 1", "missing label")
eq(compile("::a:: ::a::"), "src:1: label 'a' already defined on line 1", "duplicate label")
eq(compile("do ::a:: end ::a::"), nil, "label in nested block does not clash")
eq(compile("::a:: do ::a:: end"), "src:1: label 'a' already defined on line 1", "visible label clashes in nested block")
eq(compile("goto f; local x; ::f:: print(x)"), "src:1: <goto f> at line 1 jumps into the scope of local 'x'", "jump into scope")
eq(compile("do goto f; local x; ::f:: end"), nil, "label at end of block is outside local scope")
eq(compile("local function f() goto out end ::out::"), "src:1: no visible label 'out' for <goto> at line 1", "goto cannot leave a function")
eq(compile("for i = 1, 2 do end goto x ::x::"), nil, "simple forward goto")
eq(compile("break"), "src:1: break outside loop at line 1", "break outside loop")

-- goto inside a closure loop captures fresh variables
do
  local fs = {}
  local i = 1
  ::again::
  do
    local j = i
    fs[#fs + 1] = function() return j end
  end
  i = i + 1
  if i <= 3 then goto again end
  eq(fs[1]() + fs[2]() + fs[3](), 6, "fresh locals")
end

-- 'goto continue' at the end of the body with nested loops
do
  local c = 0
  for i = 1, 5 do
    for j = 1, 5 do
      if j > i then goto next_i end
      c = c + 1
    end
    ::next_i::
  end
  eq(c, 15, "triangle count")
end

return "OK"
