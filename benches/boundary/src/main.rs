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
//! Each figure is the best of fifteen runs, in thread CPU time (Linux;
//! wall-clock elsewhere); every run checks its result so nothing is
//! optimised away. Not part of CI (mlua needs a C compiler):
//! `cargo run --release --manifest-path benches/boundary/Cargo.toml`.

use std::time::Instant;

const N: i64 = 1_000_000;
const RUNS: usize = 15;

/// CPU time of this thread in nanoseconds (`/proc/thread-self/schedstat`,
/// Linux), so that other processes on a loaded machine count less; `None`
/// elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Best time of `RUNS` runs of `f`, in nanoseconds per call: thread CPU
/// time where available, else wall-clock time.
fn best(mut f: impl FnMut() -> i64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let (t, c) = (Instant::now(), thread_cpu_ns());
        let r = f();
        let total = match (c, thread_cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64,
            _ => t.elapsed().as_nanos() as f64,
        };
        let ns = total / N as f64;
        assert_eq!(r, N, "wrong result");
        best = best.min(ns);
    }
    best
}

const LUA_LOOP: &str = "local add1 = add1 local s = 0 for i = 1, N do s = add1(s) end return s";

fn lua_loop() -> String {
    LUA_LOOP.replace('N', &N.to_string())
}

mod mlua_side {
    use super::*;
    use mlua::{Function, Lua};

    pub fn rust_to_lua() -> f64 {
        let lua = Lua::new();
        let f: Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
        best(|| {
            let mut s = 0i64;
            for _ in 0..N {
                s = f.call::<i64>(s).unwrap();
            }
            s
        })
    }

    pub fn lua_to_rust() -> f64 {
        let lua = Lua::new();
        let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
        lua.globals().set("add1", add1).unwrap();
        let chunk: Function = lua.load(lua_loop()).into_function().unwrap();
        best(|| chunk.call::<i64>(()).unwrap())
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

    pub fn rust_to_lua() -> f64 {
        let mut st = State::new();
        let f = st.exec(b"return function(x) return x + 1 end", b"=bench").unwrap()[0];
        st.set_global("f", f); // keep it rooted
        best(|| {
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

    pub fn lua_to_rust() -> f64 {
        let mut st = State::new();
        let f = st.register_native("add1", add1);
        st.set_global("add1", f);
        let chunk = st.load(lua_loop().as_bytes(), b"=bench").unwrap();
        st.set_global("chunk", chunk);
        best(|| match st.call(chunk, &[]).unwrap()[..] {
            [Value::Int(r)] => r,
            _ => panic!("not an integer"),
        })
    }
}

mod lua_api_side {
    use super::*;
    use luprex_vm::{Function, Lua};

    pub fn rust_to_lua() -> f64 {
        let lua = Lua::new();
        let f: Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
        best(|| {
            let mut s = 0i64;
            for _ in 0..N {
                s = f.call::<i64>(s).unwrap();
            }
            s
        })
    }

    pub fn lua_to_rust() -> f64 {
        let lua = Lua::new();
        let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
        lua.globals().set("add1", add1).unwrap();
        let chunk: Function = lua.load(lua_loop()).into_function().unwrap();
        best(|| chunk.call::<i64>(()).unwrap())
    }
}

fn main() {
    let clock = if thread_cpu_ns().is_some() { "thread CPU time" } else { "wall clock" };
    println!("{N} calls each, best of {RUNS} runs ({clock}), ns per call");
    let rows = [
        (
            "Rust -> Lua",
            mlua_side::rust_to_lua(),
            state_side::rust_to_lua(),
            lua_api_side::rust_to_lua(),
        ),
        (
            "Lua -> Rust",
            mlua_side::lua_to_rust(),
            state_side::lua_to_rust(),
            lua_api_side::lua_to_rust(),
        ),
    ];
    println!(
        "| direction | mlua (Lua 5.4) | luprex State | luprex Lua API | State / mlua | Lua API / mlua |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, m, s, l) in rows {
        println!("| {name} | {m:.1} | {s:.1} | {l:.1} | {:.2} | {:.2} |", s / m, l / m);
    }
}
