//! The cost of write tracking (`writes.rs`) on table writes, with no mark
//! and with a mark active: `cargo run --release -p luprex-vm --example
//! write_marks`.
//!
//! Each workload is a Lua loop doing `N` table writes of one kind, over
//! `T` tables (so a table is written `N / T` times per epoch: the
//! once-per-epoch stamp is amortized over 1, 16 or 1000 writes); each runs
//! `REPS` times and the best run is printed in nanoseconds per write, then
//! the cost of `tables_written_since` over the heap.

use luprex_vm::raw::{State, Written};
use std::time::Instant;

const REPS: usize = 9;
const N: i64 = 2_000_000;

const SETUP: &str = r#"
function make(ntables)
  local ts = {}
  for i = 1, ntables do ts[i] = {1, 2, 3, 4, 5, 6, 7, 8, x = 0, y = 0} end
  return ts
end
function array_store(ts, n)
  local m = #ts
  for i = 1, n do local t = ts[i % m + 1]; t[(i & 7) + 1] = i end
end
function field_update(ts, n)
  local m = #ts
  for i = 1, n do local t = ts[i % m + 1]; t.x = i end
end
function append(ts, n)
  local m = #ts
  for i = 1, n do local t = ts[i % m + 1]; t[#t + 1] = i end
end
function tight_array(ts, n)
  local t = ts[1]
  for i = 1, n do t[1] = i end
end
function tight_field(ts, n)
  local t = ts[1]
  for i = 1, n do t.x = i end
end
function rawset_(ts, n)
  local m = #ts
  for i = 1, n do rawset(ts[i % m + 1], "y", i) end
end
"#;

/// Best nanoseconds per write of `f` over `ntables` fresh tables, without
/// and with a mark (runs interleaved, so both see the same machine).
fn run(st: &mut State, f: &str, ntables: usize) -> (f64, f64) {
    let mut best = [f64::INFINITY; 2];
    for rep in 0..2 * REPS {
        let mark = rep % 2 == 1;
        let src = format!("TS = nil collectgarbage() TS = make({ntables}) {f}(TS, 1) return TS");
        let ts = st.exec(src.as_bytes(), b"=setup").unwrap()[0];
        if mark {
            st.write_mark();
        } else {
            st.end_write_tracking();
        }
        let g = st.get_global(f);
        let t0 = Instant::now();
        st.call_value(g, &[ts, luprex_vm::raw::Value::Int(N)]).unwrap();
        let ns = t0.elapsed().as_nanos() as f64 / N as f64;
        best[mark as usize] = best[mark as usize].min(ns);
    }
    (best[0], best[1])
}

/// `write_marks one WORKLOAD NTABLES mark|nomark N`: one run, for counting
/// instructions under `valgrind --tool=callgrind` (timings on a shared
/// machine are noisy; instruction counts are exact).
fn one(args: &[String]) {
    let mut st = State::new();
    st.exec(SETUP.as_bytes(), b"=setup").unwrap();
    let (f, ntables, n): (&str, usize, i64) =
        (&args[0], args[1].parse().unwrap(), args[3].parse().unwrap());
    let src = format!("TS = make({ntables}) {f}(TS, 1) return TS");
    let ts = st.exec(src.as_bytes(), b"=setup").unwrap()[0];
    if args[2] == "mark" {
        st.write_mark();
    }
    let g = st.get_global(f);
    st.call_value(g, &[ts, luprex_vm::raw::Value::Int(n)]).unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("one") {
        return one(&args[1..]);
    }
    let mut st = State::new();
    st.exec(SETUP.as_bytes(), b"=setup").unwrap();
    println!("{:<14} {:>8} {:>10} {:>10} {:>7}", "workload", "tables", "no mark", "mark", "delta");
    for f in ["tight_array", "tight_field", "array_store", "field_update", "append", "rawset_"] {
        for ntables in [1usize, 2000, 125_000] {
            if (f == "append" && ntables == 1) || (f.starts_with("tight") && ntables != 1) {
                // One table growing to 2M entries measures rehashing.
                continue;
            }
            let (off, on) = run(&mut st, f, ntables);
            println!(
                "{f:<14} {ntables:>8} {off:>7.2} ns {on:>7.2} ns {:>+6.1}%",
                (on / off - 1.0) * 100.0
            );
        }
    }
    // The query: a scan of the block summary, then of the blocks written.
    st.exec(b"TS = nil collectgarbage() KEEP = make(200000)", b"=setup").unwrap();
    let m = st.write_mark();
    st.exec(b"for i = 1, 1000 do KEEP[i * 7].x = i end", b"=w").unwrap();
    let t0 = Instant::now();
    let Written::Known(set) = st.tables_written_since(&m) else { unreachable!() };
    let us = t0.elapsed().as_secs_f64() * 1e6;
    println!(
        "tables_written_since: {} of {} tables written, {us:.1} us",
        set.tables.len(),
        st.heap_stats().table_slots,
    );
}
