//! Size contracts of the hot data structures.

#[test]
fn value_is_16_bytes() {
    assert_eq!(std::mem::size_of::<luprex_vm::Value>(), 16);
}

#[test]
fn instruction_is_4_bytes() {
    assert_eq!(std::mem::size_of::<luprex_compiler::Instruction>(), 4);
}

/// A table header is journaled as an object when it changes: it stays
/// small plain data (its contents live in the table store).
#[test]
fn table_header_is_32_bytes() {
    assert_eq!(std::mem::size_of::<luprex_vm::table::Table>(), 32);
}
