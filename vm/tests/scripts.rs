//! Runs the Lua scripts of `tests/lua/` and compares their output with
//! the `.expected` files (captured from the reference `lua5.4`), then checks
//! the heap's consistency.

use luprex_vm::raw::State;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

#[derive(Clone, Default)]
struct Capture(Rc<RefCell<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Replaces `0x` + hex digits by a placeholder (object identities differ).
fn normalize(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && i + 1 < b.len() && b[i + 1] == b'x' {
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_hexdigit() {
                j += 1;
            }
            if j > i + 6 {
                out.push_str("0xADDR");
                i = j;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn run_script(name: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lua/");
    let src = std::fs::read(format!("{dir}{name}.lua")).unwrap();
    let expected = std::fs::read_to_string(format!("{dir}{name}.expected")).unwrap();
    let cap = Capture::default();
    let mut st = State::new();
    // As the reference's `lua.c`, which the expected outputs come from.
    st.gc_generational(0, 0);
    st.set_stdout(Box::new(cap.clone()));
    let chunk = format!("@vm/tests/lua/{name}.lua");
    if let Err(e) = st.exec(&src, chunk.as_bytes()) {
        panic!("{name}: {e}\n{}", e.traceback());
    }
    st.flush_stdout();
    st.check_heap().unwrap();
    st.collect_garbage();
    st.check_heap().unwrap();
    let got = String::from_utf8_lossy(&cap.0.borrow()).into_owned();
    let (g, x) = (normalize(&got), normalize(&expected));
    if g != x {
        for (n, (a, b)) in g.lines().zip(x.lines()).enumerate() {
            if a != b {
                panic!("{name}: first difference at line {}:\n got: {a}\nwant: {b}", n + 1);
            }
        }
        panic!("{name}: output length differs:\n{g}\n---\n{x}");
    }
}

#[test]
fn coroutines() {
    run_script("coroutines");
}

#[test]
fn errors() {
    run_script("errors");
}

#[test]
fn gc() {
    run_script("gc");
}

#[test]
fn gen_weak() {
    run_script("gen_weak");
}

#[test]
fn close_yield() {
    run_script("close_yield");
}

#[test]
fn meta_returns() {
    run_script("meta_returns");
}
