//! The child side of the runner (`--one FILE`): runs one file of the suite
//! in a fresh luprex state (base library plus `luprex_stdlib::open_full`)
//! in the current directory, with `_soft` and `_port` set as `all.lua`
//! expects, and reports an uncaught error on stderr as one line starting
//! with [`ERROR_MARK`], followed by the traceback.
//!
//! The file is loaded as `luaL_loadfile` would (chunk name `@FILE`, BOM and
//! `#` line skipped), after the ignore list's cuts are applied.

use crate::plan::Plan;
use anyhow::{Context, Result};
use luprex_vm::raw::{State, Value};
use std::io::Write;

/// Prefix of the error line the parent looks for.
pub const ERROR_MARK: &str = "luprex-conformance: error: ";

/// Runs `file`; returns whether it ran to the end without error.
pub fn run_one(file: &str, plan: &Plan) -> Result<bool> {
    let source = std::fs::read(file).with_context(|| format!("cannot read {file}"))?;
    let source = plan.apply_cuts(file, &source)?;
    let text = luprex_stdlib::package::chunk_text(&source, true);
    let mut st = State::new();
    luprex_stdlib::open_full(&mut st).map_err(|e| anyhow::anyhow!("open_full: {e}"))?;
    // As lua.c: the standalone interpreter collects in generational mode.
    st.gc_generational(0, 0);
    let g = plan.globals_for(file);
    st.set_global("_soft", Value::Bool(g.soft));
    st.set_global("_port", Value::Bool(g.port));
    set_arg(&mut st, file);
    let chunkname = format!("@{file}");
    let result = match st.load(&text, chunkname.as_bytes()) {
        Ok(f) => st.call(f, &[]).map(|_| ()),
        Err(e) => Err(e),
    };
    st.flush_stdout();
    match result {
        Ok(()) => {
            drop(st);
            Ok(true)
        }
        Err(e) => {
            let msg = e.to_string();
            let (first, rest) = msg.split_once('\n').unwrap_or((&msg, ""));
            let mut err = std::io::stderr();
            let _ = writeln!(err, "{ERROR_MARK}{first}{}", location_hint(first, e.traceback()));
            if !rest.is_empty() {
                let _ = writeln!(err, "{rest}");
            }
            let _ = writeln!(err, "{}", e.traceback());
            Ok(false)
        }
    }
}

/// The interpreter to name as `arg[-1]`: `luprex-lua` next to this
/// executable (same target directory) if it exists.
fn interpreter() -> String {
    let exe = std::env::current_exe().ok();
    let sibling = exe.as_deref().and_then(|e| e.parent()).map(|d| d.join("luprex-lua"));
    match sibling {
        Some(p) if p.exists() => p.to_string_lossy().into_owned(),
        _ => "luprex-lua".to_owned(),
    }
}

/// The `arg` table of a `lua FILE` command line.
fn set_arg(st: &mut State, file: &str) {
    let t = st.new_table();
    let prog = st.new_string(interpreter().as_bytes());
    st.table_set(t, Value::Int(-1), prog);
    let f = st.new_string(file.as_bytes());
    st.table_set(t, Value::Int(0), f);
    st.set_global("arg", t);
}

/// For a message without a position (`assertion failed!`), ` (at F:L)`
/// with the first Lua frame of the traceback; empty otherwise.
fn location_hint(first: &str, traceback: &str) -> String {
    let has_position = first.split(':').nth(1).is_some_and(|l| l.parse::<u32>().is_ok());
    if has_position {
        return String::new();
    }
    traceback
        .lines()
        .map(str::trim)
        .find(|l| !l.starts_with("[C]") && !l.starts_with("stack traceback"))
        .and_then(|l| l.split(": in ").next())
        .map_or(String::new(), |at| format!(" (at {at})"))
}
