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
    // Saved in the middle of a collection cycle: marking, then sweeping.
    r#"
    collectgarbage("stop")
    collectgarbage("incremental", 200, 100, 6)
    L = {}
    for i = 1, 1500 do L[i] = {i, "s" .. i} end
    WV = setmetatable({L[1], {}}, {__mode = "v"})
    for i = 1, 20 do collectgarbage("step", 0) end
    "#,
    r#"
    collectgarbage("stop")
    collectgarbage("incremental", 200, 100, 6)
    L = {}
    for i = 1, 1500 do L[i] = {i, "s" .. i} end
    for i = 1, 1500 do local g = {i} end
    repeat local done = collectgarbage("step", 0) until done
    for i = 1, 1500 do local g = {i} end
    for i = 1, 170 do collectgarbage("step", 0) end
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

/// Host data attached to every base world (`State::set_host_data`): a
/// number and a Lua value, so that edits reach its bytes too.
#[derive(Clone)]
pub struct FuzzData {
    n: i64,
    v: luprex_vm::raw::Value,
}

impl luprex_vm::raw::HostData for FuzzData {
    fn name(&self) -> &'static str {
        "fuzz.data"
    }
    fn visit(&self, v: &mut luprex_vm::raw::HostVisitor<'_>) {
        v.u64(self.n as u64);
        v.value(self.v);
    }
    fn save(&self, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(&self.n.to_le_bytes());
        luprex_vm::raw::save_value(out, self.v);
        Ok(())
    }
    luprex_vm::host_data_snapshot_by_clone!();
}

/// The loader of [`FuzzData`].
pub fn fuzz_load_data(b: &[u8]) -> Option<Box<dyn luprex_vm::raw::HostData>> {
    let n = i64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    let mut rest = &b[8..];
    let v = luprex_vm::raw::load_value(&mut rest)?;
    rest.is_empty().then(|| Box::new(FuzzData { n, v }) as Box<dyn luprex_vm::raw::HostData>)
}

/// A fresh state as the fuzz target makes it (output discarded, the
/// [`FuzzData`] loader registered).
pub fn fuzz_fresh() -> luprex_vm::raw::State {
    let mut st = luprex_vm::raw::State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.set_stderr(Box::new(std::io::sink()));
    st.register_host_data_loader("fuzz.data", fuzz_load_data);
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
            let g = luprex_vm::raw::Value::Table(st.globals());
            st.set_host_data(FuzzData { n: 7, v: g }).expect("host data");
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
