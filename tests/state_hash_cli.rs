//! `luprex-lua --state-hash`: the printed hash is the same in separate
//! processes for the same script, and changes when the final state does.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_luprex-lua"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run luprex-lua");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

#[test]
fn same_script_same_hash_in_two_processes() {
    let script = "lua/demo.lua";
    let (ok1, out1) = run(&["--state-hash", script]);
    let (ok2, out2) = run(&["--state-hash", script]);
    assert!(ok1 && ok2);
    let h = last_line(&out1);
    assert_eq!(h.len(), 32, "{out1}");
    assert!(h.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(out1, out2);
}

#[test]
fn random_is_seeded_and_state_changes_change_the_hash() {
    let prog = "t = {} for i = 1, 100 do t[i] = math.random(1000) end";
    let (_, a) = run(&["--state-hash", "-e", prog]);
    let (_, b) = run(&["--state-hash", "-e", prog]);
    assert_eq!(a, b, "math.random must be seeded deterministically");
    let (_, c) = run(&["--state-hash", "-e", &format!("{prog} t[50] = -1")]);
    assert_ne!(last_line(&a), last_line(&c));
    let (_, d) = run(&["--state-hash", "-e", &format!("{prog} x = 1")]);
    assert_ne!(last_line(&a), last_line(&d));
}

#[test]
fn no_hash_after_an_error() {
    let (ok, out) = run(&["--state-hash", "-e", "error('boom')"]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
}
