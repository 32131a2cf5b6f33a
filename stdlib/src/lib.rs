//! luprex-stdlib: the Lua 5.4 standard library for luprex-vm.
//!
//! The base and coroutine libraries live in the vm crate (a bare `State`
//! needs them); this crate adds the others, one module per Lua library, in
//! the manner of piccolo's stdlib: `string`, `table`, `math`, `utf8`, `io`,
//! `os`, `package`. Each library module has an `open(&mut State)` function;
//! the algorithmic cores (`pattern`, `pack`, `random`, `strftime`,
//! `utf8_core`) are plain Rust over bytes with no VM dependency.
//!
//! Two sets:
//! * [`open_sandbox`] for game worlds: no `io`, `os`, `require`, `dofile`,
//!   `loadfile`, no binary chunks; `math.random` is seeded deterministically
//!   and keeps its state in the VM heap so snapshots capture it.
//! * [`open_full`] for scripts (`luprex-lua`): everything.
//!
//! `COMPATIBILITY.md` lists every function of the 5.4 manual and its status.

use luprex_vm::raw::{Error, State};

pub mod pack;
pub mod pattern;
pub mod random;
pub mod strftime;
pub mod utf8_core;

pub mod debug;
pub mod io;
pub mod lua_ext;
pub mod math;
pub mod os;
pub mod package;
pub mod string;
pub mod table;
pub mod utf8;
pub use lua_ext::{LuaStdExt, StdLib};

/// Opens the sandboxed set (for game worlds) on top of the base library.
pub fn open_sandbox(st: &mut State) -> Result<(), Error> {
    st.set_allow_binary_chunks(false);
    string::open(st)?;
    table::open(st)?;
    math::open(st, math::Seeding::Deterministic)?;
    utf8::open(st)?;
    Ok(())
}

/// Opens the full set (for `luprex-lua`) on top of the base library.
pub fn open_full(st: &mut State) -> Result<(), Error> {
    string::open(st)?;
    table::open(st)?;
    math::open(st, math::Seeding::FromEnvironment)?;
    utf8::open(st)?;
    io::open(st)?;
    os::open(st)?;
    package::open(st)?;
    debug::open(st)?;
    Ok(())
}
