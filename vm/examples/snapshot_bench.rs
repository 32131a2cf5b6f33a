//! Snapshot and rollback cost on a 64 MB heap, against a `memcpy` of the
//! same size measured in the same run.
//!
//! The heap is a world of entity-like tables, each with five string-keyed
//! fields (`id`, `name`, `x`, `y`, `hp`) and an eight-slot array part,
//! built until the VM's own accounting (`memory_in_use`) reaches 64 MB.
//! "Dirtying N bytes" is N/32 steps, each writing two 16-byte values (a
//! number) into one entity: an array cell and its `hp` field, so both parts
//! of the table change (entities spread evenly over the world; once every
//! entity has been written to, the next cells of the same entities). Each
//! figure is the median of several runs. Usage:
//!
//! ```text
//! cargo run --release -p luprex-vm --example snapshot_bench [MB] [RUNS]
//! ```

use luprex_vm::raw::{State, Value};
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"
E = E or {}
local n = #E
for i = n + 1, n + 10000 do
  E[i] = {id = i, name = "entity" .. i, x = i * 0.5, y = i * 0.25, hp = 100,
          1, 2, 3, 4, 5, 6, 7, 8}
end
"#;

const DIRTY: &str = r#"
return function(writes, v)
  local E = E
  local n = #E
  local stride = n // 977 * 977 == n and 997 or 977
  for k = 0, writes - 1 do
    local e = E[(k * stride) % n + 1]
    e[(k // n) % 8 + 1] = v
    e.hp = v
  end
end
"#;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = s.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

/// One measured case of dirtying `writes` cells.
struct Case {
    label: String,
    snapshot: Duration,
    /// Median of (first pass with the snapshot open) - (identical second
    /// pass, which has nothing left to journal), run by run.
    extra: Duration,
    dirty_journaled: Duration,
    dirty_again: Duration,
    rollback: Duration,
    saved: (usize, usize),
}

fn case(
    label: String,
    snap: Vec<Duration>,
    runs: Vec<[Duration; 3]>,
    saved: (usize, usize),
) -> Case {
    let col = |i: usize| runs.iter().map(|r| r[i]).collect::<Vec<_>>();
    let extra = runs.iter().map(|r| r[0].saturating_sub(r[1])).collect();
    Case {
        label,
        snapshot: median(snap),
        extra: median(extra),
        dirty_journaled: median(col(0)),
        dirty_again: median(col(1)),
        rollback: median(col(2)),
        saved,
    }
}

/// The engine's cycle: one snapshot kept open, then dirty + rollback again
/// and again (the first cycle is not counted: it fills the journal's pool
/// of page buffers, which later cycles reuse).
fn measure_cycles(st: &mut State, dirty: Value, label: String, writes: i64, runs: usize) -> Case {
    let (mut out, mut saved) = (vec![], (0, 0));
    let (snap, s) = time(|| st.snapshot().expect("snapshot"));
    for r in 0..=runs {
        let v = Value::Float(0.5 + r as f64);
        let first = time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0;
        saved = (st.heap_stats().journal_slots, st.heap_stats().journal_pages);
        let again = time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0;
        let rb = time(|| st.rollback(s).expect("rollback")).0;
        if r > 0 {
            out.push([first, again, rb]);
        }
    }
    st.release(s).expect("release");
    case(label, vec![snap], out, saved)
}

/// A fresh snapshot per run: snapshot, dirty, dirty again, roll back,
/// release.
fn measure(st: &mut State, dirty: Value, label: String, writes: i64, runs: usize) -> Case {
    let (mut snaps, mut out, mut saved) = (vec![], vec![], (0, 0));
    for r in 0..runs {
        let (t, s) = time(|| st.snapshot().expect("snapshot"));
        snaps.push(t);
        let v = Value::Float(0.5 + r as f64);
        let first = time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0;
        saved = (st.heap_stats().journal_slots, st.heap_stats().journal_pages);
        let again = time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0;
        let rb = time(|| st.rollback(s).expect("rollback")).0;
        st.release(s).expect("release");
        out.push([first, again, rb]);
    }
    case(label, snaps, out, saved)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);
    let runs: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(9);
    let target = mb << 20;

    let mut st = State::new();
    let t0 = Instant::now();
    while st.memory_in_use() < target {
        st.exec(PROGRAM.as_bytes(), b"=build").expect("build");
    }
    st.collect_garbage();
    let entities = match st.exec(b"return #E", b"=n").expect("count")[0] {
        Value::Int(n) => n,
        _ => 0,
    };
    println!(
        "heap: {entities} entity tables ({{id, name, x, y, hp}} + 8 array slots), \
         {} interned strings; memory_in_use {:.1} MB (table store pages {:.1} MB), \
         RSS {:.1} MB (built in {:.1} s)",
        st.heap_stats().strings,
        st.memory_in_use() as f64 / 1048576.0,
        st.heap_stats().store_reserved_bytes as f64 / 1048576.0,
        rss_mb(),
        t0.elapsed().as_secs_f64()
    );
    let dirty = st.exec(DIRTY.as_bytes(), b"=dirty").expect("dirty fn")[0];
    let _keep = st.pin(dirty);

    // memcpy of the same size, pre-touched buffers.
    let src: Vec<u8> = (0..target).map(|i| i as u8).collect();
    let mut dst = vec![1u8; target];
    let memcpy = median(
        (0..runs)
            .map(|_| {
                let t = time(|| dst.copy_from_slice(&src)).0;
                std::hint::black_box(&dst);
                t
            })
            .collect(),
    );

    let mut cases = Vec::new();
    for (label, bytes) in [("1 KB", 1usize << 10), ("100 KB", 100 << 10), ("10 MB", 10 << 20)] {
        let writes = (bytes / 32) as i64;
        let tables = (writes).min(entities);
        let label = format!("{label} ({writes} steps, {tables} tables)");
        cases.push(measure(&mut st, dirty, label, writes, runs));
    }
    let full = measure(&mut st, dirty, format!("every table ({entities} steps)"), entities, runs);
    let cycle = measure_cycles(
        &mut st,
        dirty,
        format!("every table, repeated cycles on one snapshot ({entities} steps)"),
        entities,
        runs,
    );

    let ratio = |d: Duration| d.as_secs_f64() / memcpy.as_secs_f64();
    println!("\nmedian of {runs} runs; memcpy of {mb} MB: {}\n", fmt(memcpy));
    println!("| case | snapshot | rollback | extra dirtying cost (first pass - second pass) | slots / pages saved | rollback / memcpy |");
    println!("|---|---|---|---|---|---|");
    for c in cases.iter().chain([&full, &cycle]) {
        let extra = c.extra;
        println!(
            "| {} | {} | {} | {} ({} - {}) | {} / {} | {:.3} |",
            c.label,
            fmt(c.snapshot),
            fmt(c.rollback),
            fmt(extra),
            fmt(c.dirty_journaled),
            fmt(c.dirty_again),
            c.saved.0,
            c.saved.1,
            ratio(c.rollback)
        );
    }
    let total = full.snapshot + full.extra + full.rollback;
    println!(
        "\nfully dirtied: snapshot + journaling + rollback = {} = {:.2} x memcpy (goal <= 2.00)",
        fmt(total),
        ratio(total)
    );
    let total = cycle.extra + cycle.rollback;
    println!(
        "fully dirtied, steady cycle on an open snapshot: journaling + rollback = {} = {:.2} x memcpy",
        fmt(total),
        ratio(total)
    );
    println!("rollback after 1 KB: {} (goal < 50 µs)", fmt(cases[0].rollback));
}
