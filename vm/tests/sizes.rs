//! Size contracts of the hot data structures.

#[test]
fn value_is_16_bytes() {
    assert_eq!(std::mem::size_of::<luprex_vm::raw::Value>(), 16);
}

#[test]
fn instruction_is_4_bytes() {
    assert_eq!(std::mem::size_of::<luprex_compiler::Instruction>(), 4);
}

// The table header (32 bytes) is checked by a unit test in `vm/src/table.rs`.
