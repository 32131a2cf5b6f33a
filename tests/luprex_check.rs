//! `luprex check DIR`, run as a scripter runs it: the real binary, a real
//! directory. The demo world is clean (exit 0); a broken directory gets
//! every problem reported with its file and line (control.lst problems
//! with their control.lst line) and a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn check(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_luprex")).arg("check").arg(dir).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_demo_world_checks_clean() {
    let lua = Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
    let out = check(&lua);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.ends_with("11 files, no errors\n"), "{stdout}");
    assert_eq!(stderr, "");
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn broken_dir() -> Scratch {
    let dir = std::env::temp_dir().join(format!("luprex-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("control.lst", "# a broken world\nok.lua\nsyntax.lua\n\nmissing.lua\nruns.lua\nok.lua\n"),
        ("ok.lua", "local ok = makeclass('ok')\nfunction ok.init() error('init failed') end\n"),
        ("syntax.lua", "local x = 1\nlocal y = = 2\n"),
        ("runs.lua", "makeclass('runs')\n\ncounter = 0\n"),
    ];
    for (name, code) in files {
        std::fs::write(dir.join(name), code).unwrap();
    }
    Scratch(dir)
}

#[test]
fn a_broken_directory_reports_every_error_with_file_and_line() {
    let dir = broken_dir();
    let out = check(&dir.0);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.ends_with("3 files, 5 errors\n"), "{stdout}");
    let firsts: Vec<&str> = stderr.lines().filter(|l| !l.starts_with(' ')).collect();
    let want = [
        "control.lst:5: cannot read 'missing.lua'",
        "control.lst:7: 'ok.lua' is listed twice; loaded once",
        "syntax.lua:2: ",
        "runs.lua:3: cannot assign global 'counter'",
        "ok.lua:2: init failed",
    ];
    assert_eq!(firsts.len(), want.len(), "{stderr}");
    for (line, want) in firsts.iter().zip(want) {
        assert!(line.starts_with(want), "{line:?} should start with {want:?}\n{stderr}");
    }
    assert!(stderr.contains("    stack traceback:"), "run errors carry a traceback: {stderr}");
}

#[test]
fn a_directory_without_control_lst_is_an_error() {
    let out = check(Path::new("/nonexistent/luprex-dir"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("luprex: cannot load script directory /nonexistent/luprex-dir"));
    assert!(stderr.contains("control.lst"), "{stderr}");
}
