local player = maketangible("player")
player.walkspeed = 2              -- units per tick, for every player

function player:onjoin(name, new)
  self.name = name
  self.visits = (self.visits or 0) + 1
  if new then
    moveto(self, 10, 0, 0, 0)     -- a teleport to the spawn point
    self.hat = newtangible("hat", 10, 0, 1)   -- its ID comes from my pool
  end
  print("welcome " .. name .. (new and "" or " back") .. " #" .. self.visits)
end

function player:onleave()
  print("bye " .. self.name)
  self.away = true
end

-- The walk hook: nobody walks past x = 100; y < 0 is mirrored.
function player:onwalk(x, y, z)
  if x > 100 then
    print("a wall")
    return false
  end
  if y < 0 then return x, -y, z end
end

maketangible("hat")

-- Chat: a permitted command that tells every player within 50 units.
function player:say(text)
  for _, p in ipairs(scanradius(self, 50)) do
    if p ~= self and getmetatable(p) == "tangible" and p.name then
      tell(p, self.name .. ": " .. text)
    end
  end
  return "said"
end
permit_invoke(player, "say")
