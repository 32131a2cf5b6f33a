local player = maketangible("player")
player.walkspeed = 2

function player:onjoin(name, new)
  if new then
    -- a spawn point from the name, so that runs are reproducible
    local h = 0
    for i = 1, #name do h = (h * 31 + string.byte(name, i)) % 1000 end
    moveto(self, (h % 21) - 10, (h // 21 % 21) - 10, 0, 0)
  end
  print("welcome " .. name)
end

function player:shout(text)
  print(text)
end
permit_invoke(player, "shout")

-- impossible on purpose: a script error
function player:boom()
  error("boom")
end
permit_invoke(player, "boom")

-- a command that sleeps, then moves the player a little (a scheduled
-- thread in every model)
function player:nap(ticks)
  sleep(ticks)
  local x, y, z = position(self)
  moveto(self, x + 1, y, z, 2)
end
permit_invoke(player, "nap")

-- a blocking operation: real on the master, NoPredict elsewhere
function player:clock()
  print(realtime("utc"))
end
permit_invoke(player, "clock")

-- not permitted
function player:cheat() end
