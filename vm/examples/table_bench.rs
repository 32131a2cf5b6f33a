//! Micro-benchmarks for the table, interner and number formatting,
//! through the low-level API (`luprex_vm::raw`):
//! `cargo run --release -p luprex-vm --example table_bench`.
//!
//! Each benchmark runs 20 repetitions of 500k operations (10M in all) and
//! prints the best repetition's nanoseconds per operation: on a shared
//! machine, the minimum is the run least disturbed by other processes.

use luprex_vm::raw::number::{fmt_float, str_to_number};
use luprex_vm::raw::{State, StrRef, Value};
use std::hint::black_box;
use std::time::Instant;

const REPS: usize = 20;
const OPS: usize = 500_000;

/// Runs `f` (which performs `ops` operations) `REPS` times; prints the best.
fn bench(name: &str, ops: usize, mut f: impl FnMut()) {
    let mut best = f64::INFINITY;
    for _ in 0..REPS {
        let t0 = Instant::now();
        f();
        best = best.min(t0.elapsed().as_nanos() as f64 / ops as f64);
    }
    println!("{name:<46} {best:>7.2} ns/op");
}

fn main() {
    let mut st = State::new_bare();
    let names: Vec<StrRef> =
        (0..10_000).map(|i| st.intern(format!("field{i}").as_bytes())).collect();
    // Values come from memory, as they do from VM registers.
    let vals: Vec<Value> = (0..1024).map(Value::Int).collect();

    table_benches(&mut st, &names, &vals);
    string_benches(&mut st);
    number_benches();
}

fn table_benches(st: &mut State, names: &[StrRef], vals: &[Value]) {
    let t = st.new_table_sized(0, 0);
    for i in 1..=1000 {
        st.raw_set_int(t, i, Value::Int(i));
    }
    bench("set_int (array part, 1000 slots)", OPS, || {
        for k in 0..OPS {
            let i = (k % 1000) as i64 + 1;
            st.raw_set_int(t, black_box(i), vals[k & 1023]);
        }
    });
    bench("get_int (array part, 1000 slots)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            let i = (k % 1000) as i64 + 1;
            acc += st.table(t).get_int(black_box(i)).is_nil() as usize;
        }
        black_box(acc);
    });
    bench("append t[#t+1]=v (fresh tables of 1000)", OPS, || {
        for _ in 0..OPS / 1000 {
            let t = st.new_table_sized(0, 0);
            for k in 0..1000 {
                let n = st.table(t).len();
                st.raw_set_int(t, n + 1, vals[k & 1023]);
            }
            black_box(t);
        }
    });

    let obj = st.new_table_sized(0, 0);
    for s in &names[..16] {
        st.raw_set_str(obj, *s, Value::Int(1));
    }
    bench("get_str (16-key table)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            acc += st.table(obj).get_str(black_box(names[k & 15])).is_nil() as usize;
        }
        black_box(acc);
    });
    bench("set_str existing key (16-key table)", OPS, || {
        for k in 0..OPS {
            st.raw_set_str(obj, black_box(names[k & 15]), vals[k & 1023]);
        }
    });
    bench("get_str miss (16-key table)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            acc += st.table(obj).get_str(black_box(names[16 + (k & 1023)])).is_nil() as usize;
        }
        black_box(acc);
    });
    bench("get(Value::Str) generic (16-key table)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            acc += st.table(obj).get(black_box(Value::Str(names[k & 15]))).is_nil() as usize;
        }
        black_box(acc);
    });

    let big = st.new_table_sized(0, 0);
    for s in names {
        st.raw_set_str(big, *s, Value::Int(1));
    }
    bench("get_str (10k-key table, strided)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            let s = names[(k * 7919) % names.len()];
            acc += st.table(big).get_str(black_box(s)).is_nil() as usize;
        }
        black_box(acc);
    });
    bench("set_str new keys (empty tables -> 16 keys)", OPS, || {
        for _ in 0..OPS / 16 {
            let t = st.new_table_sized(0, 0);
            for s in &names[..16] {
                st.raw_set_str(t, *s, vals[1]);
            }
            black_box(t);
        }
    });
    bench("set_str new keys (presized 16-key tables)", OPS, || {
        for _ in 0..OPS / 16 {
            let t = st.new_table_sized(0, 16);
            for s in &names[..16] {
                st.raw_set_str(t, *s, vals[1]);
            }
            black_box(t);
        }
    });
    let sparse = st.new_table_sized(0, 0);
    for i in 0..1000 {
        st.raw_set_int(sparse, i * 1_000_003, Value::Int(i));
    }
    bench("get_int (hash part, 1000 sparse keys)", OPS, || {
        let mut acc = 0usize;
        for k in 0..OPS {
            let i = (k % 1000) as i64 * 1_000_003;
            acc += st.table(sparse).get_int(black_box(i)).is_nil() as usize;
        }
        black_box(acc);
    });
    let mixed = st.new_table_sized(0, 0);
    for i in 1..=1000 {
        st.raw_set_int(mixed, i, Value::Int(i));
    }
    for s in &names[..1000] {
        st.raw_set_str(mixed, *s, Value::Int(1));
    }
    bench("next(k) per step (1000 array + 1000 hash)", OPS, || {
        for _ in 0..OPS / 2000 {
            let mut k = Value::Nil;
            while let Ok(Some((nk, _))) = st.table(mixed).next(k) {
                k = nk;
            }
            black_box(k);
        }
    });
    bench("next_at(pos) per step (1000 array + 1000 hash)", OPS, || {
        for _ in 0..OPS / 2000 {
            let mut pos = 0;
            while let Some((p, k, _)) = st.table(mixed).next_at(pos) {
                pos = p;
                black_box(k);
            }
        }
    });
}

fn string_benches(st: &mut State) {
    let hot: Vec<Vec<u8>> = (0..1000).map(|i| format!("name{i}").into_bytes()).collect();
    bench("intern existing (1000 hot strings)", OPS, || {
        for k in 0..OPS {
            black_box(st.intern(&hot[k % 1000]));
        }
    });
    let words: Vec<Vec<u8>> = (0..OPS * REPS).map(|i| format!("w{i}").into_bytes()).collect();
    let mut chunks = words.chunks(OPS);
    bench("intern new (10M distinct, growing)", OPS, || {
        for w in chunks.next().unwrap_or(&[]) {
            black_box(st.intern(w));
        }
    });
}

fn number_benches() {
    let mut out = Vec::with_capacity(64);
    let xs: Vec<f64> = (0..1024).map(|k| k as f64 * 0.37).collect();
    bench("fmt_float (%.14g, k*0.37)", OPS / 10, || {
        for k in 0..OPS / 10 {
            out.clear();
            fmt_float(black_box(xs[k & 1023]), &mut out);
        }
    });
    let ys: Vec<f64> = (0..1024).map(|k| k as f64 / 7.0).collect();
    bench("fmt_float (%.14g, k/7)", OPS / 10, || {
        for k in 0..OPS / 10 {
            out.clear();
            fmt_float(black_box(ys[k & 1023]), &mut out);
        }
    });
    bench("str_to_number (\"12345.678\")", OPS / 10, || {
        for _ in 0..OPS / 10 {
            black_box(str_to_number(black_box(b"12345.678")));
        }
    });
    bench("str_to_number (\"123456\")", OPS / 10, || {
        for _ in 0..OPS / 10 {
            black_box(str_to_number(black_box(b"123456")));
        }
    });
}
