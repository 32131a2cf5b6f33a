//! `luprex check DIR`: is this script directory fit to serve?
//!
//! It does what a server does when it starts on a fresh world, and nothing
//! more: a master `World` loads the directory through `ScriptDir` (reads
//! `control.lst`, reads and compiles every listed file, runs them all in
//! order: a class rebuild), then starts (every class's `init`). Every
//! problem the engine reports on the way is a finding: a file that
//! `control.lst` lists but cannot be read or is listed twice (reported at
//! its `control.lst` line), a syntax error, an error raised while a file
//! runs or in an `init` (with its traceback), a non-class left in the
//! environment. Each is printed to stderr, starting with `file:line:`
//! where the engine knows the line; a summary goes to stdout. The exit
//! code is 0 for a clean directory and 1 otherwise; a directory without a
//! readable `control.lst` is an error of the run (exit 2).
//!
//! The formatting of findings is a pure function of the engine's
//! `LoadReport`s, so it is tested without files.

use anyhow::Context;
use luprex_engine::{LoadReport, Model, ReportKind, World};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `luprex check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The script directory (holding control.lst).
    pub dir: PathBuf,
}

/// Checks `args.dir`; exit code 0 if clean, 1 if anything was reported.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (files, reports) = load(&args.dir)?;
    for r in &reports {
        eprint!("{}", finding(r));
    }
    let dir = args.dir.display();
    if reports.is_empty() {
        println!("{dir}: {files} files, no errors");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{dir}: {files} files, {} errors", reports.len());
        Ok(ExitCode::from(1))
    }
}

/// Loads and starts a master World on `dir`: the number of sources it
/// holds and every report.
fn load(dir: &std::path::Path) -> anyhow::Result<(usize, Vec<LoadReport>)> {
    let mut w = World::from_dir(Model::Master, dir)
        .with_context(|| format!("cannot load script directory {}", dir.display()))?;
    tracing::info!(dir = %dir.display(), "loaded");
    let reports = w.take_reports();
    Ok((w.sources().len(), reports))
}

/// One finding as printed: the message (prefixed with the file when the
/// message does not start with a position), then the traceback indented.
fn finding(r: &LoadReport) -> String {
    let mut out = match r.kind {
        ReportKind::Environment => format!("environment: global '{}': {}\n", r.file, r.message),
        _ if r.message.starts_with(&r.file) || r.message.starts_with("control.lst:") => {
            format!("{}\n", r.message)
        }
        _ => format!("{}: {}\n", r.file, r.message),
    };
    for line in r.traceback.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(kind: ReportKind, file: &str, message: &str, traceback: &str) -> LoadReport {
        let (file, message, traceback) = (file.into(), message.into(), traceback.into());
        LoadReport { file, line: None, kind, message, traceback }
    }

    #[test]
    fn findings_start_with_their_position() {
        let r = report(ReportKind::Syntax, "a.lua", "a.lua:3: unexpected symbol", "");
        assert_eq!(finding(&r), "a.lua:3: unexpected symbol\n");
        let r = report(ReportKind::Read, "b.lua", "control.lst:7: cannot read 'b.lua': gone", "");
        assert_eq!(finding(&r), "control.lst:7: cannot read 'b.lua': gone\n");
        let r = report(ReportKind::Run, "c.lua", "util.lua:2: boom", "stack:\n  c.lua:1");
        assert_eq!(finding(&r), "c.lua: util.lua:2: boom\n    stack:\n      c.lua:1\n");
        let r = report(ReportKind::Environment, "x", "not a class; removed", "");
        assert_eq!(finding(&r), "environment: global 'x': not a class; removed\n");
    }
}
