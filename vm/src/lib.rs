//! luprex-vm: a pure-Rust Lua 5.4 virtual machine.
//!
//! See `ARCHITECTURE.md` at the repository root for the design. The
//! runtime is organised like PUC Lua's sources, one file per component:
//! `heap` (arenas and accounting), `state` (the Lua state, natives, the
//! native ABI), `load` (prototypes into the heap), `execute` (the
//! interpreter loop), `call` (calls, returns, protected execution),
//! `meta` (metamethods and operator slow paths), `debug` (variable naming,
//! tracebacks), `error`, `gc` (the collector), `thread` and `corolib`
//! (coroutines), `baselib` (the base library), `auxlib` (helpers for
//! natives), `api` (the embedding API), `hash` (128-bit state and heap
//! hashes) and `traverse` (table-graph numbering and pairing for
//! difference transmission).

pub mod api;
pub mod arena;
pub mod auxlib;
pub mod baselib;
pub mod call;
pub mod corolib;
pub mod debug;
pub mod error;
pub mod execute;
pub mod format;
pub mod func;
pub mod gc;
pub mod hash;
pub mod heap;
pub mod limits;
pub mod load;
pub mod meta;
pub mod number;
pub mod persist;
pub mod snapshot;
pub mod state;
pub mod string;
pub mod table;
pub mod thread;
pub mod traverse;
pub mod userdata;
pub mod value;

pub use arena::{Arena, Handle};
pub use error::Error;
pub use func::NativeId;
pub use hash::{HashMode, PayloadHook, StateHasher};
pub use meta::ArithOp;
pub use state::{Action, KFn, NativeFn, Pin, State, Status};
pub use thread::CoStatus;
pub use traverse::{pair_tables, IsSpecial, Numbering, Pairing, SpecialSet, TablePair};
pub use value::{Type, Value};
