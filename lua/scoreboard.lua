-- scoreboard.lua: points for crafting. Shows: the two kinds of global data.
-- The scores themselves are master-only data, `global("scores")` (name ->
-- points): only the authoritative world has them, and a client predicting
-- a command that touches them stops there (a NoPredict) and waits for the
-- server. What every client may see is published with
-- `global.set("scoreboard", rows)` and read anywhere with `global.get`.

local scoreboard = makeclass("scoreboard")

-- World start (master, once): publish an empty board.
function scoreboard.init()
  scoreboard.publish(global("scores"))
end

-- Adds `points` to player `who`'s score and republishes the board.
function scoreboard.award(who, points)
  local scores = global("scores")
  local name = util.label(who)
  scores[name] = (scores[name] or 0) + points
  scoreboard.publish(scores)
  return scores[name]
end

-- Publishes the board: an array of {name = ..., points = ...}, best first.
function scoreboard.publish(scores)
  local rows = {}
  for name, points in pairs(scores) do rows[#rows + 1] = { name = name, points = points } end
  table.sort(rows, function(a, b)
    if a.points ~= b.points then return a.points > b.points end
    return a.name < b.name
  end)
  global.set("scoreboard", rows)
end

-- The published board as text (works in every model).
function scoreboard.text()
  local rows = global.get("scoreboard")
  if rows == nil or #rows == 0 then return "No scores yet: craft something at the workbench." end
  local lines = { "Scoreboard:" }
  for i, r in ipairs(rows) do lines[#lines + 1] = i .. ". " .. r.name .. "  " .. r.points end
  return table.concat(lines, "\n")
end
