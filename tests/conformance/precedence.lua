-- Operator precedence and associativity.
-- or < and < comparison < | < ~ < & < shift < .. < + - < * / // % < unary < ^
local function eq(a, b, what)
  if a ~= b then
    error((what or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a), 2)
  end
end

-- Workaround for the reference interpreter (Debian lua5.4 5.4.4): a __concat
-- metamethod running while the Lua stack gets reallocated (grown, or shrunk by
-- the GC) corrupts the concatenation or crashes. Pre-grow the stack and stop
-- the collector while __concat is exercised. (Harmless for other VMs.)
collectgarbage("stop")
local function grow(n) if n > 0 then return grow(n - 1) + 1 end return 0 end
grow(500)

eq(1 + 2 * 3, 7, "* over +")
eq((1 + 2) * 3, 9, "parentheses")
eq(2 * 3 ^ 2, 18.0, "^ over *")
eq(-2 ^ 2, -4.0, "^ over unary minus")
eq(2 ^ -2, 0.25, "unary in exponent")
eq(2 ^ 3 ^ 2, 512.0, "^ is right associative")
eq((2 ^ 3) ^ 2, 64.0, "left grouping")
eq(10 - 4 - 3, 3, "- is left associative")
eq(64 / 4 / 2, 8.0, "/ left associative")
eq(7 // 2 * 2, 6, "// and * same level, left to right")
eq(7 % 4 % 3, 0, "% left associative")
eq(2 * 3 % 4, 2, "* then %")
eq(1 .. 2 .. 3, "123", ".. chain")
eq("a" .. "b" == "ab", true, ".. over ==")
eq(1 + 1 .. "", "2", "+ over ..")
eq(not nil == true, true, "not over ==")
eq(not (nil == true), true, "explicit grouping")
eq(not 1 == 2, false, "not 1 is false; false == 2 false")
eq(-3 .. "", "-3", "unary minus over ..")
eq(#"abc" * 2, 6, "# over *")
eq(- - 2, 2, "double negation")
eq(not not nil, false, "double not")
eq(~~5, 5, "double bnot")
eq(- ~0, 1, "unary mix")

-- comparisons and logic
eq(1 < 2 == true, true, "< then ==")
eq(1 == 1 and 2 == 2, true, "== over and")
eq(false or true and false, false, "and over or")
eq(true or false and nil, true, "or lowest")
eq(nil and 1 or 2, 2, "ternary idiom false branch")
eq(1 and 2 or 3, 2, "ternary idiom true branch")
eq(false and error("not evaluated") or "short", "short", "short circuit and")
eq(true or error("not evaluated"), true, "short circuit or")
eq(1 < 2 and 2 < 3, true, "chained comparisons with and")

-- bitwise precedence
eq(1 | 2 ~ 3 & 4, 1 | (2 ~ (3 & 4)), "| < ~ < &")
eq(1 << 2 | 1, 5, "shift over |")
eq(1 << 1 + 1, 4, "+ over shift")
eq(3 & 2 == 2, true, "& over ==")
eq(0xF0 >> 4 & 0x3, 3, "shift over &")
eq(2 ~ 3 | 4, 5, "~ over |")
eq(~0 & 0xFF, 255, "unary ~ over &")
eq(pcall(load("return '1' .. 2 << 1")), false, ".. binds tighter than << (string operand fails)")

-- concatenation is right associative (observable with __concat).
-- Each expression triggers a single metamethod call: Debian's lua5.4 (5.4.4)
-- can corrupt results when one concat expression calls __concat twice.
do
  local log = ""
  local mt = {__concat = function(a, b)
    local x = type(a) == "table" and "T" or a
    local y = type(b) == "table" and "T" or b
    log = log .. "(" .. x .. "," .. y .. ")"
    return "r"
  end}
  local A = setmetatable({}, mt)
  local r = "x" .. "y" .. A
  eq(r, "xr", "x .. (y .. A)")
  eq(log, "(y,T)", "right pair first")
  log = ""
  r = A .. "x" .. "y"
  eq(r, "r", "A .. (x .. y)")
  eq(log, "(T,xy)", "strings on the right joined first")
end

-- ^ is right associative (observable with __pow)
do
  local log = ""
  local mt = {}
  mt.__pow = function(a, b)
    local x = type(a) == "table" and a.n or a
    local y = type(b) == "table" and b.n or b
    log = log .. "[" .. x .. "^" .. y .. "]"
    return setmetatable({n = x .. y}, mt)
  end
  local A = setmetatable({n = "a"}, mt)
  local B = setmetatable({n = "b"}, mt)
  local _ = A ^ B ^ A
  eq(log, "[b^a][a^ba]", "pow right to left")
end

-- evaluation order of operands is left to right for simple calls
do
  local log = ""
  local function f(x) log = log .. x return x end
  local _ = f(1) + f(2) * f(3)
  eq(log, "123", "operands evaluated left to right")
end

-- unary operators on expressions in parentheses
eq(-(2 + 3), -5, "negated group")
eq(not (1 == 2), true, "not group")
eq(#("ab" .. "cd"), 4, "# of concat")

-- a long expression checked against a hand-computed value
eq(2 + 3 * 4 ^ 2 / 8 - 1 % 3 .. "", "7.0", "mixed arithmetic")
eq(1 + 2 < 4 and "yes" or "no", "yes", "mixed with logic")
eq(5 // 2 * 2 + 5 % 2, 5, "div/mod identity")
eq(-2 ^ 2 ^ 0 .. "", "-2.0", "-(2^(2^0))")
eq(2 ^ -1 ^ 2, 0.5, "2^(-(1^2))")

-- comparison results in arithmetic context are booleans
eq(type(1 < 2), "boolean", "comparison yields boolean")
eq((1 < 2) == true, true, "true")

-- and/or return operands, not booleans
eq(nil or false, false, "nil or false")
eq(false or nil, nil, "false or nil")
eq(0 and "zero is true", "zero is true", "0 is truthy")
eq("" and "empty string is true", "empty string is true", "'' is truthy")

collectgarbage("restart")
return "OK"
