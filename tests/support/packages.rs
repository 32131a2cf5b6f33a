//! Debian packages a test drives (tmux, chromium), installed when missing.
//!
//! The README's test command must work on a fresh machine that has only
//! the Rust toolchain, so a test that needs a program from Debian's
//! packages installs it itself, as `.ci/run` does (`apt-get install`, as
//! root or through `sudo`). When that is impossible (no apt, no rights, no
//! network), the test fails and says what to install: it never passes
//! without having run.

use std::path::Path;
use std::process::Command;

/// Makes sure every `(program, package)` is there: a program is a path
/// (`/usr/bin/chromium`) or a name looked up on `PATH`. Returns an error
/// naming what is missing if installing failed.
pub fn ensure(needs: &[(&str, &str)]) -> Result<(), String> {
    let missing: Vec<&str> =
        needs.iter().filter(|(prog, _)| !present(prog)).map(|&(_, pkg)| pkg).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let apt = |args: &[&str]| {
        let mut c = if root { Command::new("apt-get") } else { Command::new("sudo") };
        if !root {
            c.args(["-n", "apt-get"]);
        }
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c.status().is_ok_and(|s| s.success())
    };
    eprintln!("installing {} (apt-get)", missing.join(" "));
    let mut install = vec!["install", "-y", "-qq"];
    install.extend(&missing);
    let ok = apt(&["update", "-qq"]) && apt(&install);
    let still: Vec<&str> =
        needs.iter().filter(|(prog, _)| !present(prog)).map(|&(_, pkg)| pkg).collect();
    match (ok, still.is_empty()) {
        (_, true) => Ok(()),
        _ => Err(format!(
            "this test needs the Debian packages {} (apt-get install {}); installing them failed",
            still.join(" "),
            still.join(" ")
        )),
    }
}

fn present(prog: &str) -> bool {
    if prog.contains('/') {
        return Path::new(prog).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}
