//! The Rust<->Lua boundary: what one crossing costs, in each direction.
//!
//! * **Rust -> Lua**: a Lua function `function(x) return x + 1 end` called
//!   from Rust N times, one integer in, one out.
//! * **Lua -> Rust**: a Rust function `add1(x) = x + 1` called N times from
//!   a Lua loop (`for i = 1, N do s = add1(s) end`).
//!
//! Measured for mlua (vendored Lua 5.4), luprex-vm's low-level `State` API
//! (natives are `fn(&mut State) -> Result<Action, Error>`, calls return a
//! `Vec`) and its mlua-shaped `Lua` API (closures with typed arguments).
//!
//! **Method.** Each figure is the best of `ROUNDS` runs of N calls, in
//! thread CPU time. The clock is `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`
//! (Unix), which adds the running slice to the thread's total, so it is
//! exact to the nanosecond; `/proc/thread-self/schedstat`, used before, is
//! only brought up to date at scheduler ticks (4 ms here, an eighth of a
//! run). The three implementations run *interleaved*, one run of each per
//! round, so a burst of load on a shared machine falls on all of them
//! rather than on whichever was being measured; the ratios print with the
//! spread of the per-round ratios. Every run checks its result so nothing
//! is optimised away. Not part of CI (mlua needs a C compiler):
//! `cargo run --release --manifest-path benches/boundary/Cargo.toml`.

use std::time::Instant;

const N: i64 = 1_000_000;
const ROUNDS: usize = 25;

/// CPU time of this thread in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`),
/// `None` where the clock is missing.
fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable `timespec` for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// One run of `f` (N calls), in nanoseconds per call: thread CPU time
/// where available, else wall-clock time.
fn once(f: &mut dyn FnMut() -> i64) -> f64 {
    let (t, c) = (Instant::now(), thread_cpu_ns());
    let r = f();
    let total = match (c, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64,
        _ => t.elapsed().as_nanos() as f64,
    };
    assert_eq!(r, N, "wrong result");
    total / N as f64
}

/// The best time of each of `fs` over `ROUNDS` interleaved rounds, and
/// for each `fs[k]` (k > 0) the lowest and highest of its per-round
/// ratios to `fs[0]`.
fn interleaved(fs: &mut [&mut dyn FnMut() -> i64]) -> (Vec<f64>, Vec<(f64, f64)>) {
    let mut best = vec![f64::INFINITY; fs.len()];
    let mut spread = vec![(f64::INFINITY, 0.0f64); fs.len()];
    for _ in 0..ROUNDS {
        let times: Vec<f64> = fs.iter_mut().map(|f| once(*f)).collect();
        for (k, &t) in times.iter().enumerate() {
            best[k] = best[k].min(t);
            let r = t / times[0];
            spread[k] = (spread[k].0.min(r), spread[k].1.max(r));
        }
    }
    (best, spread)
}

const LUA_LOOP: &str = "local add1 = add1 local s = 0 for i = 1, N do s = add1(s) end return s";

fn lua_loop() -> String {
    LUA_LOOP.replace('N', &N.to_string())
}

/// One measured workload: N crossings, returning the final count.
type Bench = Box<dyn FnMut() -> i64>;

mod mlua_side {
    use super::*;
    use mlua::{Function, Lua};

    pub fn rust_to_lua() -> Bench {
        let lua = Lua::new();
        let f: Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
        Box::new(move || {
            let _keep = &lua;
            let mut s = 0i64;
            for _ in 0..N {
                s = f.call::<i64>(s).unwrap();
            }
            s
        })
    }

    pub fn lua_to_rust() -> Bench {
        let lua = Lua::new();
        let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
        lua.globals().set("add1", add1).unwrap();
        let chunk: Function = lua.load(lua_loop()).into_function().unwrap();
        Box::new(move || {
            let _keep = &lua;
            chunk.call::<i64>(()).unwrap()
        })
    }
}

mod state_side {
    use super::*;
    use luprex_vm::raw::{Action, Error, State, Value};

    fn add1(st: &mut State) -> Result<Action, Error> {
        let x = st.check_int(1)?;
        st.push(Value::Int(x + 1));
        Ok(Action::Return(1))
    }

    pub fn rust_to_lua() -> Bench {
        let mut st = State::new();
        let f = st.exec(b"return function(x) return x + 1 end", b"=bench").unwrap()[0];
        st.set_global("f", f); // keep it rooted
        Box::new(move || {
            let mut s = 0i64;
            for _ in 0..N {
                match st.call(f, &[Value::Int(s)]).unwrap()[..] {
                    [Value::Int(r)] => s = r,
                    _ => panic!("not an integer"),
                }
            }
            s
        })
    }

    pub fn lua_to_rust() -> Bench {
        let mut st = State::new();
        let f = st.register_native("add1", add1);
        st.set_global("add1", f);
        let chunk = st.load(lua_loop().as_bytes(), b"=bench").unwrap();
        st.set_global("chunk", chunk);
        Box::new(move || match st.call(chunk, &[]).unwrap()[..] {
            [Value::Int(r)] => r,
            _ => panic!("not an integer"),
        })
    }
}

mod lua_api_side {
    use super::*;
    use luprex_vm::{Function, Lua};

    pub fn rust_to_lua() -> Bench {
        let lua = Lua::new();
        let f: Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
        Box::new(move || {
            let _keep = &lua;
            let mut s = 0i64;
            for _ in 0..N {
                s = f.call::<i64>(s).unwrap();
            }
            s
        })
    }

    pub fn lua_to_rust() -> Bench {
        let lua = Lua::new();
        let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
        lua.globals().set("add1", add1).unwrap();
        let chunk: Function = lua.load(lua_loop()).into_function().unwrap();
        Box::new(move || {
            let _keep = &lua;
            chunk.call::<i64>(()).unwrap()
        })
    }
}

fn main() {
    let clock = if thread_cpu_ns().is_some() { "thread CPU time" } else { "wall clock" };
    println!("{N} calls each, best of {ROUNDS} interleaved rounds ({clock}), ns per call");
    let rows = [
        (
            "Rust -> Lua",
            [mlua_side::rust_to_lua(), state_side::rust_to_lua(), lua_api_side::rust_to_lua()],
        ),
        (
            "Lua -> Rust",
            [mlua_side::lua_to_rust(), state_side::lua_to_rust(), lua_api_side::lua_to_rust()],
        ),
    ];
    println!(
        "| direction | mlua (Lua 5.4) | luprex State | luprex Lua API | State / mlua | Lua API / mlua | per-round Lua API / mlua |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    for (name, [mut m, mut s, mut l]) in rows {
        let (best, spread) = interleaved(&mut [&mut *m, &mut *s, &mut *l]);
        let (m, s, l) = (best[0], best[1], best[2]);
        let (lo, hi) = spread[2];
        println!(
            "| {name} | {m:.1} | {s:.1} | {l:.1} | {:.2} | {:.2} | {lo:.2}–{hi:.2} |",
            s / m,
            l / m
        );
    }
}
