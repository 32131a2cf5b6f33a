// The collector tests' programs (included with `include!` by
// `gc_incremental.rs` and `gc_generational.rs`, after `capture.rs`), and
// their helpers.

fn new_state() -> (State, Out) {
    captured(State::new())
}

fn run(st: &mut State, src: &str) {
    st.exec(src.as_bytes(), b"=gc").unwrap_or_else(|e| panic!("{e}"));
    st.flush_stdout();
}

/// Builds a heap of `n` old objects with tiny collector steps.
const SETUP: &str = r#"
collectgarbage("incremental", 200, 10, 10)
ROUNDS = 6000
seed = 7
function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return (seed // 65536) % n end
old = {}
for i = 1, 3000 do old[i] = {v = i, s = "s" .. i, list = {i}} end
named = {}
app = {}
up = nil
function setup(x) up = x end
function getup() return up end
co = coroutine.create(function(t)
  local mine = t
  while true do
    local n = coroutine.yield(mine.v + mine.list[1])
    mine = {v = n, list = {n}}
  end
end)
coroutine.resume(co, {v = 0, list = {0}})
weakv = setmetatable({}, {__mode = "v"})
ephem = setmetatable({}, {__mode = "k"})
finalized = 0
"#;

/// Rewrites the heap while cycles run; prints a checksum that does not
/// depend on when collections happen.
const WORK: &str = r#"
local sum = 0
for round = 1, ROUNDS do
  local i = rnd(3000) + 1
  old[i] = {v = round, s = "r" .. round, list = {round}}    -- fast path into a traversed table
  old[i].extra = {round}                                   -- a new key: the general path
  named["k" .. rnd(400)] = {v = round, list = {round}}     -- string keys, inserted and updated
  app[#app + 1] = {v = -round}; app[#app] = nil            -- appends
  setup({round})                                           -- an upvalue write
  local _, back = coroutine.resume(co, round)              -- a suspended thread's stack
  assert(back == 2 * round, "coroutine")
  weakv[rnd(50)] = old[i]
  ephem[old[i]] = {round}
  if rnd(20) == 0 then
    setmetatable({}, {__gc = function() finalized = finalized + 1 end})
  end
  for j = 1, 4 do local g = {j, {j}, "g" .. j} end         -- garbage
  assert(getup()[1] == round, "upvalue")
  local t = old[i]
  assert(t.v == round and t.list[1] == round and t.extra[1] == round and t.s == "r" .. round)
end
for i = 1, 3000 do
  local t = old[i]
  assert(t.list[1] == t.v and (t.extra == nil or t.extra[1] == t.v), "old " .. i)
  sum = sum + t.v + #t.s
end
for k, t in pairs(named) do sum = sum + t.v + #k end
print(sum)
"#;
