//! Snapshot and rollback: the state after a rollback is indistinguishable
//! from the state at the snapshot, including what it allocates next.
//!
//! Each corpus entry is a setup phase A and a work phase B. The checks:
//! the state and heap hashes after a rollback equal those at the snapshot;
//! running B after a rollback gives exactly the hashes and output of the
//! first run of B, and of a run of A;B in a state that never took a
//! snapshot; this holds over repeated rollbacks, nested snapshots, releases
//! and across processes.

use luprex_vm::raw::Cloneable;
use luprex_vm::raw::ErrorKind;
use luprex_vm::raw::{Action, Error, State, Value};

include!("support/capture.rs");
include!("support/child.rs");

fn new_state() -> (State, Out) {
    captured(State::new())
}

fn run(st: &mut State, src: &str) {
    st.exec(src.as_bytes(), b"=corpus").unwrap_or_else(|e| panic!("{e}"));
    st.flush_stdout();
}

/// State hash, heap hash, after checking the heap's consistency (the
/// interner holds exactly the strings that are not loose, among others).
fn hashes(st: &State) -> (u128, u128) {
    st.check_heap().unwrap();
    assert!(st.heap_stats().interned <= st.heap_stats().strings, "interner out of step");
    (st.state_hash(), st.heap_hash())
}

/// A sort written in Lua (the vm crate has no table library).
const PRELUDE: &str = r#"
function qsort(t, lo, hi, lt)
  lo = lo or 1; hi = hi or #t; lt = lt or function(a, b) return a < b end
  if lo >= hi then return end
  local p, i = t[(lo + hi) // 2], lo
  local j = hi
  while i <= j do
    while lt(t[i], p) do i = i + 1 end
    while lt(p, t[j]) do j = j - 1 end
    if i <= j then t[i], t[j] = t[j], t[i]; i = i + 1; j = j - 1 end
  end
  qsort(t, lo, j, lt); qsort(t, i, hi, lt)
end
seed = 12345
function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n end
"#;

/// (name, phase A, phase B).
const CORPUS: &[(&str, &str, &str)] = &[
    (
        "alloc_mutate",
        r#"world = {}
           for i = 1, 3000 do world[i] = {id = i, x = i * 2, tag = "e" .. i, list = {i, i + 1}} end"#,
        r#"for i = 1, 3000, 7 do local e = world[i]; if e then e.x = e.x + 1; e.list[3] = "n" .. i end end
           for i = 1, 500 do world[#world + 1] = {id = -i} end
           for i = 1, 200 do world[i * 3] = nil end
           local s = 0 for i, e in pairs(world) do s = s + (e.x or 0) end
           print("sum", s, #world)"#,
    ),
    (
        "gc_finalizers_weak",
        r#"log = {}
           cache = setmetatable({}, {__mode = "v"})
           keys = setmetatable({}, {__mode = "k"})
           keep = {}
           for i = 1, 400 do
             local o = setmetatable({n = i}, {__gc = function(o) log[#log + 1] = o.n end})
             cache[i] = o; keys[o] = i
             if i % 3 == 0 then keep[#keep + 1] = o end
           end"#,
        r#"for i = 1, 300 do keep[i] = nil end
           collectgarbage(); collectgarbage()
           local n = 0 for _ in pairs(cache) do n = n + 1 end
           local m = 0 for _ in pairs(keys) do m = m + 1 end
           for i = 1, 2000 do local t = {i, tostring(i)} end
           collectgarbage("step")
           print("weak", n, m, #log, collectgarbage("count") > 0)"#,
    ),
    (
        "coroutines",
        r#"gen = coroutine.create(function(a)
             local acc = {}
             for i = 1, 1000 do acc[#acc + 1] = a + i; a = coroutine.yield(#acc) end
           end)
           coroutine.resume(gen, 1)
           co2 = coroutine.wrap(function() for i = 1, 100 do coroutine.yield(i) end end)"#,
        r#"local r = {}
           for i = 1, 50 do local ok, v = coroutine.resume(gen, i); r[#r + 1] = v end
           r[#r + 1] = co2() + co2()
           local fresh = coroutine.create(function() coroutine.yield(1); error("boom") end)
           coroutine.resume(fresh)
           local killed = coroutine.create(function() local t <close> = setmetatable({}, {__close = function() r[#r + 1] = "closed" end}); coroutine.yield() end)
           coroutine.resume(killed)
           coroutine.close(killed)
           r[#r + 1] = coroutine.status(fresh) .. coroutine.status(killed)
           print(r[1], r[50], r[51], r[52], r[53], coroutine.status(gen))"#,
    ),
    (
        "closures_upvalues",
        r#"function counter() local n = 0; return function() n = n + 1; return n end end
           c1 = counter()
           shared = {}
           for i = 1, 20 do local v = i; shared[i] = function(d) v = v + d; return v end end"#,
        r#"for i = 1, 100 do c1() end
           local c2 = counter(); c2(); c2()
           local t = 0
           for i = 1, 20 do t = t + shared[i](i) end
           local open = 5
           local f = function() open = open * 2; return open end
           f(); f()
           keepf = function() return open end
           print("closures", c1(), c2(), t, open, keepf())"#,
    ),
    (
        "strings",
        r#"parts = {}
           for i = 1, 200 do parts[i] = "p" .. i end"#,
        r#"local s = ""
           for i = 1, 200 do s = s .. parts[i] .. "," end
           local big = {}
           for i = 1, 2000 do big[i] = "k" .. (i * 7919 % 1000) .. "_" .. i end
           joined = s
           print("strings", #s, big[2000], #big)"#,
    ),
    (
        "sort_metatables",
        r#"vals = {}
           for i = 1, 3000 do vals[i] = rnd(100000) end
           V = {}
           V.__index = V
           V.__lt = function(a, b) return a.v < b.v end
           function V.new(v) return setmetatable({v = v}, V) end"#,
        r#"qsort(vals)
           local objs = {}
           for i = 1, 500 do objs[i] = V.new(rnd(1000)) end
           qsort(objs, nil, nil, function(a, b) return a < b end)
           setmetatable(vals, {__len = function() return 42 end})
           print("sort", vals[1], vals[3000], objs[1].v, objs[500].v, #vals)"#,
    ),
    (
        "deep_stack",
        r#"function depth(n) if n == 0 then return 0 end local a, b, c = n, n, n; return 1 + depth(n - 1) end"#,
        r#"local d = depth(15000)
           local t = {}
           for i = 1, 180 do t[i] = i end
           local function many(...) return select('#', ...) end
           print("deep", d, many(1, 2, 3), #t)"#,
    ),
    (
        "coroutine_stacks_and_gc",
        r#"function deep(n) if n == 0 then coroutine.yield(0) return 0 end return 1 + deep(n - 1) end
           cos = {}
           for i = 1, 4 do cos[i] = coroutine.create(function() while true do deep(300 * i) end end) end
           for i = 1, 4 do coroutine.resume(cos[i]) end
           main_co = coroutine.wrap(function() local r = deep(2000); collectgarbage(); return r end)
           main_co()"#,
        r#"for i = 1, 4, 2 do coroutine.resume(cos[i]) end
           cos[5] = coroutine.create(function() deep(700) end)
           coroutine.resume(cos[5])
           local function grow(n) if n == 0 then collectgarbage(); return 0 end return 1 + grow(n - 1) end
           grow(3000)
           collectgarbage()
           print("co-gc", collectgarbage("count") > 0)"#,
    ),
    (
        // Loose strings (long concatenations, vm `string.rs`): made, used
        // as keys (their twins registered), freed by a collection, after
        // the snapshot; a rollback takes back what the interner learned.
        "loose_strings",
        r#"pre = "ppppppppppppppppppppppppppppppppppppppppppppp"
           texts = {}
           for i = 1, 200 do texts[i] = pre .. i end
           byname = {}
           for i = 1, 200, 2 do byname[texts[i]] = i end"#,
        r#"for i = 1, 200, 3 do texts[i] = nil end
           collectgarbage()
           local n = 0
           for i = 1, 200 do if byname[pre .. i] then n = n + 1 end end
           for i = 201, 400 do byname[pre .. i] = i; texts[i] = pre .. i end
           local s = ""
           for i = 1, 300 do s = s .. i end
           byname[s] = "long"
           print("loose", n, byname[pre .. 300], byname[s] == "long", texts[2] == pre .. 2)"#,
    ),
];

/// Runs A then B with no snapshot: hashes and B's output.
fn plain(a: &str, b: &str) -> ((u128, u128), String) {
    let (mut st, out) = new_state();
    run(&mut st, PRELUDE);
    run(&mut st, a);
    out.take();
    run(&mut st, b);
    (hashes(&st), out.take())
}

/// Runs A, snapshots, then B / rollback three times; checks every claim
/// and returns the hashes after B.
fn replay(name: &str, a: &str, b: &str) -> (u128, u128) {
    let (h0, o0) = plain(a, b);
    let (mut st, out) = new_state();
    run(&mut st, PRELUDE);
    run(&mut st, a);
    let at_snap = hashes(&st);
    let layout = st.heap_stats().table_layout_digest;
    let s = st.snapshot().unwrap();
    assert_eq!(hashes(&st), at_snap, "{name}: taking a snapshot changed the state");
    for round in 0..3 {
        out.take();
        run(&mut st, b);
        assert_eq!(hashes(&st), h0, "{name}: round {round} differs from a run with no snapshot");
        assert_eq!(out.take(), o0, "{name}: round {round} output differs");
        st.rollback(s).unwrap();
        assert_eq!(hashes(&st), at_snap, "{name}: round {round}: rollback is not exact");
        assert_eq!(
            st.heap_stats().table_layout_digest,
            layout,
            "{name}: round {round}: table headers or store layout not restored"
        );
    }
    st.release(s).unwrap();
    assert_eq!(st.snapshot_depth(), 0);
    run(&mut st, b);
    assert_eq!(hashes(&st), h0, "{name}: after release");
    h0
}

#[test]
fn corpus_replays_exactly() {
    for (name, a, b) in CORPUS {
        replay(name, a, b);
    }
}

/// B is not a no-op: without the rollback, B run twice gives other hashes.
#[test]
fn corpus_phases_change_the_state() {
    for (name, a, b) in CORPUS {
        let (mut st, _out) = new_state();
        run(&mut st, PRELUDE);
        run(&mut st, a);
        let before = hashes(&st);
        run(&mut st, b);
        let once = hashes(&st);
        assert_ne!(before, once, "{name}");
        run(&mut st, b);
        assert_ne!(hashes(&st), once, "{name}");
    }
}

/// After a rollback that swapped pages back in, the dispatch loop reads
/// and writes tables right whichever of its instances runs: the fresh one
/// (a heap of few tables, whose body pointers the rollback all took again)
/// or the tested one (a heap of many, where tables whose header the
/// rollback did not put back hold pointers into the buffers swapped out).
/// Run twice, with a second rollback in between, so that writes go through
/// both kinds of pointer too.
#[test]
fn the_loop_reads_and_writes_right_after_a_rollback_in_small_and_big_heaps() {
    for n in [60, 6000] {
        let (mut st, out) = new_state();
        run(&mut st, &format!("T = {{}} for i = 1, {n} do T[i] = {{i, x = i}} end"));
        let s = st.snapshot().unwrap();
        for round in 0..2 {
            run(&mut st, "for i = 1, #T, 3 do T[i][1] = -1; T[i].x = -1 end");
            st.rollback(s).unwrap();
            run(
                &mut st,
                "local a, b = 0, 0
                 for i = 1, #T do a = a + T[i][1]; b = b + T[i].x; T[i][1] = T[i][1] + 1 end
                 local c = 0 for i = 1, #T do c = c + T[i][1] end
                 print(a, b, c)",
            );
            let sum = n * (n + 1) / 2;
            assert_eq!(
                out.take(),
                format!("{sum}\t{sum}\t{}\n", sum + n),
                "{n} tables, round {round}"
            );
            st.rollback(s).unwrap();
        }
    }
}

#[test]
fn nested_snapshots_are_savepoints() {
    for (name, a, b) in CORPUS {
        let (mut st, _out) = new_state();
        run(&mut st, PRELUDE);
        let h_start = hashes(&st);
        let s1 = st.snapshot().unwrap();
        run(&mut st, a);
        let h_a = hashes(&st);
        let s2 = st.snapshot().unwrap();
        run(&mut st, b);
        let h_ab = hashes(&st);
        let s3 = st.snapshot().unwrap();
        run(&mut st, b);
        // Roll back the innermost, then the middle one twice, then s1.
        st.rollback(s3).unwrap();
        assert_eq!(hashes(&st), h_ab, "{name}: s3");
        st.rollback(s2).unwrap();
        assert_eq!(hashes(&st), h_a, "{name}: s2");
        assert!(st.rollback(s3).is_err(), "{name}: s3 was discarded");
        run(&mut st, b);
        assert_eq!(hashes(&st), h_ab, "{name}: B after s2");
        st.rollback(s2).unwrap();
        assert_eq!(hashes(&st), h_a, "{name}: s2 again");
        // Release s2 with changes: they fold into s1.
        run(&mut st, b);
        let s4 = st.snapshot().unwrap();
        run(&mut st, b);
        st.release(s2).unwrap();
        assert!(st.rollback(s4).is_err(), "{name}: s4 released with s2");
        assert_eq!(st.snapshot_depth(), 1);
        run(&mut st, a);
        st.rollback(s1).unwrap();
        assert_eq!(hashes(&st), h_start, "{name}: s1 after folds");
        // What happens next is what would have happened with no snapshot.
        run(&mut st, a);
        assert_eq!(hashes(&st), h_a, "{name}: A after rollback to s1");
        st.release(s1).unwrap();
    }
}

#[test]
fn release_of_inner_keeps_state_and_outer_rolls_back() {
    let (a, b) = (CORPUS[0].1, CORPUS[0].2);
    let (mut st, _out) = new_state();
    run(&mut st, PRELUDE);
    run(&mut st, a);
    let h0 = hashes(&st);
    let s1 = st.snapshot().unwrap();
    run(&mut st, b);
    let s2 = st.snapshot().unwrap();
    run(&mut st, "collectgarbage(); world[1].x = 'changed'; world[4000] = {}");
    let h2 = hashes(&st);
    st.release(s2).unwrap();
    assert_eq!(hashes(&st), h2, "release changed the state");
    st.rollback(s1).unwrap();
    assert_eq!(hashes(&st), h0);
}

#[test]
fn stale_snapshots_are_refused() {
    let (mut st, _out) = new_state();
    let s1 = st.snapshot().unwrap();
    let s2 = st.snapshot().unwrap();
    st.rollback(s1).unwrap();
    let e = st.rollback(s2).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Snapshot);
    assert!(st.release(s2).is_err());
    // A new snapshot at the same level does not revive the old id.
    let s3 = st.snapshot().unwrap();
    assert_eq!(s3.level(), s2.level());
    assert!(st.rollback(s2).is_err());
    st.rollback(s3).unwrap();
    st.release(s1).unwrap();
    assert!(st.rollback(s1).is_err());
    assert!(st.rollback(s3).is_err());
    assert_eq!(st.snapshot_depth(), 0);
}

fn try_snapshot(st: &mut State) -> Result<Action, Error> {
    let refused = st.snapshot().is_err();
    st.push(Value::Bool(refused));
    Ok(Action::Return(1))
}

#[test]
fn refused_while_lua_runs() {
    let (mut st, out) = new_state();
    let f = st.register_native("try_snapshot", try_snapshot);
    st.set_global("try_snapshot", f);
    run(
        &mut st,
        r#"print(try_snapshot())
           local co = coroutine.wrap(function() print(try_snapshot()) end)
           co()
           setmetatable({}, {__gc = function() print(try_snapshot()) end})
           collectgarbage()"#,
    );
    assert_eq!(out.take(), "true\ntrue\ntrue\n");
    assert_eq!(st.snapshot_depth(), 0);
    assert!(st.snapshot().is_ok());
}

#[test]
fn opaque_payload_blocks_rollback_cloneable_is_restored() {
    let (mut st, _out) = new_state();
    let opaque = st.new_userdata_opaque(5i64, None);
    let cloneable = st.new_userdata(Cloneable::boxed(7i64), None);
    st.set_global("o", opaque);
    st.set_global("c", cloneable);
    let h0 = hashes(&st);
    let s = st.snapshot().unwrap();
    *st.userdata_mut::<i64>(cloneable).unwrap() = 8;
    run(&mut st, "x = {1, 2, 3}");
    st.rollback(s).unwrap();
    assert_eq!(*st.userdata_mut::<i64>(cloneable).unwrap(), 7);
    assert_eq!(hashes(&st), h0);
    // Mutating the opaque payload poisons the snapshot.
    *st.userdata_mut::<i64>(opaque).unwrap() = 6;
    let h1 = hashes(&st);
    let e = st.rollback(s).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Snapshot);
    assert!(e.to_string().contains("i64"), "{e}");
    assert_eq!(hashes(&st), h1, "a failed rollback changed the state");
    assert_eq!(*st.userdata_mut::<i64>(opaque).unwrap(), 6);
    // A newer snapshot is not poisoned, and the old one can be released.
    let s2 = st.snapshot().unwrap();
    run(&mut st, "y = {}");
    st.rollback(s2).unwrap();
    assert_eq!(hashes(&st), h1);
    st.release(s).unwrap();
    // An opaque userdata that is only freed (not changed) is restored.
    run(&mut st, "o = nil");
    let h2 = hashes(&st);
    let s3 = st.snapshot().unwrap();
    run(&mut st, "collectgarbage(); collectgarbage()");
    assert_ne!(hashes(&st), h2);
    st.rollback(s3).unwrap();
    assert_eq!(hashes(&st), h2);
}

#[test]
fn pins_taken_after_a_snapshot_are_discarded() {
    let same = |a: Value, b: Value| match (a, b) {
        (Value::Table(x), Value::Table(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Nil, Value::Nil) => true,
        _ => false,
    };
    let (mut st, _out) = new_state();
    let t = st.new_table();
    let p0 = st.pin(t);
    let p_freed = st.pin(Value::Int(1));
    st.unpin(p_freed);
    let h0 = hashes(&st);
    let s = st.snapshot().unwrap();
    let u = st.new_table();
    let p1 = st.pin(u);
    let p2 = st.pin(Value::Int(3));
    run(&mut st, "collectgarbage()");
    st.rollback(s).unwrap();
    assert_eq!(hashes(&st), h0);
    assert!(same(st.pinned(p0), t));
    assert!(st.pinned(p1).is_nil() && st.pinned(p2).is_nil());
    // Discarded pins stay dead when their slots are reused.
    let p3 = st.pin(Value::Int(7));
    let p4 = st.pin(Value::Int(8));
    assert!(p3.0 == p1.0 || p3.0 == p2.0, "slot reuse expected");
    assert!(st.pinned(p1).is_nil() && st.pinned(p2).is_nil());
    st.unpin(p1);
    st.unpin(p2);
    assert!(same(st.pinned(p3), Value::Int(7)) && same(st.pinned(p4), Value::Int(8)));
    st.unpin(p3);
    st.unpin(p4);
    st.rollback(s).unwrap();
    assert_eq!(hashes(&st), h0);
    assert!(st.pinned(p3).is_nil() && st.pinned(p4).is_nil());
    // A pin released by the host after the snapshot stays released (the
    // table is otherwise the snapshot's: t's slot joins the free list).
    st.unpin(p0);
    st.rollback(s).unwrap();
    assert!(st.pinned(p0).is_nil());
    assert_ne!(hashes(&st), h0);
    let p5 = st.pin(t);
    assert_eq!(p5.0, p0.0, "the released slot is free again");
    assert!(same(st.pinned(p5), t) && st.pinned(p0).is_nil());
}

#[test]
fn globals_registry_and_type_metatables_are_restored() {
    let (mut st, out) = new_state();
    run(&mut st, "g = 1; warn('@on')");
    let h0 = hashes(&st);
    let s = st.snapshot().unwrap();
    run(&mut st, "g = 2; _G.new = {}; debug = nil; warn('@off')");
    let mt = st.new_table();
    let Value::Table(mt) = mt else { panic!("not a table") };
    st.set_type_metatable(luprex_vm::raw::Type::Number, Some(mt));
    st.rollback(s).unwrap();
    assert_eq!(hashes(&st), h0);
    run(&mut st, "print(g, new)");
    assert_eq!(out.take(), "1\tnil\n");
}

// ----- cross-process -------------------------------------------------------

fn corpus_lines() -> Vec<String> {
    CORPUS
        .iter()
        .map(|(name, a, b)| {
            let (s, h) = replay(name, a, b);
            format!("SNAP {name} {s:032x} {h:032x}")
        })
        .collect()
}

#[test]
fn cross_process_replays_agree() {
    let here = corpus_lines();
    let Some(child) =
        child_lines("cross_process_replays_agree", "LUPREX_SNAP_CHILD", "SNAP ", &here)
    else {
        return;
    };
    assert_eq!(child, here);
}
