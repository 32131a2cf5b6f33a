//! A minimal REPL over stdin: reads lines, asks for more while the chunk is
//! incomplete (`Error::is_incomplete_input`), evaluates expressions and
//! prints their values, runs statements otherwise.
//!
//! `cargo run -p luprex-vm --example repl`, or pipe a script into it.

use luprex_vm::Lua;
use luprex_vm::{MultiValue, Value};
use std::io::{BufRead, Write};

/// The printed form of a value, as `print` shows it.
fn show(lua: &Lua, v: &Value) -> String {
    let tostring: luprex_vm::Function = match lua.globals().get("tostring") {
        Ok(f) => f,
        Err(_) => return format!("{v:?}"),
    };
    tostring.call::<String>(v.clone()).unwrap_or_else(|_| v.type_name().to_string())
}

fn main() {
    let lua = Lua::new();
    // `print` writes through the state's own writer; make it line-buffered
    // so its output interleaves with the prompts.
    lua.set_stdout(Box::new(std::io::LineWriter::new(std::io::stdout()))).expect("stdout");
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut buffer = String::new();
    loop {
        print!("{}", if buffer.is_empty() { "> " } else { ">> " });
        let _ = std::io::stdout().flush();
        let Some(Ok(line)) = lines.next() else { break };
        // As lua.c: a first line starting with `=` means `return`.
        match line.strip_prefix('=') {
            Some(rest) if buffer.is_empty() => buffer.push_str(&format!("return {rest}")),
            _ => buffer.push_str(&line),
        }
        buffer.push('\n');
        // `eval` tries `return <line>` first, then the line as statements.
        match lua.load(&buffer).set_name("stdin").eval::<MultiValue>() {
            Ok(values) => {
                if !values.is_empty() {
                    let shown: Vec<String> = values.iter().map(|v| show(&lua, v)).collect();
                    println!("{}", shown.join("\t"));
                }
                buffer.clear();
            }
            Err(e) if e.is_incomplete_input() => {} // read another line
            Err(e) => {
                println!("{e}");
                buffer.clear();
            }
        }
    }
    println!();
}
