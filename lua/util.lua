-- util.lua: small helpers shared by the other files. Shows: globals hold
-- classes only, so helpers live in a class (`util`) rather than in global
-- functions; and a command's player is `actor()`.

local util = makeclass("util")

-- The distance between two tangibles (on the ground plane).
function util.dist(a, b)
  local ax, ay = position(a)
  local bx, by = position(b)
  return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2)
end

-- A tangible's name for messages: players have one, other things their class.
function util.label(t)
  if t == nil then return "nobody" end
  return t.name or (t.__class .. " #" .. getid(t))
end

-- The player running this command, if it stands within reach of `thing`;
-- otherwise tells it to come closer and returns nil.
function util.user(thing)
  local who = actor()
  if who == nil then return nil end
  if util.dist(who, thing) > tuning.reach then
    print("You are too far from the " .. thing.__class .. "; walk closer (within "
      .. tuning.reach .. ").")
    return nil
  end
  return who
end

-- Every player within `r` of `t`, but `t` itself.
function util.players_near(t, r)
  local out = {}
  for _, p in ipairs(scanradius(t, r)) do
    if p ~= t and p.__class == "player" then out[#out + 1] = p end
  end
  return out
end

-- Tells every player near `t` (but `t`) the line `text`.
function util.announce(t, text)
  for _, p in ipairs(util.players_near(t, tuning.hearing)) do tell(p, text) end
end

-- Whether the running command's player is `t` itself (players' own
-- commands: nobody may make another player speak or give things away).
function util.self(t)
  if actor() == t then return true end
  print("You can only do that as yourself.")
  return false
end
