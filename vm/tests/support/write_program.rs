// Random Lua mutation programs over a graph of tables, and the check that
// `State::tables_written_since` reports every table whose contents changed
// (no false negatives) and no table the program did not write (false
// positives only for tables it named as a write target). Included by
// `vm/tests/writes.rs` (base library only) and by the root package's
// `tests/writes_stdlib.rs` (with the `table` library).

use luprex_vm::raw::TableRef;
use luprex_vm::raw::{State, Value, WriteMark, Written};
use std::collections::{BTreeMap, BTreeSet};

/// Tables of the graph (`G[1..=N_G]`) and weak tables (`W[1..=N_W]`).
const N_G: usize = 10;
const N_W: usize = 3;

/// Builds the graph: globals `G` (ordinary tables), `W` (weak tables),
/// `M` (metatables: plain, with `__index`, with `__newindex` into `SINK`),
/// `SINK`.
const SETUP: &str = r#"
SINK = {}
M = { {}, {__index = {dflt = 1}}, {__newindex = SINK} }
G = {}
for i = 1, 10 do
  local t = {i, i + 1, name = "t" .. i}
  if i % 3 == 0 then t.sub = {x = i} end
  G[i] = t
end
W = { setmetatable({}, {__mode = "k"}), setmetatable({}, {__mode = "v"}),
      setmetatable({}, {__mode = "kv"}) }
KEEP = {}
"#;


/// A random value expression (`t` may name a graph table).
fn value(r: &mut Rng) -> String {
    match r.below(9) {
        0 => "nil".into(),
        1 => format!("{}", r.below(5)),
        2 => format!("{}.5", r.below(3)),
        3 => format!("'s{}'", r.below(4)),
        4 => "true".into(),
        5 => format!("G[{}]", 1 + r.below(N_G)),
        6 => "{}".into(),
        7 => format!("{{{}, k = {}}}", r.below(3), r.below(3)),
        _ => format!("{}", r.below(3)),
    }
}

/// A random key expression.
fn key(r: &mut Rng) -> String {
    match r.below(6) {
        0 | 1 => format!("'k{}'", r.below(5)),
        2 | 3 => format!("{}", 1 + r.below(6)),
        4 => "'name'".into(),
        _ => format!("{}.5", r.below(2)),
    }
}

/// One random program: its source and the indices of `G` it names as
/// write targets (`W` and `SINK` are always possible targets).
fn program(r: &mut Rng, with_tablib: bool, len: usize) -> (String, BTreeSet<usize>) {
    let mut src = String::new();
    let mut targets = BTreeSet::new();
    for _ in 0..len {
        let a = 1 + r.below(N_G);
        let b = 1 + r.below(N_G);
        let ops = if with_tablib { 20 } else { 14 };
        let (line, writes) = match r.below(ops) {
            0 => (format!("G[{a}].k{} = {}", r.below(5), value(r)), true),
            1 => (format!("G[{a}][{}] = {}", 1 + r.below(6), value(r)), true),
            2 => (format!("G[{a}][#G[{a}] + 1] = {}", value(r)), true),
            3 => (format!("rawset(G[{a}], {}, {})", key(r), value(r)), true),
            4 => {
                let m = match r.below(4) {
                    0 => "nil".to_string(),
                    i => format!("M[{i}]"),
                };
                (format!("setmetatable(G[{a}], {m})"), true)
            }
            5 => (format!("G[{a}].k{} = nil", r.below(5)), true),
            6 => (format!("local v = G[{a}].name; G[{a}].name = nil; G[{a}].name = v"), true),
            7 => (format!("G[{a}][{}] = G[{a}][{}]", key(r), key(r)), true),
            8 => (format!("W[{}][{}] = {}", 1 + r.below(N_W), value(r), value(r)), false),
            9 => (format!("KEEP[1] = G[{a}]; local x = {{}}; x[1] = G[{b}]"), false),
            10 => ("collectgarbage()".to_string(), false),
            // Reads, which must not count.
            11 => (format!("local s = 0 for k, v in pairs(G[{a}]) do s = s + 1 end"), false),
            12 => (format!("local _ = G[{a}].dflt, G[{a}][1], #G[{a}], G[{a}].zz"), false),
            13 => (format!("local y = rawget(G[{a}], 'k1'); local z = next(G[{a}])"), false),
            14 => (format!("table.insert(G[{a}], {})", value(r).replace("nil", "0")), true),
            15 => (format!("table.insert(G[{a}], 1, {})", value(r).replace("nil", "0")), true),
            16 => (format!("table.remove(G[{a}]); table.remove(G[{a}], 1)"), true),
            17 => (format!("pcall(table.sort, G[{a}])"), true),
            18 => (format!("table.move(G[{b}], 1, 3, 2, G[{a}])"), true),
            _ => (format!("local u = table.concat({{table.unpack(G[{a}], 1, 2)}}, '', 1, 0)"), false),
        };
        if writes {
            targets.insert(a);
        }
        src.push_str("pcall(function() ");
        src.push_str(&line);
        src.push_str(" end)\n");
    }
    (src, targets)
}

/// Every live table's contents (entries in traversal order, metatable),
/// by handle index, as text (values by identity: handles and interned
/// strings).
fn contents(st: &State) -> BTreeMap<u32, String> {
    st.live_tables()
        .map(|(h, t)| (h.index(), format!("{:?} meta {:?}", t.iter().collect::<Vec<_>>(), t.meta)))
        .collect()
}

fn global_table(st: &mut State, name: &str) -> TableRef {
    match st.get_global(name) {
        Value::Table(t) => t,
        v => panic!("{name} is {v:?}"),
    }
}

fn graph_table(st: &mut State, i: usize) -> TableRef {
    let g = global_table(st, "G");
    match st.table_get(Value::Table(g), Value::Int(i as i64)) {
        Value::Table(t) => t,
        v => panic!("G[{i}] is {v:?}"),
    }
}

/// Runs `src` (errors allowed: they are part of the program).
fn run_program(st: &mut State, src: &str) {
    let f = st.load(src.as_bytes(), b"=prog").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let _ = st.call_value(f, &[]);
}

/// Checks the answer of `mark` against the contents before (`before`) and
/// now, given the tables the program may have written (`allowed`).
fn check_written(
    st: &State,
    mark: &WriteMark,
    before: &BTreeMap<u32, String>,
    allowed: &BTreeSet<u32>,
    src: &str,
) {
    let Written::Known(set) = st.tables_written_since(mark) else {
        panic!("mark cannot answer\n{src}");
    };
    let reported: BTreeSet<u32> = set.tables.iter().map(|t| t.index()).collect();
    assert!(set.tables.windows(2).all(|w| w[0].index() < w[1].index()), "not ascending");
    assert!(set.freed.windows(2).all(|w| w[0] < w[1]), "freed not ascending");
    let freed: BTreeSet<u32> = set.freed.iter().copied().collect();
    let after = contents(st);
    for (i, c) in &after {
        let changed = before.get(i) != Some(c);
        if changed {
            assert!(reported.contains(i), "table {i} changed but not reported: {c}\n{src}");
        }
        if reported.contains(i) && !changed && before.contains_key(i) {
            assert!(allowed.contains(i), "table {i} reported but not written: {c}\n{src}");
        }
    }
    for i in before.keys() {
        if !after.contains_key(i) {
            assert!(freed.contains(i), "table {i} freed but not reported\n{src}");
        }
    }
    for i in &freed {
        assert!(!after.contains_key(i), "freed slot {i} is live");
    }
}

/// Rounds of: mark, random program, collect, check; with snapshots and
/// rollbacks mixed in (a mark older than the snapshot answers as at the
/// snapshot after a rollback; a newer one answers `Unknown`).
fn random_rounds(st: &mut State, seed: u64, rounds: usize, with_tablib: bool) {
    run_program(st, SETUP);
    let mut r = Rng(seed);
    for round in 0..rounds {
        let mut allowed = BTreeSet::new();
        for name in ["SINK", "KEEP"] {
            allowed.insert(global_table(st, name).index());
        }
        for i in 1..=N_W {
            let w = global_table(st, "W");
            if let Value::Table(t) = st.table_get(Value::Table(w), Value::Int(i as i64)) {
                allowed.insert(t.index());
            }
        }
        let graph: Vec<TableRef> = (1..=N_G).map(|i| graph_table(st, i)).collect();
        let mark = st.write_mark();
        let before = contents(st);
        // The tables alive at the mark stay alive for the round, so that no
        // slot of `before` is reused by a new table with equal contents
        // (which would be reported, rightly, as created, but look unchanged
        // here). Freeing is covered by the unit tests.
        let pins: Vec<_> = before
            .keys()
            .map(|&i| st.pin(Value::Table(TableRef::from_index(i))))
            .collect();
        let len = 1 + r.below(12);
        let (src, targets) = program(&mut r, with_tablib, len);
        allowed.extend(targets.iter().map(|&a| graph[a - 1].index()));
        run_program(st, &src);
        if round % 2 == 0 {
            st.collect_garbage();
        }
        if round % 4 == 3 {
            // Predict, roll back: the mark answers as at the snapshot.
            let at = contents(st);
            let s = st.snapshot().unwrap();
            let at_snapshot = st.tables_written_since(&mark);
            let inner = st.write_mark();
            let (junk, _) = program(&mut r, with_tablib, 8);
            run_program(st, &junk);
            st.collect_garbage();
            assert!(matches!(st.tables_written_since(&inner), Written::Known(_)));
            st.rollback(s).unwrap();
            assert_eq!(st.tables_written_since(&mark), at_snapshot, "after rollback\n{junk}");
            assert_eq!(st.tables_written_since(&inner), Written::Unknown);
            st.release(s).unwrap();
            assert_eq!(contents(st), at, "rollback restored the contents");
        }
        check_written(st, &mark, &before, &allowed, &src);
        pins.into_iter().for_each(|p| st.unpin(p));
    }
}
