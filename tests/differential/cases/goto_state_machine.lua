-- parse a token list with a goto-driven state machine
local tokens = {"BEGIN", "x", "=", "1", ";", "y", "=", "2", ";", "END"}
local pos = 0
local function nexttok() pos = pos + 1 return tokens[pos] end
local out = {}
local name
::start::
if nexttok() ~= "BEGIN" then goto fail end
::stmt::
do
  local t = nexttok()
  if t == "END" then goto finish end
  name = t
end
if nexttok() ~= "=" then goto fail end
out[#out + 1] = name .. " := " .. nexttok()
if nexttok() ~= ";" then goto fail end
goto stmt
::fail::
print("parse error at", pos)
goto exit
::finish::
for _, s in ipairs(out) do print(s) end
::exit::
print("positions used", pos)
