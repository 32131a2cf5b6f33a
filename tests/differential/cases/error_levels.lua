local function lvl(n) error("level " .. n, n) end
local function a(n) lvl(n) end
local function b(n) a(n) end
for n = 0, 4 do print(pcall(b, n)) end
local function check(x) if type(x) ~= "number" then error("expected number, got " .. type(x), 2) end return x end
local function user() return check("str") end -- tail call: level 2 has no position
print(pcall(user))
local function user2() local r = check("str") return r end
print(pcall(user2))
print(pcall(check, "direct"))
local function deep(n) if n == 0 then error("bottom", 3) end return deep(n - 1) end
print(pcall(deep, 5))
