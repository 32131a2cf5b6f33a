//! Fuzz target: `State::load_state` must never panic, whatever the bytes,
//! and a state it accepts must run and hash without panicking.
//!
//! The input is either a raw snapshot (it starts with the signature
//! `LPRXSNAP`; the corpus seeds are real snapshots) or, to keep the
//! fuzzer close to the format, an edit of one of a few real snapshots
//! built at start-up: the first byte picks the snapshot, then each 4-byte
//! group `(offset: 3 bytes, xor: 1 byte)` flips bits at an offset; a
//! leftover group of 1 to 3 bytes truncates the snapshot at an offset.
//! After a successful load, a bounded amount of code runs (instruction and
//! memory limits set after the load, since loading restores the budget).
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_vm::State;
use std::sync::OnceLock;

/// Worlds whose snapshots are the bases of edits (base and coroutine
/// libraries only, so the receiving state has the same natives).
const WORLDS: &[&str] = &[
    "X = 1",
    r#"
    local n = 0
    INC = function() n = n + 1 return n end
    T = {1, 2, 3, a = "x", b = {}, [2.5] = true}
    T.a = nil; T.c = 3; T.a = 4
    setmetatable(T, {__index = function(t, k) return k end})
    "#,
    r#"
    CO = coroutine.create(function(a)
      local ok, v = pcall(function()
        local b = coroutine.yield(a + 1)
        error("boom " .. tostring(b))
      end)
      local v = "open"
      PEEK = function() return v end
      coroutine.yield(ok, v)
      return "done"
    end)
    coroutine.resume(CO, 1)
    W = coroutine.wrap(function() for i = 1, 5 do coroutine.yield(i) end end)
    W()
    M = setmetatable({}, {__index = function(t, k) return coroutine.yield(k) end})
    MC = coroutine.create(function() return M.x end)
    coroutine.resume(MC)
    D = coroutine.create(function() error({}) end)
    coroutine.resume(D)
    G = setmetatable({}, {__gc = function() end})
    WK = setmetatable({}, {__mode = "k"})
    WK[{}] = 1
    for i = 1, 100 do local g = {i} end
    collectgarbage()
    "#,
];

/// Code run after a successful load.
const RUN: &str = r#"
    local out = {}
    for k, v in pairs(_G) do
      if type(v) == "function" then out[#out + 1] = pcall(v, 1, 2) end
      if type(v) == "thread" then out[#out + 1] = coroutine.resume(v, 3) end
      if type(v) == "table" then for k2, v2 in pairs(v) do out[#out + 1] = k2 end end
    end
    collectgarbage()
    return #out
"#;

fn fresh() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.set_stderr(Box::new(std::io::sink()));
    st
}

fn bases() -> &'static [Vec<u8>] {
    static BASES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BASES.get_or_init(|| {
        WORLDS
            .iter()
            .map(|src| {
                let mut st = fresh();
                let f = st.load(src.as_bytes(), b"=world").expect("world compiles");
                st.call_value(f, &[]).expect("world runs");
                st.save_state().expect("world saves")
            })
            .collect()
    })
}

/// The snapshot bytes an input stands for.
fn snapshot(data: &[u8]) -> Vec<u8> {
    if data.starts_with(b"LPRXSNAP") {
        return data.to_vec();
    }
    let Some((&pick, edits)) = data.split_first() else { return Vec::new() };
    let bases = bases();
    let mut s = bases[pick as usize % bases.len()].clone();
    let mut groups = edits.chunks_exact(4);
    for g in &mut groups {
        let off = (usize::from(g[0]) | usize::from(g[1]) << 8 | usize::from(g[2]) << 16) % s.len();
        s[off] ^= g[3];
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        let off = rest.iter().fold(0usize, |a, &b| a << 8 | usize::from(b));
        s.truncate(off % (s.len() + 1));
    }
    s
}

fuzz_target!(|data: &[u8]| {
    let bytes = snapshot(data);
    let mut st = fresh();
    if st.load_state(&bytes).is_err() {
        return;
    }
    st.set_instruction_limit(Some(20_000));
    st.set_memory_limit(Some(32 << 20));
    if let Ok(f) = st.load(RUN.as_bytes(), b"=run") {
        let _ = st.pcall_value(f, &[]);
    }
    let _ = (st.state_hash(), st.heap_hash());
});
