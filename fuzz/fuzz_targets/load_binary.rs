//! Fuzz target: loading and running a binary chunk must never panic.
//!
//! The input is handed to `load` as a binary chunk (mode `"b"`), so every
//! byte goes through `undump` and the bytecode verifier; whatever they
//! accept is run, with a small instruction limit, and so are the functions
//! it returns, under a 64 MiB memory limit. Errors are fine; a panic, an
//! overflow of the Rust stack or a huge allocation is a bug. Seeds are
//! dumps of real functions (`fuzz/corpus/load_binary`, written by
//! `fuzz/load_binary_seeds.lua`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_vm::raw::{State, Value};

fn run(st: &mut State, f: Value) -> Vec<Value> {
    st.set_instruction_limit(Some(20_000));
    st.call(f, &[Value::Int(1), Value::Int(2), Value::Nil]).unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let mut st = State::new();
    // Memory is bounded as for any untrusted code (a loop doubling a
    // string is legal Lua, whatever its form).
    st.set_memory_limit(Some(64 << 20));
    let env = Value::Table(st.globals());
    let Ok(f) = st.load_with_env(data, b"=fuzz", "b", env) else { return };
    for r in run(&mut st, f).into_iter().take(4) {
        if r.is_function() {
            run(&mut st, r);
        }
    }
});
