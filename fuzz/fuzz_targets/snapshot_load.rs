//! Fuzz target: `State::load_state` must never panic, whatever the bytes,
//! and a state it accepts must run and hash without panicking.
//!
//! The input is either a raw snapshot (it starts with the signature
//! `LPRXSNAP`; the corpus seeds are real snapshots) or, to keep the
//! fuzzer close to the format, an edit of one of a few real snapshots
//! built at start-up: the first byte picks the snapshot, then each 4-byte
//! group `(offset: 3 bytes, xor: 1 byte)` flips bits at an offset; a
//! leftover group of 1 to 3 bytes truncates the snapshot at an offset.
//! After a successful load, a bounded amount of code runs (instruction and
//! memory limits set after the load, since loading restores the budget).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

include!("../../vm/tests/support/snapshot_fuzz.rs");

fn bases() -> &'static [Vec<u8>] {
    static BASES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BASES.get_or_init(fuzz_bases)
}

/// The snapshot bytes an input stands for.
fn snapshot(data: &[u8]) -> Vec<u8> {
    if data.starts_with(b"LPRXSNAP") {
        return data.to_vec();
    }
    fuzz_edit(bases(), data)
}

fuzz_target!(|data: &[u8]| {
    let bytes = snapshot(data);
    let mut st = fuzz_fresh();
    if st.load_state(&bytes).is_err() {
        return;
    }
    st.set_instruction_limit(Some(20_000));
    st.set_memory_limit(Some(32 << 20));
    if let Ok(f) = st.load(FUZZ_RUN.as_bytes(), b"=run") {
        let _ = st.pcall_value(f, &[]);
    }
    let _ = (st.state_hash(), st.heap_hash());
});
