// Shared by the tests of the VM's in-place paths (`vm/tests/forcall.rs`,
// `stdlib/tests/string_arith.rs`), included with `include!`: each script
// runs twice, once as is and once with a hook set on an idle coroutine,
// which makes every call of the main thread an ordinary call without
// firing anything for it. The including file defines
// `fn state(called: bool) -> State` (a fresh state, with that hook when
// `called`) and `const CHUNK: &[u8]` (the scripts' chunk name).

use luprex_vm::raw::debug::{hookmask, HookEvent};
use luprex_vm::raw::{Error, State, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

fn idle_hook(_: &mut State, _: HookEvent, _: Option<u32>) -> Result<(), Error> {
    Ok(())
}

/// Sets the idle coroutine's hook on `st` (see above).
fn hook_idle_coroutine(st: &mut State) {
    let f = st.exec(b"return function() end", b"=idle").unwrap()[0];
    let co = st.new_thread(f);
    st.set_hook(co, Some(idle_hook), hookmask::CALL | hookmask::LINE, 0);
}

/// What a run gave: its result (or error message, with how far the
/// script got) and the units charged.
#[derive(Debug, PartialEq)]
struct Outcome {
    result: String,
    units: u64,
}

const LIMIT: u64 = 1 << 40;

/// A value as the outcome shows it: a string's bytes, anything else debug.
fn shown(st: &State, v: Value) -> String {
    match v {
        Value::Str(s) => String::from_utf8_lossy(st.str_bytes(s)).into_owned(),
        other => format!("{other:?}"),
    }
}

fn run(src: &str, called: bool, limit: u64) -> Outcome {
    let mut st = state(called);
    st.set_instruction_limit(Some(limit));
    let out = st.exec(src.as_bytes(), CHUNK);
    let units = limit - st.instructions_left().unwrap();
    let result = match out {
        Ok(vals) => vals.iter().map(|&v| shown(&st, v)).collect::<Vec<_>>().join(","),
        Err(e) => format!("error: {}, N = {}", e.message(), global_n(&mut st)),
    };
    Outcome { result, units }
}

/// The global `N` after an error: how far the script got.
fn global_n(st: &mut State) -> String {
    st.set_instruction_limit(None);
    let v = st.exec(b"return tostring(N)", b"=n").expect("reads N")[0];
    shown(st, v)
}

/// Runs `src` in place and called; both must agree. Returns the first.
fn same(src: &str) -> Outcome {
    let inline = run(src, false, LIMIT);
    let called = run(src, true, LIMIT);
    assert_eq!(inline, called, "in place and called differ on:\n{src}");
    inline
}

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn counting_hook(_: &mut State, ev: HookEvent, _: Option<u32>) -> Result<(), Error> {
    if matches!(ev, HookEvent::Call) {
        CALLS.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// The calls a call hook on the running thread sees while `src` runs in
/// `state(false)`.
fn calls_seen(src: &str) -> usize {
    let mut st = state(false);
    let f = st.load(src.as_bytes(), b"=hooked").unwrap();
    let main = st.main_thread();
    st.set_hook(main, Some(counting_hook), hookmask::CALL, 0);
    CALLS.store(0, Ordering::Relaxed);
    st.call_value(f, &[]).unwrap();
    CALLS.load(Ordering::Relaxed)
}
