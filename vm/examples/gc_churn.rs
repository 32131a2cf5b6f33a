//! GC churn: allocates 10 million short-lived tables. Measure the peak
//! RSS with `/usr/bin/time -v`.
use luprex_vm::raw::State;

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000_000);
    let mut st = State::new();
    let src = format!(
        "local last for i = 1, {n} do local t = {{i, i + 1, x = i}} last = t end return last[1]"
    );
    let r = st.exec(src.as_bytes(), b"=gc_churn").expect("run");
    println!("last = {:?}, in use = {} KB", r[0], st.memory_in_use() / 1024);
}
