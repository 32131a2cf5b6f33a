//! Runs the debug library's self-checking scripts, `tests/debug/*.lua`,
//! each in a fresh state with the full library set (`open_full`; the root
//! package's `tests/conformance/` harness opens only the base libraries).
//! A script passes when it returns the string "OK"; every script also
//! passes under Debian's `lua5.4` (run them from `tests/debug/`, since a
//! few assertions look at the chunk name `debug.lua`).

use luprex_vm::raw::{State, Value};
use std::path::Path;

fn run_script(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/debug");
    let source = std::fs::read(dir.join(format!("{name}.lua"))).expect("read script");
    let mut st = State::new();
    luprex_stdlib::open_full(&mut st).expect("open_full");
    st.set_stdout(Box::new(std::io::sink()));
    let chunkname = format!("@{name}.lua");
    let f = match st.load(&source, chunkname.as_bytes()) {
        Ok(f) => f,
        Err(e) => panic!("{name}.lua does not compile: {e}"),
    };
    let results = match st.call(f, &[]) {
        Ok(r) => r,
        Err(e) => panic!("{name}.lua failed: {e}\n{}", e.traceback()),
    };
    let first = results.first().copied().unwrap_or(Value::Nil);
    assert_eq!(st.tostring(first), b"OK", "{name}.lua did not return \"OK\"");
    st.check_heap().unwrap_or_else(|e| panic!("{name}.lua: heap inconsistent: {e}"));
}

#[test]
fn debug_library() {
    run_script("debug");
}

#[test]
fn debug_hooks() {
    run_script("debug_hooks");
}

#[test]
fn line_hooks() {
    run_script("line_hooks");
}
