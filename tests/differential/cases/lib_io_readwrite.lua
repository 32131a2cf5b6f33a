-- io.read / file:read / io.lines formats and io.write's arguments, through
-- a temporary file: the scratch-buffer paths of the io library.
local name = os.tmpname()
local f = assert(io.open(name, "w"))
-- write returns the file, numbers print as %d / %.14g
assert(f:write("alpha\n", 12, " ", 3.5, " ", -0.0, "\n") == f)
f:write("  42  7.25 0x10 nope\n")
f:write("line three\n", "\n", "last without newline")
f:close()

local function show(...)
  local t = table.pack(...)
  local out = {}
  for i = 1, t.n do out[i] = type(t[i]) == "string" and ("%q"):format(t[i]) or tostring(t[i]) end
  print(t.n, table.concat(out, " "))
end

f = assert(io.open(name, "r"))
show(f:read())                    -- default "l"
show(f:read("L"))                 -- keeps the newline
show(f:read("n", "n", "n"))       -- three numbers
show(f:read("n"))                 -- fails: nil, and the read stops
show(f:read("l"))                 -- rest of that line
show(f:read(4, 0, "l"))           -- counts, read(0) not at eof
show(f:read("l", "l"))            -- an empty line then the last
show(f:read("l"))                 -- eof: nil
show(f:read(0))                   -- eof: nil
show(f:read("a"))                 -- "a" at eof: empty string
show(f:read("l", "n"))            -- first fails: one nil only
f:close()
show(pcall(f.read, f))            -- closed file

-- io.lines with formats, several values per iteration
for a, b in io.lines(name, 2, "l") do show(a, b) end
for n in io.lines(name, "L") do io.write(("[%s]"):format(n)) end
print()

-- io.input / io.read on the default input
io.input(name)
show(io.read("l", "l"))
show(io.read(3))
io.input():close()
show(pcall(io.read))

-- long lines pass the scratch buffer's sizes
f = assert(io.open(name, "w"))
f:write(("x"):rep(70000), "\n", ("yz"):rep(50), "\n")
f:close()
for l in io.lines(name) do print(#l, l:sub(1, 3)) end
f = assert(io.open(name, "r"))
print(#f:read("a"))
f:close()
os.remove(name)

-- a stream error: the error triple instead of what was read
local d = io.open(".")
if d then
  show(d:read("l"))
  show(d:read(5, "l"))
  for _, ok in ipairs({pcall(function() for l in d:lines() do end end)}) do print(ok) end
  d:close()
end

-- io.write to the standard output: numbers, strings, the result, an
-- argument error after some pieces went out, each buffering mode
print(io.write(1, " ", 2.5, " ", -0.0, " ", 1e100, " ", 2^63, " ", math.mininteger, "\n") == io.stdout)
print(pcall(io.write, "before-error ", {}, " never"))
print()
for _, mode in ipairs({"no", "line", "full"}) do
  io.stdout:setvbuf(mode)
  io.write(mode, ":", 3, "\n", "second line ", 4.0, "\n")
  io.stdout:write("via method ", mode, "\n")
end
print(pcall(io.stdout.write, io.stdout, "x", nil))
print()
