//! `luprex-conformance`: runs the official Lua 5.4.4 test suite (the
//! `lua-5.4.4-tests` tarball from lua.org, unpacked; its `testes/`
//! directory is the argument) against luprex.
//!
//! ```text
//! cargo run --release -p luprex-conformance -- [OPTIONS] DIR [FILE...]
//!   --ignore PATH    ignore list (default: tests/lua-suite-ignore.toml)
//!   --timeout SECS   per-file time limit (default 300)
//!   --mem-limit MB   per-file address-space limit (default 8192, 0 = none)
//!   --verbose        let the files' own output through
//!   --no-fail        exit 0 even when files fail
//! ```
//!
//! Each `*.lua` file directly in DIR (or each FILE named) runs in its own
//! child process — this same binary re-invoked with the hidden flag
//! `--one FILE` (see `child.rs`) — with DIR as working directory, a time
//! limit, and an address-space limit set through `/bin/sh`'s `ulimit -v`,
//! so a crash, hang or runaway allocation of one file does not stop the
//! run. A file PASSes when it runs to its end without an uncaught error.
//!
//! The output is one line per file (`PASS`/`FAIL`/`SKIP`, the time, a
//! note when sections were cut, and for a failure its first error line,
//! for a skip its reason), then the
//! closing line `N passed, N failed, N skipped`. The exit status is 1 when
//! a file failed (unless `--no-fail`).

mod child;
mod plan;

use anyhow::{bail, Context, Result};
use plan::Plan;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Command-line options of the parent.
struct Options {
    dir: PathBuf,
    files: Vec<String>,
    ignore: Option<PathBuf>,
    timeout: Duration,
    mem_limit_mb: u64,
    verbose: bool,
    no_fail: bool,
}

/// How one file ended.
enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

fn usage() -> &'static str {
    "usage: luprex-conformance [--ignore PATH] [--timeout SECS] [--mem-limit MB] \
     [--verbose] [--no-fail] DIR [FILE...]"
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        dir: PathBuf::new(),
        files: Vec::new(),
        ignore: None,
        timeout: Duration::from_secs(300),
        mem_limit_mb: 8192,
        verbose: false,
        no_fail: false,
    };
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next().cloned().with_context(|| format!("'{name}' needs a value\n{}", usage()))
        };
        match a.as_str() {
            "--ignore" => o.ignore = Some(PathBuf::from(value("--ignore")?)),
            "--timeout" => o.timeout = Duration::from_secs_f64(value("--timeout")?.parse()?),
            "--mem-limit" => o.mem_limit_mb = value("--mem-limit")?.parse()?,
            "--verbose" => o.verbose = true,
            "--no-fail" => o.no_fail = true,
            s if s.starts_with("--") => bail!("unknown option '{s}'\n{}", usage()),
            _ => positional.push(a.clone()),
        }
    }
    let Some((dir, files)) = positional.split_first() else { bail!("{}", usage()) };
    o.dir = PathBuf::from(dir);
    o.files = files.to_vec();
    Ok(o)
}

/// The default ignore list: `tests/lua-suite-ignore.toml` of the workspace.
fn default_ignore() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lua-suite-ignore.toml");
    p.exists().then_some(p)
}

/// The `*.lua` files directly in `dir`, sorted.
fn list_files(dir: &Path) -> Result<Vec<String>> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.ends_with(".lua"))
        .collect();
    v.sort();
    Ok(v)
}

/// The child command for `file`, under `ulimit -v` when a limit is set.
fn child_command(o: &Options, dir: &Path, ignore: Option<&Path>, file: &str) -> Result<Command> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut args: Vec<std::ffi::OsString> = vec![exe.into(), "--one".into(), file.into()];
    if let Some(p) = ignore {
        args.push("--ignore".into());
        args.push(std::fs::canonicalize(p)?.into());
    }
    let mut cmd = if o.mem_limit_mb > 0 {
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg("ulimit -v \"$1\" && shift && exec \"$@\"").arg("sh");
        c.arg((o.mem_limit_mb * 1024).to_string());
        c.args(&args);
        c
    } else {
        let mut c = Command::new(&args[0]);
        c.args(&args[1..]);
        c
    };
    cmd.current_dir(dir).stdin(Stdio::null()).stderr(Stdio::piped());
    cmd.stdout(if o.verbose { Stdio::inherit() } else { Stdio::null() });
    Ok(cmd)
}

/// The first error line of a failed child's stderr.
fn first_error(stderr: &str, status: std::process::ExitStatus) -> String {
    if let Some(l) = stderr.lines().find_map(|l| l.strip_prefix(child::ERROR_MARK)) {
        return l.to_owned();
    }
    if let Some(l) = stderr.lines().find(|l| l.contains("panicked") || l.contains("overflow")) {
        return l.trim().to_owned();
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(sig)) => format!("killed by signal {sig}"),
        (Some(c), _) => format!("exit status {c}"),
        _ => "failed".to_owned(),
    }
}

/// Runs one file in a child process.
fn run_child(o: &Options, dir: &Path, ignore: Option<&Path>, file: &str) -> Result<Outcome> {
    let mut child = child_command(o, dir, ignore, file)?.spawn().context("cannot start child")?;
    let mut pipe = child.stderr.take().context("no stderr pipe")?;
    let verbose = o.verbose;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if verbose {
            eprint!("{text}");
        }
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() > o.timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = reader.join().unwrap_or_default();
    Ok(match status {
        None => Outcome::Fail(format!("timeout after {:.0}s", o.timeout.as_secs_f64())),
        Some(s) if s.success() => Outcome::Pass,
        Some(s) => Outcome::Fail(first_error(&stderr, s)),
    })
}

/// The parent: runs every file and prints the report.
fn run_all(o: &Options) -> Result<bool> {
    let ignore = o.ignore.clone().or_else(default_ignore);
    let plan = match &ignore {
        Some(p) => Plan::load(p)?,
        None => Plan::default(),
    };
    let files = if o.files.is_empty() { list_files(&o.dir)? } else { o.files.clone() };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for file in &files {
        let start = Instant::now();
        let outcome = match plan.skips.get(file) {
            Some(reason) => Outcome::Skip(reason.clone()),
            None if file == "all.lua" => run_all_lua(o, &plan, ignore.as_deref())?,
            None => run_child(o, &o.dir, ignore.as_deref(), file)?,
        };
        let secs = format!("{:.2}s", start.elapsed().as_secs_f64());
        let note = match plan.cuts.get(file).map_or(0, Vec::len) {
            0 => String::new(),
            1 => " [1 section cut]".to_owned(),
            n => format!(" [{n} sections cut]"),
        };
        match outcome {
            Outcome::Pass => {
                passed += 1;
                println!("PASS  {file:<16} {secs:>8}{note}");
            }
            Outcome::Fail(msg) => {
                failed += 1;
                println!("FAIL  {file:<16} {secs:>8}{note}  {msg}");
            }
            Outcome::Skip(reason) => {
                skipped += 1;
                println!("SKIP  {file:<16} {:>8}  {reason}", "-");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    Ok(failed == 0 || o.no_fail)
}

/// `all.lua`, the suite's own driver, which `dofile`s every test file
/// after dumping and reloading it: run in a staged copy of the directory
/// whose `.lua` files have the ignore list's cuts applied (so it sees the
/// same files the per-file runs do), in a temporary directory removed
/// afterwards.
fn run_all_lua(o: &Options, plan: &Plan, ignore: Option<&Path>) -> Result<Outcome> {
    let stage = std::env::temp_dir().join(format!("luprex-suite-{}", std::process::id()));
    std::fs::create_dir_all(&stage)
        .with_context(|| format!("cannot create {}", stage.display()))?;
    let result = stage_and_run(o, plan, ignore, &stage);
    let _ = std::fs::remove_dir_all(&stage);
    result
}

fn stage_and_run(o: &Options, plan: &Plan, ignore: Option<&Path>, stage: &Path) -> Result<Outcome> {
    for entry in std::fs::read_dir(&o.dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        let bytes = if name.ends_with(".lua") { plan.apply_cuts(name, &bytes)? } else { bytes };
        std::fs::write(stage.join(name), bytes)?;
    }
    run_child(o, stage, ignore, "all.lua")
}

/// The child: `--one FILE [--ignore PATH]`.
fn one(args: &[String]) -> Result<bool> {
    let Some(file) = args.first() else { bail!("'--one' needs a file") };
    let plan = match args.get(1).map(String::as_str) {
        Some("--ignore") => match args.get(2) {
            Some(p) => Plan::load(Path::new(p))?,
            None => bail!("'--ignore' needs a value"),
        },
        _ => Plan::default(),
    };
    child::run_one(file, &plan)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("--one") => one(&args[1..]),
        _ => parse_args(&args).and_then(|o| run_all(&o)),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("luprex-conformance: {e:#}");
            ExitCode::from(2)
        }
    }
}
