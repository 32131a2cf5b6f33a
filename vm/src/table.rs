//! PLACEHOLDER (being written): insertion-ordered tables.
/// A Lua table.
pub struct Table {}
