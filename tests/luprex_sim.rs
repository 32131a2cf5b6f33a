//! `luprex sim` and the headless `luprex play`, as processes: the bots
//! over the deterministic simulated network.
//!
//! What is checked: the same seed gives the same output but for the
//! `time:` lines (the run is a function of the scripts and the seed);
//! twenty bots on the demo world end with no desync (the full 2000-tick
//! figure is in `benches/RESULTS.md`; here fewer ticks keep CI fast); the
//! demo world's own bot (`lua/bot.lua`) and the default bot both play;
//! and `play` without a terminal shows a game happening and exits 0.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn lua() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lua")
}

/// Runs `luprex ARGS` with no terminal; (exit code, stdout).
fn luprex(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_luprex"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("luprex runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty() || out.status.success(), "stderr: {stderr}");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn without_times(s: &str) -> String {
    s.lines().filter(|l| !l.starts_with("time:")).collect::<Vec<_>>().join("\n")
}

#[test]
fn same_seed_same_output_but_the_times() {
    let dir = lua();
    let args = ["sim", dir.to_str().unwrap(), "--clients", "4", "--ticks", "200", "--seed", "7"];
    let (c1, a) = luprex(&args);
    let (c2, b) = luprex(&args);
    assert_eq!((c1, c2), (0, 0), "{a}");
    assert_eq!(without_times(&a), without_times(&b));
    assert!(a.lines().any(|l| l.starts_with("time: per tick")), "{a}");
    assert!(a.contains("/chop@") || a.contains("/mine@"), "the demo's bot works:\n{a}");
    let (_, c) =
        luprex(&["sim", dir.to_str().unwrap(), "--clients", "4", "--ticks", "200", "--seed", "8"]);
    assert_ne!(without_times(&a), without_times(&c), "another seed, another game");
}

#[test]
fn twenty_bots_no_desync() {
    let dir = lua();
    let (code, out) =
        luprex(&["sim", dir.to_str().unwrap(), "--clients", "20", "--ticks", "150", "--quiet"]);
    let summary = out.lines().find(|l| l.starts_with("summary:")).expect("a summary");
    assert!(summary.contains(" 0 desyncs, 0 errors"), "{out}");
    assert_eq!(code, 0);
}

#[test]
fn the_default_bot_without_a_bot_class() {
    let dir = std::env::temp_dir().join(format!("luprex-sim-default-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(lua()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let control = std::fs::read_to_string(dir.join("control.lst")).unwrap();
    let control: String =
        control.lines().filter(|l| *l != "bot.lua").map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("control.lst"), control).unwrap();
    let (code, out) = luprex(&["sim", dir.to_str().unwrap(), "--clients", "3", "--ticks", "300"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" walk "), "{out}");
    // Only methods without arguments: no quoted argument anywhere.
    let invokes: Vec<&str> = out.lines().filter(|l| l.contains(" /")).collect();
    assert!(!invokes.is_empty(), "{out}");
    assert!(invokes.iter().all(|l| !l.contains('"')), "{invokes:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_without_a_terminal_shows_a_game_and_exits_0() {
    let dir = lua();
    let (code, out) = luprex(&["play", dir.to_str().unwrap(), "--ticks", "300"]);
    assert_eq!(code, 0, "{out}");
    for want in
        ["no terminal here", "bot1 joined", "Welcome to Emberfield", "walk ", "crafted a", "you: "]
    {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
}
