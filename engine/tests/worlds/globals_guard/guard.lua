-- The environment holds classes only; the library is readable but absent.
makeclass("guarded")
function guarded.method() return 42 end

assert(never_defined == nil, "an undefined global reads nil")
assert(type(pairs) == "function" and type(string.format) == "function")
assert(type(makeclass) == "function" and type(global) == "table" and type(default) == "function")
assert(_G.print == print and _G.guarded == guarded)
for _, name in ipairs({"pairs", "string", "print", "makeclass", "global", "default", "_G"}) do
  assert(rawget(_G, name) == nil, name .. " is not an entry of the environment")
end
for k, v in pairs(_G) do
  assert(type(v) == "table" and v.__class == k, "only classes in the environment: " .. tostring(k))
end

-- Assigning a non-class global fails where it is written.
local ok, err = pcall(function()
  x = 5 -- line 18
end)
assert(not ok, "assigning a global must fail")
assert(err:find("^guard.lua:18: cannot assign global 'x': globals hold classes only", 1), err)
assert(err:find('keep shared data in global("name") instead', 1, true), err)
assert(x == nil and rawget(_G, "x") == nil)

-- Every kind of value is refused, including functions and tables.
ok, err = pcall(function() function helper() end end)
assert(not ok and err:find("cannot assign global 'helper'"), err)
ok, err = pcall(function() _G.data = {} end)
assert(not ok and err:find("cannot assign global 'data'"), err)
ok, err = pcall(function() _G[1] = true end)
assert(not ok and err:find("cannot assign global 1:"), err)
-- A class under another name is not a class of that name.
ok, err = pcall(function() alias = guarded end)
assert(not ok and err:find("cannot assign global 'alias'"), err)

-- The guard cannot be removed.
ok, err = pcall(setmetatable, _G, nil)
assert(not ok and err:find("cannot change a protected metatable"), err)
assert(getmetatable(_G) == "the global environment")

-- Local variables are of course fine.
local y = 1
y = y + 1
assert(y == 2)
