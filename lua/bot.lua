-- bot.lua: how a bot plays Emberfield (`luprex sim lua/`, and `luprex play
-- lua/` without a terminal). Shows: the bot protocol of the engine binary.
-- A bot calls bot.choose(me, r) as a *probe* in its own client's predicted
-- view: it reads the world as the player sees it, cannot change it, and
-- returns what to do: "walk", x, y  |  "invoke", target, name, args...  |
-- "wait"  |  nil (the engine's default bot). `r` is a random integer
-- (a probe's own math.random is rolled back with it).
-- This bot chops wood, mines stone, crafts at the workbench, chats and
-- looks at the scores; delete this file from control.lst to see the
-- default bot (random walks and random commands that take no arguments).

local bot = makeclass("bot")

bot.lines = { "hello!", "nice trees here", "anyone near the workbench?", "the cat likes me" }

-- The nearest tangible of class `class` within 20 of `me` (the close
-- radius: only there does a client see things' data).
function bot.nearest(me, class)
  local best, bd
  for _, t in ipairs(scanradius(me, 20)) do
    if t.__class == class then
      local d = util.dist(me, t)
      if bd == nil or d < bd then best, bd = t, d end
    end
  end
  return best, bd
end

-- Go to `thing` and invoke `name` there, or nil if there is no such thing.
function bot.use(me, thing, d, name, ...)
  if thing == nil then return nil end
  if d <= tuning.reach then return "invoke", thing, name, ... end
  local x, y = position(thing)
  local mx = position(me)
  return "walk", x + (mx < x and -1 or 1), y
end

function bot.choose(me, r)
  local roll = r % 40
  if roll == 0 then return "invoke", me, "say", bot.lines[1 + (r // 40) % #bot.lines] end
  if roll == 1 then return "invoke", me, "scores" end
  if roll == 2 then
    local cat, d = bot.nearest(me, "cat")
    if cat then return bot.use(me, cat, d, "pet") end
  end
  local wood, stone = bag.count(me, "wood"), bag.count(me, "stone")
  if wood >= 1 and stone >= 1 then
    local bench, d = bot.nearest(me, "workbench")
    if bench and bench.busy then return "wait" end
    local what = (wood >= 2 and bag.count(me, "axe") == 0) and "axe" or "torch"
    local act = table.pack(bot.use(me, bench, d, "craft", what))
    if act[1] then return table.unpack(act, 1, act.n) end
  end
  local want, verb = "tree", "chop"
  if wood >= 1 or (wood == 0 and r % 3 == 0) then want, verb = "rock", "mine" end
  local thing, d = bot.nearest(me, want)
  local act = table.pack(bot.use(me, thing, d, verb))
  if act[1] then return table.unpack(act, 1, act.n) end
  return "walk", (r // 7) % 31 - 15, (r // 217) % 17 - 8
end
