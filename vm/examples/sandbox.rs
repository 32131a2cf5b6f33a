//! Runs untrusted scripts under limits and prints what stopped each one.
//!
//! ```text
//! cargo run -p luprex-vm --example sandbox              # the built-in scripts
//! cargo run -p luprex-vm --example sandbox -- file.lua  # your own
//! ```
//!
//! Every script gets a fresh state with the base and coroutine libraries,
//! a budget of 5,000,000 charged instructions (deterministic: the same
//! script always stops at the same point), 8 MiB of Lua heap, and a
//! watchdog thread that raises the interrupt flag after two seconds of
//! wall-clock time (the only non-deterministic limit, for hosts that want
//! one). After a script is stopped, the same state runs a normal call to
//! show that it is still usable.

use luprex_vm::raw::ErrorKind;
use luprex_vm::raw::{InterruptHandle, State};
use std::sync::mpsc;
use std::time::Duration;

const INSTRUCTIONS: u64 = 5_000_000;
const MEMORY: usize = 8 << 20;
const WALL_CLOCK: Duration = Duration::from_secs(2);

const SCRIPTS: &[(&str, &str)] = &[
    ("well-behaved", "local s = 0 for i = 1, 1000 do s = s + i end return s"),
    ("infinite loop", "while true do end"),
    ("swallowing pcall", "while true do pcall(function() while true do end end) end"),
    ("runaway recursion", "local function f() return f() end return f()"),
    (
        "coroutine ping-pong",
        "local co = coroutine.wrap(function() while true do coroutine.yield() end end)
         while true do co() end",
    ),
    ("memory hog", "local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end"),
    ("string doubling", "local s = 'x' while true do s = s .. s end"),
    (
        "catch and retry",
        "local keep = {}
         while true do pcall(function() keep[#keep + 1] = {} end) end",
    ),
    ("runtime error", "local t = nil return t.x"),
];

/// Raises the interrupt flag if `done` does not arrive within the
/// wall-clock limit.
fn watchdog(h: InterruptHandle) -> mpsc::Sender<()> {
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if rx.recv_timeout(WALL_CLOCK).is_err() {
            h.interrupt();
        }
    });
    tx
}

/// Runs one script and prints its outcome.
fn run(name: &str, src: &[u8]) {
    let mut st = State::new();
    st.set_instruction_limit(Some(INSTRUCTIONS));
    st.set_memory_limit(Some(MEMORY));
    let handle = st.interrupt_handle();
    let done = watchdog(handle.clone());
    let outcome = st.exec(src, b"=untrusted");
    let _ = done.send(());
    let used = INSTRUCTIONS - st.instructions_left().unwrap_or(0);
    let what = match &outcome {
        Ok(v) => format!("finished, {} result(s)", v.len()),
        Err(e) => match e.kind() {
            ErrorKind::InstructionLimit => "stopped: instruction limit".to_string(),
            ErrorKind::Memory => format!("stopped: memory limit ({e})"),
            ErrorKind::Interrupted => "stopped: interrupted by the watchdog".to_string(),
            _ => format!("failed: {e}"),
        },
    };
    println!(
        "{name:>20}: {what}; {used} instructions charged, {} KiB of heap",
        st.memory_in_use() / 1024
    );
    // The state is still usable once the limits are lifted.
    handle.clear();
    st.set_instruction_limit(Some(INSTRUCTIONS));
    st.set_memory_limit(None);
    if let Err(e) = st.exec(b"return 1 + 1", b"=after") {
        println!("{name:>20}  state unusable afterwards: {e}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        for (name, src) in SCRIPTS {
            run(name, src.as_bytes());
        }
        return;
    }
    for path in &args {
        match std::fs::read(path) {
            Ok(src) => run(path, &src),
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
}
