//! Benchmark of the table-graph traversals used by difference transmission:
//! `cargo run --release -p luprex-vm --example traverse_bench [tables [filter]]`
//! (with a filter, only the benchmarks whose name contains it run).
//!
//! Two States run the same Lua program, which builds a binary tree of
//! 1,000,000 tables (by default) with five fields each: `id`, `name`, and
//! the table-valued `parent`, `left`, `right` (so every table is reached
//! once and every parent link closes a cycle). The tree hangs under a
//! tangible-like special table. The benchmark times, best of `REPS`:
//!
//! * numbering one model (`State::number_tables`);
//! * pairing the two models (`pair_tables`, every table pairs);
//! * numbering the remaining master tables (`Pairing::number_remaining`,
//!   none remain: a pure traversal);
//! * for reference, `State::state_hash` of one model, and a *memory floor*:
//!   one pass over every table's slot and entries in index (allocation)
//!   order, with no bookkeeping at all. The traversals read the same memory
//!   (pairing reads it for both models), so on a machine whose memory is
//!   slow or shared they cannot beat this figure (respectively twice it).
//!
//! and prints nanoseconds per table, wall-clock and CPU time (Linux: from
//! `/proc/thread-self/schedstat`). The goal is under 100 ns per table.

use luprex_vm::raw::{pair_tables, SpecialSet, State, Value};
use std::time::Instant;

const REPS: usize = 5;

const BUILD: &str = r#"
    local n = ...
    local nodes = {}
    local root = {id = 1, name = "node"}
    nodes[1] = root
    for i = 2, n do
      local parent = nodes[i // 2]
      local t = {id = i, name = "node", parent = parent}
      if i % 2 == 0 then parent.left = t else parent.right = t end
      nodes[i] = t
    end
    TAN = {root = root}
"#;

fn build(n: i64) -> (State, SpecialSet, Vec<Value>) {
    let mut st = State::new();
    let f = st.load(BUILD.as_bytes(), b"=build").expect("compiles");
    st.call(f, &[Value::Int(n)]).expect("builds");
    st.collect_garbage();
    let tan = st.get_global("TAN");
    let mut sp = SpecialSet::new();
    sp.mark_value(tan);
    (st, sp, vec![tan])
}

/// CPU time of this thread in nanoseconds, from the scheduler's statistics
/// (Linux); `None` elsewhere. On a shared machine, wall-clock time counts
/// the time spent waiting for a core; this does not.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Runs `f` `REPS` times; prints the best wall-clock and CPU nanoseconds
/// per table.
fn bench<R>(name: &str, tables: usize, mut f: impl FnMut() -> R) {
    let filter = std::env::args().nth(2).unwrap_or_default();
    if !name.contains(&filter) {
        return;
    }
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..REPS {
        let (t0, c0) = (Instant::now(), cpu_ns());
        std::hint::black_box(f());
        let (t1, c1) = (t0.elapsed(), cpu_ns());
        wall = wall.min(t1.as_nanos() as f64 / tables as f64);
        if let (Some(c0), Some(c1)) = (c0, c1) {
            cpu = cpu.min((c1 - c0) as f64 / tables as f64);
        }
    }
    println!("{name:<40} {wall:>8.1} ns/table wall {cpu:>8.1} ns/table cpu");
}

/// Reads every live table's slot and entries in index order.
fn scan_all(st: &State) -> u64 {
    let mut acc = 0u64;
    for (_, t) in st.live_tables() {
        for (_, v) in t.iter() {
            if let Value::Table(c) = v {
                acc = acc.wrapping_add(u64::from(c.index()));
            }
        }
    }
    acc
}

fn main() {
    let n: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let t0 = Instant::now();
    let (master, msp, mroots) = build(n);
    let (client, csp, croots) = build(n);
    println!("built 2 x {n} tables in {:.2} s", t0.elapsed().as_secs_f64());

    let num = client.number_tables(&croots, &csp);
    assert_eq!(num.len() as i64, n);
    let tables = num.len();

    bench("number_tables (one model)", tables, || client.number_tables(&croots, &csp).len());
    bench("pair_tables (master vs client)", tables, || {
        pair_tables(&master, &mroots, &msp, &client, &croots, &csp, &num).len()
    });
    let p = pair_tables(&master, &mroots, &msp, &client, &croots, &csp, &num);
    assert_eq!(p.len(), tables, "identical models pair completely");
    bench("number_remaining (after pairing)", tables, || {
        let mut p = p.clone();
        p.number_remaining(&master, &mroots, &msp).len()
    });
    bench("number + pair (whole pairing pass)", tables, || {
        let num = client.number_tables(&croots, &csp);
        pair_tables(&master, &mroots, &msp, &client, &croots, &csp, &num).len()
    });
    bench("state_hash (whole VM, for reference)", tables, || master.state_hash());
    bench("memory floor (scan all tables)", tables, || scan_all(&master));
    assert_eq!(master.state_hash(), client.state_hash());
    assert_eq!(master.heap_hash(), client.heap_hash());
}
