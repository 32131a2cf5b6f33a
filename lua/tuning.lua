-- tuning.lua: the numbers and words of Emberfield, in the one file meant to
-- be edited while the world runs. Shows: reloading. When the file changes,
-- the server reloads it and rebuilds every class, so the new values and
-- recipes take effect at once, for every connected client, without a
-- restart. It only defines constants in a class table (code, not data:
-- each rebuild installs them again), so it is reloadable as written.
--
-- Try: change `motd`, make the torch cheaper, add a recipe, then type
-- /read at the sign or /recipes at the workbench.

local tuning = makeclass("tuning")

tuning.motd = "Welcome to Emberfield! Chop trees, mine rocks, craft at the workbench. Type /help."

tuning.walkspeed = 1   -- units per tick, for every player
tuning.reach = 3       -- how close you must stand to use a thing
tuning.hearing = 30    -- how far `say` carries
tuning.regrow = 40     -- ticks before a stump is a tree again (and rubble a rock)

-- The village fence (players are kept inside) and the pond (too deep to enter).
tuning.fence = { xmin = -20, xmax = 20, ymin = -10, ymax = 10 }
tuning.pond = { x = -13, y = -6, r = 2.5 }

-- What the workbench makes: ingredients, working time in ticks, points.
tuning.recipes = {
  torch = { needs = { wood = 1, stone = 1 }, ticks = 10, points = 1 },
  axe = { needs = { wood = 2, stone = 1 }, ticks = 15, points = 2 },
  lantern = { needs = { torch = 1, stone = 2 }, ticks = 20, points = 3 },
  statue = { needs = { stone = 3, lantern = 1 }, ticks = 30, points = 5 },
}

-- With an axe in your bag, chopping yields this much wood instead of 1.
tuning.axe_bonus = 2
