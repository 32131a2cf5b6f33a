//! Snapshot and rollback cost on a 64 MB heap, against a `memcpy` of the
//! same size measured in the same run.
//!
//! The heap is a world of entity-like tables, each with five string-keyed
//! fields (`id`, `name`, `x`, `y`, `hp`) and an eight-slot array part,
//! built until the VM's own accounting (`memory_in_use`) reaches 64 MB.
//! "Dirtying N bytes" is N/16 writes of a 16-byte value (a number) into
//! distinct array cells of distinct entities spread evenly over the world
//! (once every entity has been written to, the next cells of the same
//! entities). Each figure is the median of several runs. Usage:
//!
//! ```text
//! cargo run --release -p luprex-vm --example snapshot_bench [MB] [RUNS]
//! ```

use luprex_vm::{State, Value};
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
    dirty_journaled: Duration,
    dirty_plain: Duration,
    rollback: Duration,
    saved: usize,
}

/// The engine's cycle: one snapshot kept open, then dirty + rollback again
/// and again (the first cycle is not counted: it fills the journal's pool
/// of retired objects, whose allocations later cycles reuse).
fn measure_cycles(st: &mut State, dirty: Value, label: String, writes: i64, runs: usize) -> Case {
    let (mut dj, mut dp, mut rb, mut saved) = (vec![], vec![], vec![], 0);
    let (snap, s) = time(|| st.snapshot().expect("snapshot"));
    for r in 0..=runs {
        let v = Value::Float(0.5 + r as f64);
        let t = time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0;
        saved = st.heap.journal_len();
        let t2 = time(|| st.rollback(s).expect("rollback")).0;
        if r > 0 {
            dj.push(t);
            rb.push(t2);
        }
    }
    st.release(s).expect("release");
    for r in 0..runs {
        let v = Value::Float(0.5 + r as f64);
        dp.push(time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0);
    }
    Case {
        label,
        snapshot: snap,
        dirty_journaled: median(dj),
        dirty_plain: median(dp),
        rollback: median(rb),
        saved,
    }
}

fn measure(st: &mut State, dirty: Value, label: String, writes: i64, runs: usize) -> Case {
    let (mut snap, mut dj, mut dp, mut rb, mut saved) = (vec![], vec![], vec![], vec![], 0);
    for r in 0..runs {
        let v = Value::Float(0.5 + r as f64);
        let (t, s) = time(|| st.snapshot().expect("snapshot"));
        snap.push(t);
        dj.push(time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0);
        saved = st.heap.journal_len();
        rb.push(time(|| st.rollback(s).expect("rollback")).0);
        st.release(s).expect("release");
        dp.push(time(|| st.call(dirty, &[Value::Int(writes), v]).expect("dirty")).0);
    }
    Case {
        label,
        snapshot: median(snap),
        dirty_journaled: median(dj),
        dirty_plain: median(dp),
        rollback: median(rb),
        saved,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);
    let runs: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(7);
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
         {} interned strings; memory_in_use {:.1} MB, RSS {:.1} MB (built in {:.1} s)",
        st.heap.strings.len(),
        st.memory_in_use() as f64 / 1048576.0,
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
        let writes = (bytes / 16) as i64;
        let tables = (writes).min(entities);
        let label = format!("{label} ({writes} writes, {tables} tables)");
        cases.push(measure(&mut st, dirty, label, writes, runs));
    }
    let full = measure(&mut st, dirty, format!("every table ({entities} writes)"), entities, runs);
    let cycle = measure_cycles(
        &mut st,
        dirty,
        format!("every table, repeated cycles on one snapshot ({entities} writes)"),
        entities,
        runs,
    );

    let ratio = |d: Duration| d.as_secs_f64() / memcpy.as_secs_f64();
    println!("\nmedian of {runs} runs; memcpy of {mb} MB: {}\n", fmt(memcpy));
    println!("| case | snapshot | rollback | extra dirtying cost (journaled - plain) | slots saved | rollback / memcpy |");
    println!("|---|---|---|---|---|---|");
    for c in cases.iter().chain([&full, &cycle]) {
        let extra = c.dirty_journaled.saturating_sub(c.dirty_plain);
        println!(
            "| {} | {} | {} | {} ({} - {}) | {} | {:.3} |",
            c.label,
            fmt(c.snapshot),
            fmt(c.rollback),
            fmt(extra),
            fmt(c.dirty_journaled),
            fmt(c.dirty_plain),
            c.saved,
            ratio(c.rollback)
        );
    }
    let extra = full.dirty_journaled.saturating_sub(full.dirty_plain);
    let total = full.snapshot + extra + full.rollback;
    println!(
        "\nfully dirtied: snapshot + journaling + rollback = {} = {:.2} x memcpy (goal <= 2.00)",
        fmt(total),
        ratio(total)
    );
    let extra = cycle.dirty_journaled.saturating_sub(cycle.dirty_plain);
    let total = extra + cycle.rollback;
    println!(
        "fully dirtied, steady cycle on an open snapshot: journaling + rollback = {} = {:.2} x memcpy",
        fmt(total),
        ratio(total)
    );
    println!("rollback after 1 KB: {} (goal < 50 µs)", fmt(cases[0].rollback));
}
