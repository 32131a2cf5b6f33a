//! Parser throughput: `cargo run --release --bin parse_bench -- FILE...`
//! prints the time to lex, check and parse each file (best of 5 runs).

use std::time::{Duration, Instant};

fn main() {
    for path in std::env::args().skip(1) {
        let source = match std::fs::read(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let mut best = Duration::MAX;
        let mut verdict = String::new();
        for _ in 0..5 {
            let start = Instant::now();
            let result = luprex_compiler::parser::parse(&source, b"=bench");
            best = best.min(start.elapsed());
            verdict = match result {
                Ok(chunk) => format!("ok, {} statements", chunk.block.stats.len()),
                Err(e) => e.message,
            };
        }
        let mb = source.len() as f64 / 1e6;
        let secs = best.as_secs_f64();
        println!("{path}: {mb:.2} MB in {secs:.3} s ({:.1} MB/s): {verdict}", mb / secs);
    }
}
