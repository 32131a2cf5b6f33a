//! luprex-engine: worlds whose game logic is Lua.
//!
//! A [`World`] is one Lua state (`luprex_vm::raw::State`) plus the few
//! engine structures the design documents describe, all kept *inside* the
//! VM state so that snapshot, rollback, save, load and the 128-bit state
//! hash cover them without any extra code:
//!
//! | seed 004 name         | where                                   | module        |
//! |-----------------------|-----------------------------------------|---------------|
//! | global environment    | the VM's globals table (classes only)   | [`classes`]   |
//! | class database        | the environment + registry `classdb`    | [`classes`]   |
//! | source database       | registry `sourcedb`                     | [`sourcedb`]  |
//! | globals database      | registry `globaldb` (master only)       | [`globals`]   |
//! | published globals     | registry `globalpub` (seed 003)         | [`globals`]   |
//! | library               | registry `library` (the env's `__index`)| [`classes`]   |
//! | lua tangibles         | registry `tangibles` (ID → table)       | [`tangible`]  |
//! | Rust tangibles        | host data `engine.tangibles`            | [`tangible`]  |
//! | positional tracker    | the grid in that host data              | [`spatial`]   |
//! | simulated clock       | `now` in that host data                 | [`tangible`]  |
//! | thread tables         | `threads` in each tangible's metatable  | [`threads`]   |
//! | schedule of wakeups   | that host data                          | [`threads`]   |
//! | invoke permissions    | registry `permits`                      | [`threads`]   |
//! | players               | registry `players` (name → ID)          | [`players`]   |
//!
//! The host drives a World through [`World`]'s methods: load scripts
//! (from a [`ScriptDir`] or from memory as [`SourceFile`]s), rebuild the
//! classes, start, run code, take the print output and the load reports,
//! snapshot and roll back, hash.
//!
//! The engine is written against the VM's public doors only (the crate
//! root and `luprex_vm::raw`); it has no clock, no randomness of its own,
//! no I/O except in [`ScriptDir`], and never iterates a hash map where the
//! order could be seen.
//!
//! The scripter's view of all this is `docs/SCRIPTING.md`.

pub mod classes;
pub mod diff;
pub mod error;
pub mod globals;
pub mod players;
pub mod sourcedb;
pub mod spatial;
pub mod tangible;
pub mod threads;
pub mod world;

pub use error::{EngineError, LoadReport, ReportKind};
pub use players::{Admission, MAX_NAME, PLAYER_CLASS};
pub use sourcedb::{
    code_hash, parse_control, ControlEntry, Fingerprint, ScriptDir, SourceFile, SourceInfo,
};
pub use tangible::{AnimationQueue, IdPlayerPool, Step, Tangible, Tangibles};
pub use threads::{Plain, Request, ThreadReport, ThreadReportKind};
pub use world::{Model, World, WorldLimits, WorldSnapshot};

/// The raw VM API the engine is written in (re-exported for hosts that
/// read values a World returns).
pub use luprex_vm::raw;

use luprex_vm::raw::{State, TableRef, Value};

/// `registry[key]` (raw).
pub(crate) fn registry_get(st: &mut State, key: &str) -> Value {
    let k = st.intern(key.as_bytes());
    let reg = st.registry();
    st.table(reg).get_str(k)
}

/// `registry[key]`, a table the engine created at open time.
pub(crate) fn registry_table(st: &mut State, key: &str) -> TableRef {
    match registry_get(st, key) {
        Value::Table(t) => t,
        _ => unreachable!("registry.{key} is created when the world is made"),
    }
}
