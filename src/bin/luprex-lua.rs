//! `luprex-lua`: the standalone interpreter, a drop-in for the `lua` command.
//!
//! It follows lua.c closely: the same options (`-e stat`, `-l mod`, `-i`,
//! `-v`, `-E`, `-W`, `--`, `-`), the same `arg` table (script at index 0,
//! interpreter and options at negative indices, script arguments at 1..n,
//! and the same arguments passed to the script as `...`), `LUA_INIT_5_4` /
//! `LUA_INIT`, the interactive prompt when no script is given and stdin is a
//! terminal, and the same reporting: an uncaught error prints
//! `luprex-lua: message` plus a stack traceback to stderr and exits with 1.
//!
//! Two extensions: `luprex-lua --list file.lua` prints the bytecode listing
//! of the file instead of running it, and `--state-hash` (before the other
//! options) prints the VM's 128-bit state hash (`State::state_hash`) as 32
//! hex digits on a line of its own after the script ends successfully. With
//! `--state-hash`, `math.random` is seeded with 0 before anything runs, so
//! the same script with the same arguments and input prints the same hash in
//! any process on any machine (unless it reads the clock or the
//! environment). `--gc-stats` prints the collector's counts (major and
//! minor collections, `State::gc_stats`) to stderr after the script ends,
//! for profiling (`docs/PROFILING.md`).

#[path = "../malloc_tune.rs"]
mod malloc_tune;

use std::ffi::OsString;
use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{bail, Context};
use luprex_vm::raw::{State, Value};

const PROGNAME: &str = "luprex-lua";

/// What the command line asks for (lua.c's `collectargs`).
#[derive(Default)]
struct Options {
    interactive: bool,
    version: bool,
    ignore_env: bool,
    warnings: bool,
    has_exec: bool,
    /// `--state-hash`: print the state hash at the end.
    state_hash: bool,
    /// `--gc-stats`: print the collector's counts at the end.
    gc_stats: bool,
    /// Index in argv of the script (`-` for stdin), if any.
    script: Option<usize>,
}

fn usage(badoption: &str) {
    if badoption.starts_with("-e") || badoption.starts_with("-l") {
        eprintln!("{PROGNAME}: '{badoption}' needs argument");
    } else {
        eprintln!("{PROGNAME}: unrecognized option '{badoption}'");
    }
    eprintln!(
        "usage: {PROGNAME} [options] [script [args]]\n\
         Available options are:\n  \
         -e stat   execute string 'stat'\n  \
         -i        enter interactive mode after executing 'script'\n  \
         -l mod    require library 'mod' into global 'mod'\n  \
         -l g=mod  require library 'mod' into global 'g'\n  \
         -v        show version information\n  \
         -E        ignore environment variables\n  \
         -W        turn warnings on\n  \
         --list f  print the bytecode listing of file 'f'\n  \
         --state-hash  print the VM state hash after the script (seeds math.random with 0)\n  \
         --gc-stats    print the counts of collections to stderr after the script\n  \
         --        stop handling options\n  \
         -         stop handling options and execute stdin"
    );
}

fn collect_args(argv: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if !a.starts_with('-') {
            o.script = Some(i);
            return Ok(o);
        }
        match a {
            "-" => {
                o.script = Some(i);
                return Ok(o);
            }
            "--" => {
                if i + 1 < argv.len() {
                    o.script = Some(i + 1);
                }
                return Ok(o);
            }
            "--state-hash" => o.state_hash = true,
            "--gc-stats" => o.gc_stats = true,
            "-E" => o.ignore_env = true,
            "-W" => o.warnings = true,
            "-i" => {
                o.interactive = true;
                o.version = true;
            }
            "-v" => o.version = true,
            _ if a.starts_with("-e") || a.starts_with("-l") => {
                if a.starts_with("-e") {
                    o.has_exec = true;
                }
                if a.len() == 2 {
                    i += 1;
                    if i >= argv.len() || argv[i].starts_with('-') {
                        return Err(a.to_owned());
                    }
                }
            }
            _ => return Err(a.to_owned()),
        }
        i += 1;
    }
    Ok(o)
}

fn print_version() {
    println!("Luprex-lua {} (Lua 5.4 language)", env!("CARGO_PKG_VERSION"));
}

/// Prints an error as lua.c's `l_message` does, after flushing what the
/// program printed so the two streams interleave as they were produced.
fn report(state: &mut State, msg: &str) {
    state.flush_stdout();
    let _ = io::stdout().flush();
    eprintln!("{PROGNAME}: {msg}");
    let _ = io::stderr().flush();
}

/// The message of an uncaught error: its value, which [`msghandler`]
/// made a string with the traceback.
fn error_text(e: &luprex_vm::Error) -> String {
    e.to_string()
}

/// lua.c's `msghandler`: the error message (or the `__tostring` of an error
/// object, or `(error object is a X value)`) with a traceback appended. As
/// in lua.c, it runs before to-be-closed variables are closed, which
/// receive this value.
fn msghandler(state: &mut State, v: Value) -> Value {
    let msg = match v {
        Value::Str(_) | Value::Int(_) | Value::Float(_) => state.tostring(v),
        _ => {
            if state.get_metafield(v, b"__tostring").is_some() {
                let s = state.tostring(v);
                return state.new_string(&s);
            }
            format!("(error object is a {} value)", v.type_name()).into_bytes()
        }
    };
    let tb = state.traceback(Some(&String::from_utf8_lossy(&msg)), 0, true);
    state.new_string(tb.as_bytes())
}

/// Calls `f(args)` as lua.c's `docall` does: with [`msghandler`].
fn pcall_main(state: &mut State, f: Value, args: &[Value]) -> Result<Vec<Value>, luprex_vm::Error> {
    state.call_msgh(f, args, Some(msghandler))
}

/// Runs a loaded chunk with arguments; reports errors. Returns success.
fn docall(state: &mut State, f: Value, args: &[Value]) -> bool {
    match pcall_main(state, f, args) {
        Ok(_) => true,
        Err(e) => {
            report(state, &error_text(&e));
            false
        }
    }
}

fn dochunk(state: &mut State, source: &[u8], chunkname: &str) -> bool {
    match state.load(source, chunkname.as_bytes()) {
        Ok(f) => docall(state, f, &[]),
        Err(e) => {
            report(state, &e.to_string());
            false
        }
    }
}

/// Reads a script file as luaL_loadfilex does: a UTF-8 BOM and a first line
/// starting with `#` are skipped (the newline is kept so lines stay right).
fn read_script(path: Option<&str>) -> Result<Vec<u8>, String> {
    let mut data = match path {
        None => {
            let mut buf = Vec::new();
            io::Read::read_to_end(&mut io::stdin(), &mut buf)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            buf
        }
        Some(p) => std::fs::read(p).map_err(|e| {
            let reason = match e.kind() {
                io::ErrorKind::NotFound => "No such file or directory".to_owned(),
                io::ErrorKind::PermissionDenied => "Permission denied".to_owned(),
                _ => e.to_string(),
            };
            format!("cannot open {p}: {reason}")
        })?,
    };
    if data.starts_with(b"\xEF\xBB\xBF") {
        data.drain(..3);
    }
    if data.first() == Some(&b'#') {
        let end = data.iter().position(|&c| c == b'\n').unwrap_or(data.len());
        data.drain(..end);
    }
    Ok(data)
}

fn create_arg_table(state: &mut State, argv: &[String], script: usize) {
    let t = state.new_table();
    for (i, a) in argv.iter().enumerate() {
        let k = Value::Int(i as i64 - script as i64);
        let v = state.new_string(a.as_bytes());
        state.table_set(t, k, v);
    }
    state.set_global("arg", t);
}

fn handle_luainit(state: &mut State) -> bool {
    let (name, val) = match std::env::var_os("LUA_INIT_5_4") {
        Some(v) => ("=LUA_INIT_5_4", v),
        None => match std::env::var_os("LUA_INIT") {
            Some(v) => ("=LUA_INIT", v),
            None => return true,
        },
    };
    let val = val.to_string_lossy().into_owned();
    match val.strip_prefix('@') {
        Some(file) => dofile(state, Some(file)),
        None => dochunk(state, val.as_bytes(), name),
    }
}

fn dofile(state: &mut State, path: Option<&str>) -> bool {
    match read_script(path) {
        Ok(src) => {
            let chunkname = match path {
                Some(p) => format!("@{p}"),
                None => "=stdin".to_owned(),
            };
            dochunk(state, &src, &chunkname)
        }
        Err(msg) => {
            report(state, &msg);
            false
        }
    }
}

/// `-l mod` / `-l g=mod`: `g = require(mod)`.
fn dolibrary(state: &mut State, spec: &str) -> bool {
    let (global, module) = match spec.split_once('=') {
        Some((g, m)) => (g.to_owned(), m.to_owned()),
        None => (spec.split('-').next().unwrap_or(spec).to_owned(), spec.to_owned()),
    };
    let require = state.get_global("require");
    if require.is_nil() {
        report(state, &format!("module '{module}' not found: 'require' is not available"));
        return false;
    }
    let m = state.new_string(module.as_bytes());
    match pcall_main(state, require, &[m]) {
        Ok(res) => {
            let v = res.first().copied().unwrap_or(Value::Nil);
            state.set_global(&global, v);
            true
        }
        Err(e) => {
            report(state, &error_text(&e));
            false
        }
    }
}

/// Executes the `-e` and `-l` options in order (lua.c's `runargs`).
fn run_args(state: &mut State, argv: &[String], upto: usize) -> bool {
    let mut i = 1;
    while i < upto {
        let a = argv[i].as_str();
        if a.starts_with("-e") || a.starts_with("-l") {
            let extra = if a.len() > 2 {
                a[2..].to_owned()
            } else {
                i += 1;
                argv[i].clone()
            };
            let ok = if a.starts_with("-e") {
                dochunk(state, extra.as_bytes(), "=(command line)")
            } else {
                dolibrary(state, &extra)
            };
            if !ok {
                return false;
            }
        }
        i += 1;
    }
    true
}

fn run_script(state: &mut State, argv: &[String], script: usize) -> bool {
    let name = argv[script].as_str();
    let path = if name == "-" && argv.get(script - 1).map(String::as_str) != Some("--") {
        None
    } else {
        Some(name)
    };
    let src = match read_script(path) {
        Ok(s) => s,
        Err(msg) => {
            report(state, &msg);
            return false;
        }
    };
    let chunkname = match path {
        Some(p) => format!("@{p}"),
        None => "=stdin".to_owned(),
    };
    let f = match state.load(&src, chunkname.as_bytes()) {
        Ok(f) => f,
        Err(e) => {
            report(state, &e.to_string());
            return false;
        }
    };
    // As lua.c's `pushargs`: the script receives `arg[1..#arg]`, as left by
    // any `-e` options that ran before it.
    let arg = state.get_global("arg");
    if !matches!(arg, Value::Table(_)) {
        report(state, "'arg' is not a table");
        return false;
    }
    let n = match state.len_value(arg) {
        Ok(Value::Int(n)) => n,
        _ => 0,
    };
    let args: Vec<Value> = (1..=n).map(|i| state.table_get(arg, Value::Int(i))).collect();
    docall(state, f, &args)
}

/// Whether a compile error means "the statement is not finished yet".
fn incomplete(e: &luprex_vm::Error) -> bool {
    e.to_string().ends_with("<eof>")
}

/// The interactive loop (lua.c's `doREPL`).
fn repl(state: &mut State) {
    let mut lines = io::stdin().lock().lines();
    // lua.c's `get_prompt`: the global `_PROMPT` / `_PROMPT2` if set.
    let prompt = |state: &mut State, first: bool| {
        let (name, default) = if first { ("_PROMPT", "> ") } else { ("_PROMPT2", ">> ") };
        let v = state.get_global(name);
        let p = if v.is_nil() { default.as_bytes().to_vec() } else { state.tostring(v) };
        state.flush_stdout();
        let mut out = io::stdout();
        let _ = out.write_all(&p);
        let _ = out.flush();
    };
    // Like a `lua` built with readline (Debian's), echo the lines read
    // when stdin is not a terminal, so a transcript shows prompt and input.
    let echo = !io::stdin().is_terminal();
    let mut next_line = move |state: &mut State| {
        let line = lines.next()?.ok()?;
        if echo {
            state.write_stdout(line.as_bytes());
            state.write_stdout(b"\n");
        }
        Some(line)
    };
    loop {
        prompt(state, true);
        let Some(mut first) = next_line(state) else { break };
        // lua.c's `pushline`: a first line starting with '=' means 'return'.
        if let Some(rest) = first.strip_prefix('=') {
            first = format!("return {rest}");
        }
        // First try the line as an expression, as `return <line>`.
        let as_expr = format!("return {first}");
        let loaded = match state.load(as_expr.as_bytes(), b"=stdin") {
            Ok(f) => Ok(f),
            Err(_) => {
                let mut buffer = first.clone();
                loop {
                    match state.load(buffer.as_bytes(), b"=stdin") {
                        Err(e) if incomplete(&e) => {
                            prompt(state, false);
                            match next_line(state) {
                                Some(more) => {
                                    buffer.push('\n');
                                    buffer.push_str(&more);
                                }
                                _ => break Err(e),
                            }
                        }
                        other => break other,
                    }
                }
            }
        };
        match loaded {
            Err(e) => report(state, &e.to_string()),
            Ok(f) => match pcall_main(state, f, &[]) {
                Err(e) => report(state, &error_text(&e)),
                Ok(results) if !results.is_empty() => {
                    let print = state.get_global("print");
                    if let Err(e) = state.call(print, &results) {
                        report(state, &format!("error calling 'print' ({e})"));
                    }
                }
                Ok(_) => {}
            },
        }
    }
    println!();
}

fn list(path: &str) -> anyhow::Result<()> {
    let src = read_script(Some(path)).map_err(anyhow::Error::msg)?;
    let proto = luprex_compiler::compile(&src, format!("@{path}").as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    print!("{}", luprex_compiler::disasm::disassemble(&proto));
    Ok(())
}

fn run(argv: &[String]) -> anyhow::Result<bool> {
    if argv.get(1).map(String::as_str) == Some("--list") {
        let Some(path) = argv.get(2) else { bail!("'--list' needs a file name") };
        list(path).with_context(|| format!("cannot list {path}"))?;
        return Ok(true);
    }
    let opts = match collect_args(argv) {
        Ok(o) => o,
        Err(bad) => {
            usage(&bad);
            return Ok(false);
        }
    };
    let mut state = State::new();
    // lua.c runs everything inside `pmain`, itself called by `lua_pcall`:
    // one C call under each of ours, counted toward the 200 nested ones.
    state.set_host_c_calls(1);
    if opts.ignore_env {
        // lua.c: signal the libraries to ignore environment variables.
        let registry = Value::Table(state.registry());
        let key = state.new_string(b"LUA_NOENV");
        state.table_set(registry, key, Value::Bool(true));
    }
    luprex_stdlib::open_full(&mut state)
        .map_err(|e| anyhow::anyhow!("cannot open the standard library: {e}"))?;
    // As lua.c: the standalone interpreter collects in generational mode.
    state.gc_generational(0, 0);
    if opts.state_hash {
        state
            .exec(b"math.randomseed(0)", b"=(state-hash)")
            .map_err(|e| anyhow::anyhow!("cannot seed math.random: {e}"))?;
    }
    if io::stdout().is_terminal() {
        state.set_stdout(Box::new(io::LineWriter::new(io::stdout())));
    }
    if opts.warnings {
        let warn = state.get_global("warn");
        let on = state.new_string(b"@on");
        if !warn.is_nil() {
            let _ = state.call(warn, &[on]);
        }
    }
    if opts.version {
        print_version();
    }
    create_arg_table(&mut state, argv, opts.script.unwrap_or(0));
    if !opts.ignore_env && !handle_luainit(&mut state) {
        return Ok(false);
    }
    let upto = opts.script.unwrap_or(argv.len());
    if !run_args(&mut state, argv, upto) {
        return Ok(false);
    }
    if let Some(script) = opts.script {
        if !run_script(&mut state, argv, script) {
            return Ok(false);
        }
    }
    if opts.interactive {
        repl(&mut state);
    } else if opts.script.is_none() && !opts.has_exec && !opts.version {
        if io::stdin().is_terminal() {
            print_version();
            repl(&mut state);
        } else if !dofile(&mut state, None) {
            return Ok(false);
        }
    }
    if opts.state_hash {
        let h = state.state_hash();
        state.write_stdout(format!("{h:032x}\n").as_bytes());
        state.flush_stdout();
    }
    if opts.gc_stats {
        let s = state.gc_stats();
        eprintln!("gc: {} major, {} minor collections", s.cycles, s.minors);
    }
    Ok(true)
}

fn main() -> ExitCode {
    malloc_tune::tune();
    let argv: Vec<String> =
        std::env::args_os().map(|a: OsString| a.to_string_lossy().into_owned()).collect();
    let ok = match run(&argv) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("{PROGNAME}: {e:#}");
            false
        }
    };
    let _ = io::stdout().flush();
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
