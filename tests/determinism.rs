//! Determinism across snapshot and rollback, with the sandbox standard
//! library (so `math.random` with a seed, `table.sort`, `string.format`
//! and friends are covered).
//!
//! Each program is a setup phase A and a work phase B. Running A, taking a
//! snapshot, running B, rolling back and running B again must give the
//! same output and exactly the same state and heap hashes as running A;B
//! in a state that never took a snapshot: what the VM allocates, collects
//! and draws from the random generator after a rollback is what it would
//! have done anyway. The same holds with nested snapshots, and a child
//! process computes the same hashes.

use luprex_vm::raw::State;

include!("../vm/tests/support/capture.rs");
include!("../vm/tests/support/child.rs");

/// (name, phase A, phase B).
const CORPUS: &[(&str, &str, &str)] = &[
    (
        "random_world",
        r#"math.randomseed(42)
           world = {}
           for i = 1, 2000 do world[i] = {hp = math.random(100), pos = {math.random(), math.random()}} end"#,
        r#"local hits = 0
           for i = 1, 5000 do
             local e = world[math.random(#world)]
             e.hp = e.hp - math.random(10)
             if e.hp <= 0 then e.hp = 100; hits = hits + 1 end
           end
           print("random", hits, math.random(1 << 30), string.format("%.6f", math.random()))"#,
    ),
    (
        "coroutines",
        r#"producer = coroutine.wrap(function()
             local i = 0
             while true do i = i + 1; coroutine.yield(string.rep("x", i % 7) .. i) end
           end)"#,
        r#"local got = {}
           for i = 1, 300 do got[#got + 1] = producer() end
           local cos = {}
           for i = 1, 50 do
             cos[i] = coroutine.create(function(a) local b = coroutine.yield(a * 2); return a + b end)
             coroutine.resume(cos[i], i)
           end
           local s = 0
           for i = 1, 50, 2 do local _, v = coroutine.resume(cos[i], 1); s = s + v end
           print("co", got[300], s, coroutine.status(cos[1]), coroutine.status(cos[2]))"#,
    ),
    (
        "closures",
        r#"function make(n) local c = n; return function(d) c = c + d; return c end, function() return c end end
           adders = {}
           for i = 1, 100 do adders[i] = {make(i)} end"#,
        r#"local t = 0
           for round = 1, 20 do for i = 1, 100 do t = t + adders[i][1](round) end end
           local inc, get = make(0)
           for i = 1, 10 do inc(i) end
           print("closures", t, get(), adders[50][2]())"#,
    ),
    (
        "weak_and_gc",
        r#"cache = setmetatable({}, {__mode = "k"})
           vals = setmetatable({}, {__mode = "v"})
           fin = {}
           strong = {}
           for i = 1, 500 do
             local k = {i}
             cache[k] = i
             vals[i] = k
             setmetatable(k, {__gc = function(o) fin[#fin + 1] = o[1] end})
             if i % 5 == 0 then strong[#strong + 1] = k end
           end"#,
        r#"for i = 1, #strong, 2 do strong[i] = false end
           collectgarbage(); collectgarbage()
           local n, m = 0, 0
           for _ in pairs(cache) do n = n + 1 end
           for _ in pairs(vals) do m = m + 1 end
           table.sort(fin)
           print("weak", n, m, #fin, fin[1], fin[#fin])"#,
    ),
    (
        "gc_churn",
        r#"collectgarbage("generational")
           survivors = {}"#,
        r#"for i = 1, 60000 do
             local t = {i, i * 2, name = "n" .. (i % 100)}
             if i % 1000 == 0 then survivors[#survivors + 1] = t end
           end
           print("churn", #survivors, collectgarbage("count") > 0, survivors[#survivors][2])"#,
    ),
    (
        "strings",
        r#"words = {}
           for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do words[#words + 1] = w end"#,
        r#"local parts = {}
           for i = 1, 3000 do
             parts[#parts + 1] = string.format("%s-%04d-%x", words[i % #words + 1], i, i * 31)
           end
           local s = table.concat(parts, ",")
           local up = s:upper():sub(1, 40)
           local n = select(2, s:gsub("o", "0"))
           print("strings", #s, up, n, s:find("fox%-0%d+"))"#,
    ),
    (
        "sorting",
        r#"math.randomseed(7)
           recs = {}
           for i = 1, 3000 do recs[i] = {key = math.random(1000), id = i} end"#,
        r#"table.sort(recs, function(a, b) if a.key ~= b.key then return a.key < b.key end return a.id < b.id end)
           local nums = {}
           for i = 1, 2000 do nums[i] = math.random(-1000, 1000) end
           table.sort(nums)
           for i = 1, 20 do table.insert(recs, math.random(#recs), {key = -i, id = -i}) end
           print("sort", recs[1].key, recs[3000].id, nums[1], nums[2000], #recs)"#,
    ),
];

fn new_state() -> (State, Out) {
    let mut st = State::new();
    luprex_stdlib::open_sandbox(&mut st).expect("stdlib");
    captured(st)
}

fn run(st: &mut State, src: &str) {
    st.exec(src.as_bytes(), b"=determinism").unwrap_or_else(|e| panic!("{e}"));
    st.flush_stdout();
}

fn hashes(st: &State) -> (u128, u128) {
    st.check_heap().unwrap();
    (st.state_hash(), st.heap_hash())
}

/// A;B with no snapshot: hashes and B's output.
fn plain(a: &str, b: &str) -> ((u128, u128), String) {
    let (mut st, out) = new_state();
    run(&mut st, a);
    out.take();
    run(&mut st, b);
    (hashes(&st), out.take())
}

/// Checks one program; returns the hashes after A;B.
fn check(name: &str, a: &str, b: &str) -> (u128, u128) {
    let (h0, o0) = plain(a, b);
    let (mut st, out) = new_state();
    run(&mut st, a);
    let at_a = hashes(&st);
    let s = st.snapshot().unwrap();
    for round in 0..3 {
        out.take();
        run(&mut st, b);
        assert_eq!(out.take(), o0, "{name}: output of round {round}");
        assert_eq!(hashes(&st), h0, "{name}: round {round} differs from the plain run");
        st.rollback(s).unwrap();
        assert_eq!(hashes(&st), at_a, "{name}: rollback {round} not exact");
    }
    // Nested: B, inner snapshot, B twice with a rollback between.
    run(&mut st, b);
    let after_b = hashes(&st);
    let inner = st.snapshot().unwrap();
    run(&mut st, b);
    let after_bb = hashes(&st);
    st.rollback(inner).unwrap();
    assert_eq!(hashes(&st), after_b, "{name}: inner rollback");
    run(&mut st, b);
    assert_eq!(hashes(&st), after_bb, "{name}: B after inner rollback");
    st.release(inner).unwrap();
    st.rollback(s).unwrap();
    assert_eq!(hashes(&st), at_a, "{name}: outer rollback after release");
    out.take();
    run(&mut st, b);
    assert_eq!(out.take(), o0, "{name}: output after nested rollbacks");
    assert_eq!(hashes(&st), h0, "{name}: final");
    st.release(s).unwrap();
    h0
}

#[test]
fn corpus_replays_after_rollback() {
    for (name, a, b) in CORPUS {
        check(name, a, b);
    }
}

#[test]
fn phases_change_the_state() {
    for (name, a, b) in CORPUS {
        let (mut st, _out) = new_state();
        run(&mut st, a);
        let h = hashes(&st);
        run(&mut st, b);
        assert_ne!(hashes(&st), h, "{name}: B changes nothing, the test would prove nothing");
    }
}

#[test]
fn cross_process_hashes_agree() {
    let here: Vec<String> = CORPUS
        .iter()
        .map(|(name, a, b)| {
            let (s, h) = check(name, a, b);
            format!("DET {name} {s:032x} {h:032x}")
        })
        .collect();
    let Some(child) = child_lines("cross_process_hashes_agree", "LUPREX_DET_CHILD", "DET ", &here)
    else {
        return;
    };
    assert_eq!(child, here);
}
