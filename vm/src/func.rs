//! PLACEHOLDER (being written): closures, prototypes, upvalues.
/// A Lua closure.
pub struct LuaClosure {}
/// A Rust function.
pub struct RustClosure {}
