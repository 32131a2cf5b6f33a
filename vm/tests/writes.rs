//! The write log (`vm/src/writes.rs`): `State::tables_written_since`
//! reports every table written since a mark by every write path, and only
//! those; snapshots and rollbacks restore what a mark reports; marks that
//! cannot answer say so. The random test with the `table` library is the
//! root package's `tests/writes_stdlib.rs`.

use luprex_vm::raw::WriteSet;

include!("support/write_program.rs");
include!("support/child.rs");

fn state() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st
}

fn run(st: &mut State, src: &str) {
    st.exec(src.as_bytes(), b"=writes").unwrap_or_else(|e| panic!("{e}"));
}

/// The handles of globals `names`, which must be tables.
fn globals(st: &mut State, names: &[&str]) -> Vec<TableRef> {
    names.iter().map(|n| global_table(st, n)).collect()
}

fn known(st: &State, m: &WriteMark) -> WriteSet {
    match st.tables_written_since(m) {
        Written::Known(s) => s,
        Written::Unknown => panic!("mark cannot answer"),
    }
}

/// The globals among `names` reported as written since `m`.
fn written_globals(st: &mut State, m: &WriteMark, names: &[&str]) -> Vec<String> {
    let set = known(st, m);
    let hs = globals(st, names);
    names
        .iter()
        .zip(hs)
        .filter(|(_, h)| set.tables.contains(h))
        .map(|(n, _)| n.to_string())
        .collect()
}

const NAMES: &[&str] = &["A", "B", "C", "D", "E", "P", "MT", "BASE", "SINK"];

fn setup() -> State {
    let mut st = state();
    run(
        &mut st,
        r#"
        A = {1, 2, 3}
        B = {x = 1, y = 2}
        C = {}
        D = {10, 20}
        E = {}
        BASE = {dflt = 1}
        SINK = {}
        MT = {__index = BASE, __newindex = SINK}
        P = setmetatable({}, MT)
        function touch_all() A[1] = 1 B.x = 1 C.z = 1 D[3] = 30 E[1] = 1 end
        "#,
    );
    st
}

#[test]
fn every_write_path_is_seen() {
    let cases: &[(&str, &[&str])] = &[
        ("A[2] = 5", &["A"]),                        // array slot fast path
        ("A[4] = 4", &["A"]),                        // append fast path
        ("B.x = 7", &["B"]),                         // existing string key
        ("B.new = 1", &["B"]),                       // new string key
        ("local k = 'y' B[k] = nil", &["B"]),        // deletion via SETTABLE
        ("C[1.5] = true", &["C"]),                   // hash insert
        ("rawset(D, 1, 'r')", &["D"]),               // rawset
        ("setmetatable(E, {})", &["E"]),             // setmetatable
        ("setmetatable(P, nil)", &["P"]),            // clearing a metatable
        ("P.q = 1", &["SINK"]),                      // __newindex to a table
        ("P.dflt2 = P.dflt", &["SINK"]),             // __index read, __newindex
        ("MT.__index = nil", &["MT"]),               // metatable contents
        ("C.x = 1 C.x = nil C.x = 2", &["C"]),       // delete and re-insert
        ("A[1] = A[1]", &["A"]),                     // same value (counts)
        ("touch_all()", &["A", "B", "C", "D", "E"]), // from a function
        ("local t = {A, B} t[3] = C", &[]),          // new tables only
        ("local s = 0 for k, v in pairs(A) do s = s + v end", &[]), // reads
        ("local _ = P.nothing, P.dflt, #A, B.x, rawget(C, 1)", &[]),
    ];
    for (src, expect) in cases {
        let mut st = setup();
        let m = st.write_mark();
        run(&mut st, src);
        assert_eq!(written_globals(&mut st, &m, NAMES), *expect, "{src}");
    }
}

#[test]
fn created_tables_count_and_freed_ones_are_listed() {
    let mut st = setup();
    let m = st.write_mark();
    run(&mut st, "N = {} TMP = {1}");
    let n = global_table(&mut st, "N");
    let tmp = global_table(&mut st, "TMP");
    let set = known(&st, &m);
    assert!(set.tables.contains(&n) && set.tables.contains(&tmp));
    // The globals table was written too (two new globals).
    run(&mut st, "TMP = nil collectgarbage()");
    let set = known(&st, &m);
    assert!(set.tables.contains(&n));
    assert!(!set.tables.contains(&tmp));
    assert_eq!(set.freed, vec![tmp.index()]);
    // A table that existed before the mark and is freed is listed too.
    let a = global_table(&mut st, "A");
    let m2 = st.write_mark();
    run(&mut st, "A = nil collectgarbage()");
    assert_eq!(known(&st, &m2).freed, vec![a.index()]);
}

#[test]
fn weak_entries_cleared_by_the_collector_count() {
    let mut st = state();
    run(&mut st, "WK = setmetatable({}, {__mode = 'k'}) WK[{}] = 1 OTHER = {}");
    let m = st.write_mark();
    assert!(known(&st, &m).tables.is_empty());
    st.collect_garbage();
    let wk = global_table(&mut st, "WK");
    let other = global_table(&mut st, "OTHER");
    let set = known(&st, &m);
    assert!(set.tables.contains(&wk));
    assert!(!set.tables.contains(&other));
    assert_eq!(set.freed.len(), 1, "the dead key");
}

#[test]
fn host_writes_count() {
    let mut st = setup();
    let [a, b, c, d] = globals(&mut st, &["A", "B", "C", "D"])[..] else { unreachable!() };
    let m = st.write_mark();
    st.raw_set_int(a, 9, Value::Int(1));
    let k = st.intern(b"w");
    st.raw_set_str(b, k, Value::Nil);
    st.try_table_set(Value::Table(c), Value::Bool(true), Value::Int(1)).unwrap();
    st.set_any_metatable(Value::Table(d), Some(a));
    let set = known(&st, &m);
    assert_eq!(set.tables, {
        let mut v = vec![a, b, c, d];
        v.sort_by_key(|t| t.index());
        v
    });
    // The array stores of the embedding API (`math.random` keeps its state
    // with `set_ints_in_array`), of plain values and of objects.
    let m = st.write_mark();
    assert!(st.set_int_in_array(d, 1, Value::Int(5)));
    assert!(st.set_ints_in_array(a, 1, &[Value::Int(7), Value::Int(8)]));
    assert_eq!(known(&st, &m).tables, {
        let mut v = vec![a, d];
        v.sort_by_key(|t| t.index());
        v
    });
    let m = st.write_mark();
    assert!(st.set_ints_in_array(d, 1, &[Value::Table(c), Value::Int(1)]));
    assert_eq!(known(&st, &m).tables, vec![d]);
    // A move of array slots (`table.insert`/`remove` at a position): a
    // write of its table; declined (nothing written) past the array part
    // or on a table with a metatable.
    let m = st.write_mark();
    assert!(st.move_in_array(a, 2, 1, 2));
    assert!(!st.move_in_array(b, 1, 2, 1));
    assert!(!st.move_in_array(d, 1, 2, 1), "d has a metatable");
    assert!(!st.move_in_array(a, 1, 2, 1000));
    assert_eq!(known(&st, &m).tables, vec![a]);
}

/// A move of array slots is journaled: a rollback puts the slots back
/// (the state hash as at the snapshot), across pages of the store.
#[test]
fn a_move_of_array_slots_is_rolled_back() {
    let mut st = state();
    run(&mut st, "T = {} for i = 1, 5000 do T[i] = i end");
    let t = global_table(&mut st, "T");
    let hash = st.state_hash();
    let s = st.snapshot().unwrap();
    assert!(st.move_in_array(t, 2, 1, 4999));
    assert!(st.move_in_array(t, 1, 3001, 1000));
    run(&mut st, "assert(T[1] == 2 and T[4999] == 5000 and T[3001] == 2 and T[4000] == 1001)");
    st.rollback(s).unwrap();
    assert_eq!(st.state_hash(), hash);
    run(&mut st, "for i = 1, 5000 do assert(T[i] == i) end");
}

#[test]
fn marks_nest_and_coexist() {
    let mut st = setup();
    let m1 = st.write_mark();
    run(&mut st, "A[1] = 0");
    let m2 = st.write_mark();
    run(&mut st, "B.x = 0");
    let m3 = st.write_mark();
    assert_eq!(written_globals(&mut st, &m1, NAMES), ["A", "B"]);
    assert_eq!(written_globals(&mut st, &m2, NAMES), ["B"]);
    assert!(known(&st, &m3).tables.is_empty());
    run(&mut st, "A[1] = 1");
    assert_eq!(written_globals(&mut st, &m2, NAMES), ["A", "B"]);
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["A"]);
}

#[test]
fn rollback_restores_what_older_marks_report() {
    let mut st = setup();
    let m = st.write_mark();
    run(&mut st, "A[1] = 0");
    let s1 = st.snapshot().unwrap();
    let inner1 = st.write_mark();
    run(&mut st, "B.x = 0");
    let s2 = st.snapshot().unwrap();
    run(&mut st, "C.x = 0 N = {}");
    let inner2 = st.write_mark();
    run(&mut st, "D[1] = 0");
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A", "B", "C", "D"]);
    assert_eq!(written_globals(&mut st, &inner2, NAMES), ["D"]);

    st.rollback(s2).unwrap();
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A", "B"]);
    assert_eq!(written_globals(&mut st, &inner1, NAMES), ["B"]);
    assert_eq!(st.tables_written_since(&inner2), Written::Unknown);
    // Writes after the rollback are seen again, and rolled back again.
    run(&mut st, "E[1] = 0");
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A", "B", "E"]);
    st.rollback(s2).unwrap();
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A", "B"]);

    st.rollback(s1).unwrap();
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A"]);
    assert_eq!(st.tables_written_since(&inner1), Written::Unknown);
    assert_eq!(st.tables_written_since(&inner2), Written::Unknown);

    // A release keeps the current stamps.
    run(&mut st, "C.y = 1");
    let inner3 = st.write_mark();
    run(&mut st, "D.y = 1");
    st.release(s1).unwrap();
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A", "C", "D"]);
    assert_eq!(written_globals(&mut st, &inner3, NAMES), ["D"]);
}

#[test]
fn rollback_over_a_collection_restores_freed_and_created() {
    let mut st = setup();
    run(&mut st, "GONE = {}");
    let m = st.write_mark();
    let s = st.snapshot().unwrap();
    let before = known(&st, &m);
    assert!(before.tables.is_empty() && before.freed.is_empty());
    run(&mut st, "GONE = nil collectgarbage() NEW1, NEW2 = {}, {}");
    assert!(!known(&st, &m).freed.is_empty() || !known(&st, &m).tables.is_empty());
    st.rollback(s).unwrap();
    assert_eq!(known(&st, &m), before);
}

#[test]
fn mark_taken_inside_a_snapshot_before_tracking_started() {
    let mut st = setup();
    assert!(!st.write_tracking());
    let s = st.snapshot().unwrap();
    let m = st.write_mark();
    assert!(st.write_tracking());
    run(&mut st, "A[1] = 0");
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A"]);
    st.rollback(s).unwrap();
    assert_eq!(st.tables_written_since(&m), Written::Unknown);
    let m2 = st.write_mark();
    run(&mut st, "B.x = 0");
    assert_eq!(written_globals(&mut st, &m2, NAMES), ["B"]);
    st.rollback(s).unwrap();
    assert_eq!(st.tables_written_since(&m2), Written::Unknown);
    let m3 = st.write_mark();
    st.release(s).unwrap();
    run(&mut st, "C.x = 0");
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["C"]);
}

#[test]
fn a_predict_loop_without_marks_keeps_the_mark_valid() {
    let mut st = setup();
    let m = st.write_mark();
    run(&mut st, "A[1] = 0");
    for _ in 0..100 {
        let s = st.snapshot().unwrap();
        run(&mut st, "B.x = 0 C[1] = {}");
        st.rollback(s).unwrap();
        st.release(s).unwrap();
    }
    assert_eq!(written_globals(&mut st, &m, NAMES), ["A"]);
}

#[test]
fn foreign_loaded_and_ended_marks_cannot_answer() {
    let mut st = setup();
    let mut other = setup();
    let m = st.write_mark();
    let mo = other.write_mark();
    assert_eq!(st.tables_written_since(&mo), Written::Unknown);
    assert_eq!(other.tables_written_since(&m), Written::Unknown);
    // A loaded state starts with no mark and no tracking.
    let bytes = st.save_state().unwrap();
    st.load_state(&bytes).unwrap();
    assert_eq!(st.tables_written_since(&m), Written::Unknown);
    assert!(!st.write_tracking());
    // Ending tracking kills every mark so far; a new mark starts it again.
    let m2 = st.write_mark();
    st.end_write_tracking();
    assert!(!st.write_tracking());
    assert_eq!(st.tables_written_since(&m2), Written::Unknown);
    let m3 = st.write_mark();
    run(&mut st, "A[1] = 0");
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["A"]);
}

#[test]
fn tracking_is_not_lua_state() {
    let mut plain = setup();
    let mut tracked = setup();
    let m = tracked.write_mark();
    let prog = "touch_all() N = {1, 2} collectgarbage()";
    run(&mut plain, prog);
    run(&mut tracked, prog);
    assert!(!known(&tracked, &m).tables.is_empty());
    assert_eq!(plain.state_hash(), tracked.state_hash());
    assert_eq!(plain.heap_hash(), tracked.heap_hash());
    assert_eq!(plain.save_state().unwrap(), tracked.save_state().unwrap());
}

#[test]
fn random_programs_base_library() {
    for seed in 1..=12u64 {
        let mut st = state();
        random_rounds(&mut st, seed * 0x9e37_79b9, 40, false);
    }
}

/// Marks taken with nothing written between them are one mark (as the
/// transmitters of many clients take them between two ticks), and the
/// memoized answer follows every later write, creation, freeing and
/// rollback.
#[test]
fn marks_between_writes_are_one_and_answers_stay_exact() {
    let mut st = setup();
    let m1 = st.write_mark();
    let m2 = st.write_mark();
    assert_eq!(m1, m2, "nothing written between them");
    run(&mut st, "B.x = 5");
    assert_eq!(written_globals(&mut st, &m1, NAMES), ["B"]);
    assert_eq!(written_globals(&mut st, &m2, NAMES), ["B"], "asked again: the same answer");
    let m3 = st.write_mark();
    assert_ne!(m3, m1, "written since: a new mark");
    run(&mut st, "C[1] = 1");
    assert_eq!(written_globals(&mut st, &m1, NAMES), ["B", "C"], "a write after an answer");
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["C"]);
    let snap = st.snapshot().unwrap();
    run(&mut st, "D[1] = 0");
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["C", "D"]);
    st.rollback(snap).unwrap();
    assert_eq!(written_globals(&mut st, &m3, NAMES), ["C"], "a rollback after an answer");
    st.release(snap).unwrap();
    let m4 = st.write_mark();
    assert!(known(&st, &m4).freed.is_empty());
    run(&mut st, "E = nil collectgarbage()");
    let e = known(&st, &m4).freed.len();
    assert_eq!(e, 1, "a table freed after an answer");
}
