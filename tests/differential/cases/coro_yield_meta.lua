local mt = {
  __index = function(t, k) return coroutine.yield("index " .. k) end,
  __newindex = function(t, k, v) rawset(t, k, coroutine.yield("newindex " .. k)) end,
  __add = function(a, b) return coroutine.yield("add") end,
  __lt = function(a, b) return coroutine.yield("lt") end,
  __eq = function(a, b) return coroutine.yield("eq") end,
  __len = function(a) return coroutine.yield("len") end,
  __call = function(self, x) return coroutine.yield("call " .. x) end,
  __concat = function(a, b) return coroutine.yield("concat") end,
}
local obj = setmetatable({}, mt)
local obj2 = setmetatable({}, mt)
local co = coroutine.wrap(function()
  local r = {}
  r[#r + 1] = obj.foo
  obj.bar = "ignored"
  r[#r + 1] = rawget(obj, "bar")
  r[#r + 1] = obj + 1
  r[#r + 1] = tostring(obj < obj2)
  r[#r + 1] = tostring(obj == obj2)
  r[#r + 1] = #obj
  r[#r + 1] = obj("arg")
  r[#r + 1] = obj .. "s"
  for k in function(_, c) return coroutine.yield("iter " .. tostring(c)) end, nil, 0 do
    r[#r + 1] = "loop " .. k
  end
  local s = ""
  for i = 1, #r do s = s .. tostring(r[i]) .. ";" end
  return "done", s
end)
local answers = {"FOO", "BAR", 42, true, false, 3, "CALLED", "CAT", "k1", "k2", nil}
local tag = co()
local i = 1
while tag ~= "done" do
  print("yielded:", tag)
  local a, b = co(answers[i])
  i = i + 1
  tag = a
  if tag == "done" then print(b) end
end
