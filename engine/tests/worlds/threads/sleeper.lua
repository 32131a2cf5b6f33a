local sleeper = maketangible("sleeper")

local function log(s)
  local l = global("log")
  l[#l + 1] = s
end

-- Sleeps `ticks`, logs, `n` times.
function sleeper.nap(self, name, ticks, n)
  for i = 1, n do
    sleep(ticks)
    log(name .. "@" .. now())
  end
  return name .. " done"
end

function sleeper.forker(self)
  log("forker@" .. now())
  local tid = fork(function(a, b)
    log("child " .. a .. b .. "@" .. now())
    sleep(2)
    log("child woke@" .. now())
  end, "x", "y")
  log("forked " .. math.type(tid))
  sleep(1)
  log("forker woke@" .. now())
end

function sleeper.wake_at(self, t, name)
  sleep(t - now())
  log(name)
end

function sleeper.boom(self)
  sleep(1)
  local x = nil
  return x.field
end

function sleeper.who(self)
  local a = actor()
  print("actor", a and getid(a) or "none")
  sleep(1)
  print("still", a and getid(a) or "none")
  return "result", 42
end

function sleeper.forever(self)
  while true do end
end

function sleeper.ask(self)
  local t = realtime("utc")
  log("time " .. tostring(t))
  return t
end

function sleeper.spawn_tangible(self)
  return getid(newtangible(sleeper, 0, 0, 0))
end

function sleeper.bad_yield(self)
  coroutine.yield(1)
end

function sleeper.nested_sleep(self)
  local co = coroutine.wrap(function() sleep(1) end)
  co()
end

function sleeper.hog(self)
  local s = string.rep("x", 100 * 1024 * 1024)
  return #s
end

permit_invoke(sleeper, "who")
permit_invoke("sleeper", "forever")
permit_invoke(sleeper, "ask")
permit_invoke(sleeper, "spawn_tangible")
permit_invoke(sleeper, "nap")

makeclass("check")
function check.log()
  local l = global("log")
  local s = table.concat(l, ",")
  for i = #l, 1, -1 do l[i] = nil end
  return s
end

-- Destroys its own tangible, then sleeps: the thread is gone with it.
function sleeper.suicide(self)
  destroy(self)
  sleep(1)
  global("log")[1] = "never"
end
