// Shared by `fuzz/fuzz_targets/snapshot_load.rs` and `vm/tests/persist.rs`
// (included with `include!`): the worlds whose snapshots are the bases of
// the fuzzer's edits, the code run after a successful load, and the edit
// format, so that the regression test replays the fuzzer's inputs byte for
// byte.

/// Worlds whose snapshots are the bases of edits (base and coroutine
/// libraries only, so the receiving state has the same natives).
pub const FUZZ_WORLDS: &[&str] = &[
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
pub const FUZZ_RUN: &str = r#"
    local out = {}
    for k, v in pairs(_G) do
      if type(v) == "function" then out[#out + 1] = pcall(v, 1, 2) end
      if type(v) == "thread" then out[#out + 1] = coroutine.resume(v, 3) end
      if type(v) == "table" then for k2, v2 in pairs(v) do out[#out + 1] = k2 end end
    end
    collectgarbage()
    return #out
"#;

/// A fresh state as the fuzz target makes it (output discarded).
pub fn fuzz_fresh() -> luprex_vm::raw::State {
    let mut st = luprex_vm::raw::State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.set_stderr(Box::new(std::io::sink()));
    st
}

/// The snapshots of [`FUZZ_WORLDS`].
pub fn fuzz_bases() -> Vec<Vec<u8>> {
    FUZZ_WORLDS
        .iter()
        .map(|src| {
            let mut st = fuzz_fresh();
            let f = st.load(src.as_bytes(), b"=world").expect("world compiles");
            st.call(f, &[]).expect("world runs");
            st.save_state().expect("world saves")
        })
        .collect()
}

/// The snapshot bytes an edit input stands for: the first byte picks a
/// base, each 4-byte group `(offset: 3 bytes LE, xor: 1 byte)` flips bits,
/// a leftover group of 1 to 3 bytes truncates at an offset.
pub fn fuzz_edit(bases: &[Vec<u8>], data: &[u8]) -> Vec<u8> {
    let Some((&pick, edits)) = data.split_first() else { return Vec::new() };
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
