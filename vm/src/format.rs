//! C `printf` number conversions, byte-identical to glibc: the compiler
//! crate's `number::format` ([`luprex_compiler::number::format`]), the home
//! of Lua's number rules, re-exported for `string.format` and the VM.

pub use luprex_compiler::number::format::*;
