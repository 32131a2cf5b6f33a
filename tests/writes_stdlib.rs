//! The write log with the standard library: random mutation programs using
//! `table.insert`, `table.remove`, `table.sort` and `table.move` besides the
//! base library's write paths (the generator and the checks are shared with
//! `vm/tests/writes.rs`).

include!("../vm/tests/support/write_program.rs");
include!("../vm/tests/support/child.rs");

fn sandbox() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    luprex_stdlib::open_sandbox(&mut st).expect("opens");
    st
}

#[test]
fn random_programs_with_table_library() {
    for seed in 1..=16u64 {
        let mut st = sandbox();
        random_rounds(&mut st, seed * 0x2545_f491, 40, true);
    }
}
