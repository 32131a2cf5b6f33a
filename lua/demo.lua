-- A small deterministic world, written the way Luprex game scripts are:
-- classes are tables that serve as metatables, every tangible has an id,
-- and behaviour runs in threads (coroutines) woken by a scheduler.
--
-- Until the engine binary exists, run it with the standalone interpreter:
--   cargo run --release --bin luprex-lua -- lua/demo.lua

local classes = {}

local function makeclass(name)
  local class = classes[name] or {}
  class.__class = name
  class.__index = class
  classes[name] = class
  return class
end

-- The world: tangibles by id and a schedule of (time, thread) wakeups.
local world = { now = 0, next_id = 1, tangibles = {}, schedule = {}, log = {} }

local function say(fmt_parts)
  local line = "[t=" .. world.now .. "] " .. fmt_parts
  world.log[#world.log + 1] = line
  print(line)
end

-- Creates a thread running fn(tangible, arg) and schedules it now.
local function spawn(tangible, fn, arg)
  local co = coroutine.create(fn)
  world.schedule[#world.schedule + 1] = { time = world.now, co = co, tan = tangible, arg = arg }
end

-- Blocks the running thread for `dt` ticks.
local function sleep(dt)
  coroutine.yield(dt)
end

local Tangible = makeclass("tangible")

function Tangible.new(class, name, x, y)
  local t = setmetatable({ name = name, x = x, y = y }, class)
  t.id = world.next_id
  world.next_id = world.next_id + 1
  world.tangibles[t.id] = t
  return t
end

function Tangible:distance(other)
  local dx, dy = self.x - other.x, self.y - other.y
  return (dx * dx + dy * dy) ^ 0.5
end

function Tangible:__tostring()
  return self.__class .. "#" .. self.id .. "(" .. self.name .. ")"
end

local Furnace = makeclass("furnace")
setmetatable(Furnace, { __index = Tangible })
Furnace.__tostring = Tangible.__tostring

function Furnace:burn(fuel)
  for i = 1, fuel do
    self.heat = (self.heat or 0) + 10
    say(tostring(self) .. " burns fuel " .. i .. "/" .. fuel .. ", heat " .. self.heat)
    sleep(2)
  end
  say(tostring(self) .. " is out of fuel")
  return self.heat
end

local Walker = makeclass("walker")
setmetatable(Walker, { __index = Tangible })
Walker.__tostring = Tangible.__tostring

function Walker:walk_to(target, speed)
  while self:distance(target) > speed do
    local d = self:distance(target)
    self.x = self.x + (target.x - self.x) / d * speed
    self.y = self.y + (target.y - self.y) / d * speed
    sleep(1)
  end
  self.x, self.y = target.x, target.y
  say(tostring(self) .. " reached " .. tostring(target))
  return "arrived"
end

-- The scheduler: wake the earliest thread (ties broken by insertion order).
local function run_until(limit)
  while #world.schedule > 0 do
    local best = 1
    for i = 2, #world.schedule do
      if world.schedule[i].time < world.schedule[best].time then best = i end
    end
    local entry = world.schedule[best]
    if entry.time > limit then break end
    for i = best, #world.schedule do world.schedule[i] = world.schedule[i + 1] end
    world.now = entry.time
    local ok, result = coroutine.resume(entry.co, entry.tan, entry.arg)
    entry.arg = nil
    if not ok then
      say("thread of " .. tostring(entry.tan) .. " failed: " .. tostring(result))
    elseif coroutine.status(entry.co) == "suspended" then
      entry.time = world.now + result
      world.schedule[#world.schedule + 1] = entry
    else
      say("thread of " .. tostring(entry.tan) .. " finished with " .. tostring(result))
    end
  end
end

local furnace = Furnace:new("furnace", 0, 0)
local alice = Walker:new("alice", 10, 0)
local bob = Walker:new("bob", -3, 4)

spawn(furnace, Furnace.burn, 3)
spawn(alice, function(self, target) return self:walk_to(target, 3) end, furnace)
spawn(bob, function(self, target)
  -- yields inside pcall are fine: the scheduler resumes us later
  local ok, err = pcall(function() return self:walk_to(target, 1) end)
  if not ok then error(err) end
  return "bob done"
end, furnace)
-- A faulty script: its error is contained in its own thread.
spawn(bob, function(self) sleep(3); return self.inventory.count end)

run_until(100)

local count = 0
for _ in pairs(world.tangibles) do count = count + 1 end
print("world ended at t=" .. world.now .. " with " .. count .. " tangibles and " .. #world.log .. " log lines")
