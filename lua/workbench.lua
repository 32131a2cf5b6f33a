-- workbench.lua: the crafting station. Shows: a thread that sleeps while it
-- works. /craft takes the ingredients, marks the bench busy, sleeps the
-- recipe's ticks (the world goes on; others see the bench busy), then
-- hands the item to the crafter and awards points. The award touches the
-- master's scores, so a client predicting /craft stops there (NoPredict):
-- it predicts the ingredients leaving and the item arriving, and the
-- scoreboard comes from the server.

local workbench = maketangible("workbench")
workbench.glyph = "W"

local function needs_text(r)
  local kinds = {}
  for k in pairs(r.needs) do kinds[#kinds + 1] = k end
  table.sort(kinds)
  local parts = {}
  for i, k in ipairs(kinds) do parts[i] = r.needs[k] .. " " .. k end
  return table.concat(parts, " + ")
end

-- /recipes: what the bench makes (from tuning.lua).
function workbench:recipes()
  local names = {}
  for name in pairs(tuning.recipes) do names[#names + 1] = name end
  table.sort(names)
  local lines = { "The workbench makes:" }
  for _, name in ipairs(names) do
    local r = tuning.recipes[name]
    lines[#lines + 1] = string.format("  %-8s %s  (%d ticks, %d points)", name, needs_text(r),
      r.ticks, r.points)
  end
  print(table.concat(lines, "\n"))
end
permit_invoke(workbench, "recipes")

-- Whether `who` has everything recipe `r` needs.
local function has_all(who, r)
  for kind, n in pairs(r.needs) do
    if bag.count(who, kind) < n then return false end
  end
  return true
end

-- /craft NAME: makes one NAME from your ingredients.
function workbench:craft(name)
  local who = util.user(self)
  if who == nil then return end
  name = tostring(name)
  local r = tuning.recipes[name]
  if r == nil then print("The workbench cannot make '" .. name .. "'; try /recipes.") return end
  if self.busy then
    print("The workbench is busy making a " .. self.busy.what .. " for "
      .. util.label(self.busy.crafter) .. ".")
    return
  end
  if not has_all(who, r) then print("A " .. name .. " needs " .. needs_text(r) .. ".") return end
  for kind, n in pairs(r.needs) do
    for _ = 1, n do bag.take(who, kind) end
  end
  self.busy = { what = name, crafter = who, done = now() + r.ticks }
  print("The workbench starts on your " .. name .. " (" .. r.ticks .. " ticks)...")
  sleep(r.ticks)
  self.busy = nil
  item.new(name, who)
  local score = scoreboard.award(who, r.points)   -- master data: NoPredict in a prediction
  print("Your " .. name .. " is ready! +" .. r.points .. " points (" .. score .. " in all).")
  util.announce(who, util.label(who) .. " crafted a " .. name .. ".")
end
permit_invoke(workbench, "craft")
