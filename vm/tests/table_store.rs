//! The table store gives a dead big table's memory back (`store.rs`,
//! "Released chunks"): at once while no snapshot is open, when the
//! outermost snapshot is released otherwise.

use luprex_vm::raw::State;

fn run(st: &mut State, src: &str) {
    st.exec(src.as_bytes(), b"=store").unwrap_or_else(|e| panic!("{e}"));
}

fn reserved(st: &State) -> usize {
    st.heap_stats().store_reserved_bytes
}

const BUILD: &str = "big = {} for i = 1, 1000000 do big[i] = i end";
const DROP: &str = "big = nil collectgarbage() collectgarbage()";
/// A million values take 16 MB; what is left after the table dies is
/// the small tables' pages.
const SMALL: usize = 1 << 20;

#[test]
fn a_dead_big_table_gives_its_memory_back() {
    let mut st = State::new();
    for round in 0..4 {
        run(&mut st, BUILD);
        let live = reserved(&st);
        assert!(live >= 16_000_000, "round {round}: {live} bytes");
        run(&mut st, DROP);
        let after = reserved(&st);
        assert!(after < SMALL, "round {round}: {after} bytes kept after the table died");
    }
}

#[test]
fn inside_a_snapshot_the_memory_waits_for_its_release() {
    let mut st = State::new();
    let s = st.snapshot().unwrap();
    run(&mut st, BUILD);
    run(&mut st, DROP);
    assert!(reserved(&st) >= 16_000_000, "a rollback may need the block");
    st.rollback(s).unwrap();
    run(&mut st, BUILD);
    run(&mut st, DROP);
    assert!(reserved(&st) >= 16_000_000);
    st.release(s).unwrap();
    assert!(reserved(&st) < SMALL, "{} bytes kept after the release", reserved(&st));
    run(&mut st, &format!("{BUILD} {DROP}"));
    assert!(reserved(&st) < SMALL);
}
