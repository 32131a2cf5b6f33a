local transitions = {
  locked = {coin = "unlocked", push = "locked"},
  unlocked = {coin = "unlocked", push = "locked"},
}
local function run(events)
  local state, log = "locked", ""
  for _, ev in ipairs(events) do
    local nxt = transitions[state][ev]
    if not nxt then error("bad event " .. ev .. " in " .. state) end
    log = log .. state .. "-" .. ev .. "->" .. nxt .. " "
    state = nxt
  end
  return state, log
end
print(run({"push", "coin", "coin", "push", "push", "coin"}))
print(pcall(run, {"coin", "kick"}))
