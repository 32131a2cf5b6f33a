//! Scenario tests: each directory of `tests/worlds/` is a script
//! directory (`control.lst` and Lua files) whose files assert their own
//! expectations; the Rust test of the same name loads it into Worlds,
//! drives the steps the scenario needs (reloads, edits, other models) and
//! calls the scenario's `check` class.

use luprex_engine::raw::Value;
use luprex_engine::{LoadReport, Model, ReportKind, World};
use std::path::{Path, PathBuf};

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worlds").join(name)
}

/// A World of `model` loaded from scenario `name`, with no load report.
fn load(model: Model, name: &str) -> World {
    let mut w = World::from_dir(model, scenario(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reports = w.take_reports();
    assert!(reports.is_empty(), "{name}: {reports:#?}");
    w
}

/// `check.<f>()` must succeed; returns its first result as a string.
fn check(w: &mut World, f: &str) -> String {
    let r = w.call("check", f, &[]).unwrap_or_else(|e| panic!("check.{f}: {e}\n{}", e.traceback()));
    match r.first() {
        Some(Value::Str(s)) => String::from_utf8_lossy(w.state().str_bytes(*s)).into_owned(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A scratch copy of scenario `name`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, test: &str) -> Scratch {
        let dir = std::env::temp_dir()
            .join(format!("luprex-engine-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(scenario(name)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        Scratch(dir)
    }

    /// Writes file `name` with a modification time distinct from any
    /// earlier write (so its fingerprint changes even on a coarse clock).
    fn write(&self, name: &str, text: &str) {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000);
        let old = std::fs::metadata(&p).unwrap().modified().unwrap();
        f.set_modified(if old == t { t + std::time::Duration::from_secs(1) } else { t }).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn only(reports: &[LoadReport], kind: ReportKind) -> Vec<&LoadReport> {
    reports.iter().filter(|r| r.kind == kind).collect()
}

#[test]
fn classes() {
    let mut w = load(Model::Master, "classes");
    assert_eq!(check(&mut w, "order"), "furnace,torch,lamp,check");
    check(&mut w, "remember");
    w.rebuild().unwrap();
    assert!(w.take_reports().is_empty());
    assert_eq!(check(&mut w, "same"), "true");
    assert_eq!(check(&mut w, "order"), "furnace,torch,lamp,check");
    assert_eq!(w.take_output(), "");
}
