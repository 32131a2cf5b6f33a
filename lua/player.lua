-- player.lua: the players. Shows: joining and leaving (onjoin/onleave),
-- walking with the built-in walk command, refined by `walkspeed` and the
-- `onwalk` hook (the fence, the pond), an animation queue of several steps
-- (/dance), chat through print buffers (`tell`), published globals read
-- anywhere (/scores), and a NoPredict command (/time asks the server's
-- real clock: a blocking operation, which a client cannot predict).
-- A player who leaves sleeps in place (`setclass`) until it returns.
-- Every command a client can type is a method marked by permit_invoke;
-- any player may invoke it on any tangible, so these check that the
-- player is commanding itself (`util.self`).

local player = maketangible("player")
player.glyph = "@"
player.walkspeed = tuning.walkspeed

function player:onjoin(name, new)
  self.name = name
  if new then
    -- Spawn on the village square, spread out a little by ID.
    moveto(self, getid(self) % 5 - 2, -2, 0, 0)
  end
  print(tuning.motd)
  util.announce(self, name .. (new and " arrives in Emberfield." or " is back."))
end

-- A player who leaves stays in the world, asleep where it stood (class
-- `asleep`, glyph z: it hears no chat), until it comes back.
local asleep = maketangible("asleep")
asleep.glyph = "z"

function player:onleave()
  util.announce(self, util.label(self) .. " leaves and falls asleep on the spot.")
  setclass(self, asleep)
end

function asleep:onjoin(name, new)
  setclass(self, player)
  return player.onjoin(self, name, new)
end

-- The walk hook: stay inside the fence, stay out of the pond.
function player:onwalk(x, y, z)
  local f, p = tuning.fence, tuning.pond
  if (x - p.x) ^ 2 + (y - p.y) ^ 2 <= p.r ^ 2 then
    print("Splash! The pond is too deep to wade into.")
    return false
  end
  local cx = math.max(f.xmin, math.min(f.xmax, x))
  local cy = math.max(f.ymin, math.min(f.ymax, y))
  if cx ~= x or cy ~= y then return cx, cy, z end
end

-- /say TEXT (or any line not starting with '/'): chat with players nearby.
function player:say(text)
  if not util.self(self) then return end
  text = tostring(text)
  local heard = util.players_near(self, tuning.hearing)
  for _, p in ipairs(heard) do tell(p, util.label(self) .. ": " .. text) end
  print("you: " .. text .. (#heard == 0 and "  (nobody is near enough to hear)" or ""))
end
permit_invoke(player, "say")

-- /inv: what you carry.
function player:inv()
  if not util.self(self) then return end
  print("You carry " .. bag.describe(self) .. ".")
end
permit_invoke(player, "inv")

-- /look: the things around you and what you can do with them.
local verbs = {
  tree = "/chop", stump = "(regrowing)", rock = "/mine", rubble = "(regrowing)",
  chest = "/open /put KIND /take KIND", workbench = "/recipes /craft NAME",
  sign = "/read", cat = "/pet", player = "/give #ID KIND",
}
function player:look()
  if not util.self(self) then return end
  local lines = {}
  for _, t in ipairs(scanradius(self, 8)) do
    if t ~= self then
      lines[#lines + 1] = string.format("  #%d %s at %.0f  %s", getid(t), util.label(t),
        util.dist(self, t), verbs[t.__class] or "")
    end
  end
  if #lines == 0 then print("Nothing but grass within 8 steps.") return end
  print("Around you:\n" .. table.concat(lines, "\n"))
end
permit_invoke(player, "look")

-- /give #ID KIND: hand an item to another player within reach.
function player:give(to, kind)
  if not util.self(self) then return end
  if type(to) ~= "table" or getmetatable(to) ~= "tangible" or to.__class ~= "player" then
    print("Give to whom? /give #ID KIND, with the ID of a player from /look.")
    return
  end
  if util.dist(self, to) > tuning.reach then print(util.label(to) .. " is too far away.") return end
  local it = bag.take(self, tostring(kind))
  if it == nil then print("You have no " .. tostring(kind) .. ".") return end
  bag.put(to, it)
  print("You give " .. util.label(to) .. " a " .. it.kind .. ".")
  tell(to, util.label(self) .. " gives you a " .. it.kind .. ".")
end
permit_invoke(player, "give")

-- /dance: four queued steps (one animation queue), then back where you were.
function player:dance()
  if not util.self(self) then return end
  local x, y, z = position(self)
  halt(self)
  moveto(self, x + 1, y, z, 2)
  moveto(self, x + 1, y + 1, z, 2)
  moveto(self, x, y + 1, z, 2)
  moveto(self, x, y, z, 2)
  print("You dance a little square.")
  util.announce(self, util.label(self) .. " dances.")
end
permit_invoke(player, "dance")

-- /scores: the published scoreboard (global.get works in every model).
function player:scores()
  if not util.self(self) then return end
  print(scoreboard.text())
end
permit_invoke(player, "scores")

-- /time: the server's real date and time. `realtime` is a blocking
-- operation: the master asks its host and waits; a client's prediction
-- cannot run it (a NoPredict) and waits for the server's answer.
function player:time()
  if not util.self(self) then return end
  print("The town clock says " .. tostring(realtime("utc")) .. ".")
end
permit_invoke(player, "time")

-- /help: the commands.
function player:help()
  if not util.self(self) then return end
  print(table.concat({
    "Arrows or WASD walk. Plain text chats. Commands (to the nearest thing that has them):",
    "  /look /inv /dance /scores /time /say TEXT /give #ID KIND",
    "  /chop (tree)  /mine (rock)  /read (sign)  /pet (cat)",
    "  /open /put KIND /take KIND (chest)  /recipes /craft NAME (workbench)",
    "  /NAME@ID ARGS sends to tangible #ID; q or Esc quits.",
  }, "\n"))
end
permit_invoke(player, "help")
