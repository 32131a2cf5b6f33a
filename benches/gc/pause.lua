-- Collection pauses under a big live heap (issue 16).
--
--   lua5.4 benches/gc/pause.lua [LIVE] [STEPS] [MODE]
--
-- Builds LIVE small live tables (2,000,000 by default, about 350 MB in
-- lua5.4), then runs STEPS loop steps (200,000), each of which makes ten
-- short-lived tables and replaces one live table at a pseudo-random index,
-- so the heap stays the same size while garbage flows. It times every step
-- with os.clock (CPU time) and prints the distribution of the step times:
-- the longest step is the longest pause the collector imposed on the loop.
-- MODE is "incremental", "generational" or "default" (the interpreter's own).
-- Every 1,000 steps it reads collectgarbage("count"): the number of times the
-- heap shrank (shrinks=) shows that collections did end inside the loop.
local LIVE = tonumber(arg and arg[1]) or 2000000
local STEPS = tonumber(arg and arg[2]) or 200000
local MODE = arg and arg[3] or "default"
if MODE ~= "default" then collectgarbage(MODE) end

local live = {}
for i = 1, LIVE do live[i] = {i} end

local clock = os.clock
local times = {}
for s = 1, STEPS do times[s] = 0 end  -- no growth inside the timed loop
local seed = 12345
local drops, last = 0, collectgarbage("count")
local start = clock()
local t0 = start
for s = 1, STEPS do
  if s % 1000 == 0 then  -- the heap shrank: a collection ended
    local c = collectgarbage("count")
    if c < last then drops = drops + 1 end
    last = c
  end
  for j = 1, 10 do
    local tmp = {s, j}
  end
  seed = (seed * 1103515245 + 12345) % 2147483648
  live[seed % LIVE + 1] = {s}
  local t = clock()
  times[s] = t - t0
  t0 = t
end
local total = clock() - start
table.sort(times)
local function q(p) return times[math.max(1, math.floor(STEPS * p))] * 1000 end
local over = 0
for i = 1, STEPS do if times[i] > 0.002 then over = over + 1 end end
print(string.format("mode=%s live=%d steps=%d total=%.3fs median=%.4fms p99=%.4fms p999=%.3fms max=%.3fms steps_over_2ms=%d shrinks=%d",
  MODE, LIVE, STEPS, total, q(0.5), q(0.99), q(0.999), times[STEPS] * 1000, over, drops))
