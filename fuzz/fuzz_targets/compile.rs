//! Fuzz target: the whole compiler must never panic (nor overflow the
//! stack), whatever bytes it is given; errors are fine.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = luprex_compiler::compile(data, b"=fuzz");
});
