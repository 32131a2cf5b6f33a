//! luprex-vm: a pure-Rust Lua 5.4 virtual machine.
//!
//! See `ARCHITECTURE.md` at the repository root for the design.

pub mod arena;
pub mod format;
pub mod func;
pub mod number;
pub mod string;
pub mod table;
pub mod thread;
pub mod userdata;
pub mod value;

pub use arena::{Arena, Handle};
pub use value::{Type, Value};
