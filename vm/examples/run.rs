//! Runs a Lua file (or `-e` code) with the luprex VM: a small driver for
//! development and benchmarks.
use luprex_vm::raw::State;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (src, name) = if args.first().map(String::as_str) == Some("-e") {
        (args[1].clone().into_bytes(), b"=(command line)".to_vec())
    } else {
        let path = &args[0];
        (std::fs::read(path).expect("read file"), format!("@{path}").into_bytes())
    };
    let mut st = State::new();
    match st.exec(&src, &name) {
        Ok(_) => {}
        Err(e) => {
            st.flush_stdout();
            eprintln!("lua: {}", e);
            if !e.traceback().is_empty() {
                eprintln!("{}", e.traceback());
            }
            std::process::exit(1);
        }
    }
}
