local function make()
  local shared = 0
  local function add(n) shared = shared + n end
  local function mul(n) shared = shared * n end
  local function get() return shared end
  return add, mul, get
end
local add, mul, get = make()
add(3) mul(4) add(1)
print(get())
local add2, _, get2 = make()
add2(7)
print(get(), get2())
local function outer()
  local x = 1
  local function middle()
    local function inner() x = x * 2 return x end
    return inner
  end
  return middle(), function() return x end
end
local inner, peek = outer()
inner() inner() inner()
print(peek())
local t = {}
do
  local v = "before"
  t.get = function() return v end
  v = "after"
end
print(t.get())
