//! Binary chunks and the library sets: the sandbox set refuses them (in
//! `load`, with a message, and in the embedding API, with a syntax error),
//! the full set loads them; `tests/conformance/dump.lua` (which needs the
//! string library, absent from the conformance runner's base state) runs
//! here with the full set; load errors carry `ErrorKind::Syntax`.

use luprex_vm::raw::ErrorKind;
use luprex_vm::raw::{State, Value};
use std::path::Path;

fn state(sandbox: bool) -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    if sandbox {
        luprex_stdlib::open_sandbox(&mut st).expect("open_sandbox");
    } else {
        luprex_stdlib::open_full(&mut st).expect("open_full");
    }
    st
}

/// Runs `src` and returns its first result as a string.
fn eval(st: &mut State, src: &str) -> String {
    let f = st.load(src.as_bytes(), b"=test").unwrap_or_else(|e| panic!("load: {e}"));
    let r = st.call(f, &[]).unwrap_or_else(|e| panic!("call: {e}"));
    let v = r.first().copied().unwrap_or(Value::Nil);
    String::from_utf8_lossy(&st.tostring(v)).into_owned()
}

const ROUND_TRIP: &str = r#"
local f, msg = load(string.dump(function(x) return x + 1 end))
if f then return tostring(f(41)) else return msg end
"#;

#[test]
fn sandbox_refuses_binary_chunks() {
    let mut st = state(true);
    assert_eq!(
        eval(&mut st, ROUND_TRIP),
        "attempt to load a binary chunk (binary chunks are disabled)"
    );
    // Text still loads, and the refusal does not depend on the mode.
    assert_eq!(eval(&mut st, "return load('return 7')()"), "7");
    let msg = eval(&mut st, "return select(2, load(string.dump(load('return 1')), nil, 'b'))");
    assert!(msg.contains("binary chunks are disabled"), "{msg}");
    // The embedding API too.
    let d = luprex_compiler_dump_of("return 1");
    let e = st.load(&d, b"=bin").expect_err("refused");
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: false });
}

/// A binary chunk made by a full state.
fn luprex_compiler_dump_of(src: &str) -> Vec<u8> {
    let mut st = state(false);
    let f = st.load(src.as_bytes(), b"=src").expect("compiles");
    st.dump_function(f, false).expect("dumps")
}

#[test]
fn full_set_loads_binary_chunks() {
    let mut st = state(false);
    assert_eq!(eval(&mut st, ROUND_TRIP), "42");
    let d = luprex_compiler_dump_of("return 1 + ...");
    let f = st.load(&d, b"=bin").expect("loads");
    let r = st.call(f, &[Value::Int(2)]).expect("runs");
    assert!(matches!(r.first(), Some(Value::Int(3))), "{r:?}");
    // Rust functions cannot be dumped.
    let print = st.get_global("print");
    assert!(st.dump_function(print, false).is_err());
}

#[test]
fn load_errors_are_syntax_errors() {
    let mut st = state(false);
    let e = st.load(b"x = (", b"=t").expect_err("incomplete");
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: true });
    let e = st.load(b"x = )", b"=t").expect_err("bad");
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: false });
    let e = st.load(b"\x1bLua\x54", b"=t").expect_err("truncated");
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: false });
    assert_eq!(e.to_string(), "t: bad binary format (truncated chunk)");
    let e = st.load_with_env(b"return 1", b"=t", "b", Value::Nil).expect_err("mode");
    assert_eq!(e.to_string(), "attempt to load a text chunk (mode is 'b')");
}

#[test]
fn conformance_script_runs_with_the_full_set() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/dump.lua");
    let src = std::fs::read(path).expect("read dump.lua");
    let mut st = state(false);
    let f = st.load(&src, b"@dump.lua").unwrap_or_else(|e| panic!("{e}"));
    let r = st.call(f, &[]).unwrap_or_else(|e| panic!("dump.lua failed: {e}\n{}", e.traceback()));
    let v = r.first().copied().unwrap_or(Value::Nil);
    assert_eq!(st.tostring(v), b"OK");
    // The script got past its "no string library" guard.
    assert!(matches!(st.get_global("x_dump"), Value::Int(1)));
    st.collect_garbage();
    st.check_heap().expect("heap is consistent");
}
