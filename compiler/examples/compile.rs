//! `compile`: compiles Lua files with the compiler alone, for profiling the
//! compiler without the VM and for checking that its output does not change.
//!
//! ```text
//! cargo run --release -p luprex-compiler --example compile -- [-n N] [--dump|--agree] FILE...
//! ```
//!
//! Each file is compiled `N` times (1 by default) and the CPU-bound wall
//! time of the best run is printed with the file's name; with `--dump`, a
//! 64-bit FNV-1a hash of the chunk's `string.dump` form (debug information
//! included) is printed instead, so that two builds can be compared file by
//! file (a compile error prints its message); with `--agree`, whether the
//! parser and its oracle, the LR grammar, agree on the file (`agree` or
//! `DISAGREE`, see `parser/oracle.rs`).

use std::time::Instant;

use luprex_compiler::{compile, dump::dump};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut runs = 1;
    let mut want_dump = false;
    let mut want_agree = false;
    while let Some(a) = args.peek() {
        match a.as_str() {
            "-n" => {
                args.next();
                runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
            }
            "--dump" => {
                args.next();
                want_dump = true;
            }
            "--agree" => {
                args.next();
                want_agree = true;
            }
            _ => break,
        }
    }
    for file in args {
        let source = std::fs::read(&file).unwrap_or_default();
        let name = format!("@{file}");
        if want_agree {
            let agree = luprex_compiler::parser::parser_and_grammar_agree(&source);
            println!("{} {file}", if agree { "agree" } else { "DISAGREE" });
            continue;
        }
        if want_dump {
            match compile(&source, name.as_bytes()) {
                Ok(p) => println!("{:016x} {file}", fnv(&dump(&p, false))),
                Err(e) => println!("error {} {file}", e.message),
            }
            continue;
        }
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let start = Instant::now();
            let out = compile(&source, name.as_bytes());
            best = best.min(start.elapsed().as_secs_f64());
            drop(out);
        }
        println!("{best:.3} s {file}");
    }
}

/// FNV-1a, 64 bits.
fn fnv(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}
