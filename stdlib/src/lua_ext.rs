//! The standard library for the embedding API ([`luprex_vm::Lua`]).
//!
//! The vm crate cannot depend on this one (this one depends on it), so
//! `Lua::new()` opens only what the vm has: the base and coroutine
//! libraries. This module adds the rest, in one call:
//!
//! * [`StdLib`] flags name the libraries; [`StdLib::SANDBOX`] is the set for
//!   untrusted code (`string`, `table`, `math`, `utf8`, with the
//!   [`StdLib::RESTRICTED`] rules: `math.random` seeded deterministically
//!   with its state in the heap, binary chunks refused), [`StdLib::ALL`]
//!   the full set of `luprex-lua`;
//! * [`open`]`(&lua, libs)` opens them on an existing state;
//! * the extension trait [`LuaStdExt`] puts the same on `Lua` itself:
//!   `Lua::new_with(StdLib::ALL, LuaOptions::new())` and
//!   `lua.open_libs(StdLib::SANDBOX)` once the trait is in scope.
//!
//! ```
//! use luprex_stdlib::{LuaStdExt, StdLib};
//! use luprex_vm::{Lua, LuaOptions};
//!
//! let lua = Lua::new_with(StdLib::SANDBOX, LuaOptions::new().memory_limit(1 << 20)).unwrap();
//! assert_eq!(lua.load("string.rep('ab', 3)").eval::<String>().unwrap(), "ababab");
//! assert!(lua.load("io").eval::<Option<luprex_vm::Table>>().unwrap().is_none());
//! ```

use luprex_vm::raw::{Error, State};
use luprex_vm::{Lua, LuaOptions};

/// A set of standard libraries (combine with `|`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StdLib(u32);

impl StdLib {
    /// `string` (and the string metatable).
    pub const STRING: StdLib = StdLib(1);
    /// `table`.
    pub const TABLE: StdLib = StdLib(1 << 1);
    /// `math`.
    pub const MATH: StdLib = StdLib(1 << 2);
    /// `utf8`.
    pub const UTF8: StdLib = StdLib(1 << 3);
    /// `io`.
    pub const IO: StdLib = StdLib(1 << 4);
    /// `os`.
    pub const OS: StdLib = StdLib(1 << 5);
    /// `package` and `require`.
    pub const PACKAGE: StdLib = StdLib(1 << 6);
    /// `debug`.
    pub const DEBUG: StdLib = StdLib(1 << 7);
    /// Not a library: the sandbox rules (deterministic `math.random`
    /// seeding, binary chunks refused).
    pub const RESTRICTED: StdLib = StdLib(1 << 16);
    /// The set for untrusted code and game worlds.
    pub const SANDBOX: StdLib =
        StdLib(Self::STRING.0 | Self::TABLE.0 | Self::MATH.0 | Self::UTF8.0 | Self::RESTRICTED.0);
    /// Every library (as `luprex-lua`).
    pub const ALL: StdLib = StdLib(
        Self::STRING.0
            | Self::TABLE.0
            | Self::MATH.0
            | Self::UTF8.0
            | Self::IO.0
            | Self::OS.0
            | Self::PACKAGE.0
            | Self::DEBUG.0,
    );
    /// No library.
    pub const NONE: StdLib = StdLib(0);

    /// Whether every flag of `other` is in `self`.
    pub fn contains(self, other: StdLib) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for StdLib {
    type Output = StdLib;
    fn bitor(self, rhs: StdLib) -> StdLib {
        StdLib(self.0 | rhs.0)
    }
}

/// Opens `libs` on a low-level state.
pub fn open_state(st: &mut State, libs: StdLib) -> Result<(), Error> {
    let restricted = libs.contains(StdLib::RESTRICTED);
    if restricted {
        st.set_allow_binary_chunks(false);
    }
    if libs.contains(StdLib::STRING) {
        crate::string::open(st)?;
    }
    if libs.contains(StdLib::TABLE) {
        crate::table::open(st)?;
    }
    if libs.contains(StdLib::MATH) {
        let seeding = if restricted {
            crate::math::Seeding::Deterministic
        } else {
            crate::math::Seeding::FromEnvironment
        };
        crate::math::open(st, seeding)?;
    }
    if libs.contains(StdLib::UTF8) {
        crate::utf8::open(st)?;
    }
    if libs.contains(StdLib::IO) {
        crate::io::open(st)?;
    }
    if libs.contains(StdLib::OS) {
        crate::os::open(st)?;
    }
    if libs.contains(StdLib::PACKAGE) {
        crate::package::open(st)?;
    }
    if libs.contains(StdLib::DEBUG) {
        crate::debug::open(st)?;
    }
    Ok(())
}

/// Opens `libs` on `lua`.
pub fn open(lua: &Lua, libs: StdLib) -> Result<(), Error> {
    lua.with_raw_state(|st| open_state(st, libs))?
}

/// The standard library on [`Lua`] (see the module docs).
pub trait LuaStdExt: Sized {
    /// A new state with the base and coroutine libraries (as chosen in
    /// `opts`), `libs`, and the limits of `opts`.
    fn new_with(libs: StdLib, opts: LuaOptions) -> Result<Self, Error>;

    /// Opens `libs`.
    fn open_libs(&self, libs: StdLib) -> Result<(), Error>;
}

impl LuaStdExt for Lua {
    fn new_with(libs: StdLib, opts: LuaOptions) -> Result<Lua, Error> {
        let lua = Lua::new_with_options(opts);
        open(&lua, libs)?;
        Ok(lua)
    }

    fn open_libs(&self, libs: StdLib) -> Result<(), Error> {
        open(self, libs)
    }
}
