//! luprex-vm: a pure-Rust Lua 5.4 virtual machine.
//!
//! # Two doors
//!
//! The crate has exactly two public surfaces, and everything else is
//! private to it:
//!
//! * **The crate root speaks mlua.** [`Lua`], [`Value`], [`Table`],
//!   [`Function`], [`LuaString`], [`AnyUserData`], [`UserData`],
//!   [`FromLua`]/[`IntoLua`], [`MultiValue`], [`Variadic`],
//!   [`RegistryKey`], [`ThreadStatus`], [`Error`], [`Result`] and the
//!   [`prelude`] have `mlua`'s names and signatures (its current 0.12
//!   API), so that a host program written for mlua's common API compiles
//!   with only the crate name changed (`vm/tests/mlua_compat.rs` keeps that
//!   true). Values are rooted handles: they need no lifetime and survive
//!   collections.
//! * **[`raw`] is the low-level API** the standard library, the
//!   command-line interpreter and the engine are written in: the
//!   [`raw::State`], its unrooted `Copy` [`raw::Value`], natives, calls,
//!   pins, snapshot and rollback, save and load, the state hash, the
//!   table-graph traversals, read-only table and string views.
//!
//! Inside, the runtime is organised like PUC Lua's sources, one file per
//! component, each opening with an essay on its design: `heap` (arenas and
//! accounting), `state` (the Lua state, natives, the native ABI), `load`
//! (prototypes into the heap), `execute` (the interpreter loop), `call`
//! (calls, returns, protected execution), `meta` (metamethods and operator
//! slow paths), `debug` (variable naming, tracebacks), `error`, `gc` (the
//! collector), `thread` and `corolib` (coroutines), `baselib` (the base
//! library), `auxlib` (helpers for natives), `api` (the low-level API's
//! methods on `State`), `lua` (the mlua-shaped API; its module essay
//! explains how callbacks get `&Lua` while the VM runs), `snapshot`,
//! `persist`, `hash` (128-bit state and heap hashes) and `traverse`
//! (table-graph numbering and pairing for difference transmission). See
//! `ARCHITECTURE.md` at the repository root.
//!
//! # Embedding Lua: [`Lua`]
//!
//! [`Lua`] is the entry point; it needs no C compiler, engine, network or
//! async runtime. `Lua::new()` opens the base and coroutine libraries; the
//! other standard libraries (`string`, `table`, `math`, ...) live in the
//! `luprex_stdlib` crate, which opens them in one call
//! (`luprex_stdlib::open(&lua, StdLib::SANDBOX)` or `Lua::new_with(StdLib::ALL,
//! opts)` through its `LuaStdExt` trait): the vm cannot depend on the
//! stdlib, which depends on it. (That is the one behavioural difference
//! from mlua's `Lua::new()`, which opens them all.)
//!
//! # Threads
//!
//! A [`Lua`] (and a [`raw::State`]) is neither `Send` nor `Sync`: a state
//! lives on the thread that created it. Only an [`InterruptHandle`]
//! crosses threads.
//!
//! ## Chunks
//!
//! ```
//! use luprex_vm::Lua;
//! let lua = Lua::new();
//! lua.load("x = 20 + 1").set_name("setup").exec()?;
//! assert_eq!(lua.load("x * 2").eval::<i64>()?, 42);
//! let (s, n): (String, i64) = lua.load("local a, b = ... return a .. '!', b + 1").call(("hi", 1))?;
//! assert_eq!((s.as_str(), n), ("hi!", 2));
//! let env = lua.create_table()?;
//! env.set("y", 5)?;
//! let f = lua.load("return y").set_environment(env).into_function()?;
//! assert_eq!(f.call::<i64>(())?, 5);
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Tables
//!
//! ```
//! use luprex_vm::{Lua, Table};
//! let lua = Lua::new();
//! let globals = lua.globals();
//! let t = lua.create_table()?;
//! t.set("name", "luprex")?;
//! t.raw_set(1, 10)?;
//! t.raw_set(2, 20)?;
//! globals.set("t", &t)?;
//! assert_eq!(lua.load("#t + t[2]").eval::<i64>()?, 22);
//! assert_eq!(t.len()?, 2);
//! assert_eq!(t.raw_get::<String>("name")?, "luprex");
//! let sum: i64 = t.sequence_values::<i64>().map(|v| v.unwrap()).sum();
//! assert_eq!(sum, 30);
//! for pair in t.pairs::<luprex_vm::Value, luprex_vm::Value>() {
//!     let (_k, _v) = pair?;
//! }
//! let _t2: Table = globals.get("t")?;
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Functions and conversions
//!
//! Arguments and results convert through [`FromLuaMulti`] / [`IntoLuaMulti`]
//! (tuples, [`Variadic`], [`MultiValue`]) and [`FromLua`] / [`IntoLua`]:
//! integer and float types, `bool`, `String`, `&str`, `Vec<T>`, `HashMap`,
//! `BTreeMap`, `Option<T>`, [`Value`], [`Table`], [`Function`],
//! [`LuaString`], [`AnyUserData`].
//!
//! ```
//! use luprex_vm::{Function, Lua, Variadic};
//! use std::collections::{BTreeMap, HashMap};
//! let lua = Lua::new();
//! let add = lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b))?;
//! lua.globals().set("add", add)?;
//! let join = lua.create_function(|_, (sep, parts): (String, Variadic<String>)| Ok(parts.join(&sep)))?;
//! lua.globals().set("join", join)?;
//! let squares = lua.create_function(|lua, n: i64| {
//!     let t = lua.create_table()?; // `&Lua` works inside callbacks
//!     for i in 1..=n { t.set(i, i * i)?; }
//!     Ok(t)
//! })?;
//! lua.globals().set("squares", squares)?;
//! assert_eq!(lua.load("add(1, 2)").eval::<i64>()?, 3);
//! assert_eq!(lua.load("join('-', 'a', 'b')").eval::<String>()?, "a-b");
//! assert_eq!(lua.load("squares(3)").eval::<Vec<i64>>()?, vec![1, 4, 9]);
//! let mut m = HashMap::new();
//! m.insert("k".to_string(), 1.5);
//! lua.globals().set("m", m)?;
//! let back: BTreeMap<String, f64> = lua.globals().get("m")?;
//! assert_eq!(back["k"], 1.5);
//! let maybe: Option<i64> = lua.load("nil").eval()?;
//! assert_eq!(maybe, None);
//! let f: Function = lua.load("function(x) return x * 2, 'twice' end").eval()?;
//! let (n, s): (f64, String) = f.call(2.5)?;
//! assert_eq!((n, s.as_str()), (5.0, "twice"));
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Userdata
//!
//! ```
//! use luprex_vm::{Lua, MetaMethod, UserData, UserDataFields, UserDataMethods};
//! struct Counter { n: i64 }
//! impl UserData for Counter {
//!     fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
//!         fields.add_field_method_get("n", |_, c| Ok(c.n));
//!         fields.add_field_method_set("n", |_, c, v: i64| { c.n = v; Ok(()) });
//!     }
//!     fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
//!         methods.add_method_mut("bump", |_, c, by: Option<i64>| { c.n += by.unwrap_or(1); Ok(c.n) });
//!         methods.add_meta_method(MetaMethod::ToString, |_, c, ()| Ok(format!("Counter({})", c.n)));
//!     }
//! }
//! let lua = Lua::new();
//! let c = lua.create_userdata(Counter { n: 0 })?;
//! lua.globals().set("c", &c)?;
//! lua.load("c:bump(); c:bump(10); c.n = c.n + 1").exec()?;
//! assert_eq!(lua.load("tostring(c)").eval::<String>()?, "Counter(12)");
//! assert_eq!(c.borrow::<Counter>()?.n, 12);
//! c.borrow_mut::<Counter>()?.n = 0;
//! assert_eq!(c.take::<Counter>()?.n, 0);
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Handles that outlive calls
//!
//! Handles root themselves: they stay valid across collections for as long
//! as they live, with no lifetime parameter. [`RegistryKey`]s do the same
//! but hold the state weakly, for storing inside Lua-owned data.
//!
//! ```
//! use luprex_vm::{Lua, Table};
//! let lua = Lua::new();
//! let t: Table = lua.load("{1, 2, 3}").eval()?; // referenced only from Rust
//! lua.collect_garbage()?;
//! assert_eq!(t.raw_get::<i64>(3)?, 3);
//! let key = lua.create_registry_value("kept")?;
//! lua.collect_garbage()?;
//! assert_eq!(lua.registry_value::<String>(&key)?, "kept");
//! lua.remove_registry_value(key)?;
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Errors
//!
//! One [`Error`] type (a `std::error::Error`) with an [`ErrorKind`]:
//! syntax errors (with `incomplete_input` for REPLs), runtime errors with a
//! traceback, memory errors, limits, bad arguments, conversions, and
//! callback errors whose Rust cause comes back out.
//!
//! ```
//! use luprex_vm::{Error, ErrorKind, Lua};
//! let lua = Lua::new();
//! let e = lua.load("x = ").exec().unwrap_err();
//! assert!(matches!(e.kind(), ErrorKind::Syntax { incomplete_input: true }));
//! let e = lua.load("local t; return t.x").exec().unwrap_err();
//! assert_eq!(e.kind(), &ErrorKind::Runtime);
//! assert!(e.traceback().starts_with("stack traceback:"));
//! let f = lua.create_function(|_, n: i64| Ok(n))?;
//! lua.globals().set("f", f)?;
//! let e = lua.load("f('x')").exec().unwrap_err();
//! assert!(matches!(e.kind(), ErrorKind::BadArgument { pos: 1, .. }));
//! let e = lua.load("{}").eval::<i64>().unwrap_err();
//! assert!(matches!(e.kind(), ErrorKind::Conversion { .. }));
//! let fail = lua.create_function(|_, ()| -> luprex_vm::Result<()> {
//!     Err(Error::external(std::io::Error::other("disk on fire")))
//! })?;
//! lua.globals().set("fail", fail)?;
//! assert!(lua.load("return not pcall(fail)").eval::<bool>()?); // a Lua error inside Lua
//! let e = lua.load("fail()").exec().unwrap_err(); // and the cause outside
//! assert_eq!(e.kind(), &ErrorKind::Callback);
//! let io = std::error::Error::source(&e).unwrap().downcast_ref::<std::io::Error>().unwrap();
//! assert_eq!(io.to_string(), "disk on fire");
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Limits for untrusted scripts
//!
//! ```
//! use luprex_vm::{ErrorKind, Lua, LuaOptions};
//! let lua = Lua::new_with_options(LuaOptions::new().instruction_limit(100_000));
//! let e = lua.load("pcall(function() while true do end end)").exec().unwrap_err();
//! assert_eq!(e.kind(), &ErrorKind::InstructionLimit); // pcall cannot swallow it
//! lua.set_instruction_limit(None)?;
//! lua.set_memory_limit(lua.used_memory() + (1 << 20))?;
//! let e = lua.load("local t = {} for i = 1, 1e8 do t[i] = i end").exec().unwrap_err();
//! assert_eq!(e.kind(), &ErrorKind::Memory);
//! assert_eq!(lua.load("1 + 1").eval::<i64>()?, 2); // still usable
//! let stop = lua.interrupt_handle()?; // Send + Sync: raise it from any thread
//! stop.interrupt();
//! let e = lua.load("while true do end").exec().unwrap_err();
//! assert_eq!(e.kind(), &ErrorKind::Interrupted);
//! stop.clear();
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## serde (feature `serde`)
//!
//! With the `serde` feature, `LuaSerdeExt` converts any `Serialize`
//! type to a Lua value (`lua.to_value(&t)`) and any `Deserialize` type
//! from one (`lua.from_value::<T>(v)`); the mapping is described in its
//! module.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use luprex_vm::{Lua, LuaSerdeExt};
//! let lua = Lua::new();
//! let v = lua.to_value(&vec![("a", 1), ("b", 2)]).unwrap();
//! lua.globals().set("v", v).unwrap();
//! assert_eq!(lua.load("v[2][1] .. v[2][2]").eval::<String>().unwrap(), "b2");
//! let back: Vec<(String, i64)> = lua.from_value(lua.globals().get("v").unwrap()).unwrap();
//! assert_eq!(back[0], ("a".to_string(), 1));
//! # }
//! ```

#![deny(missing_docs)]

mod api;
mod arena;
mod auxlib;
mod baselib;
mod call;
mod ccount;
mod corolib;
mod coswitch;
mod debug;
mod dump;
mod error;
mod execute;
mod forcall;
mod format;
mod func;
mod gc;
mod hash;
mod heap;
mod limits;
mod load;
mod lua;
mod meta;
mod number;
mod persist;
mod prefetch;
pub mod raw;
mod schema;
mod snapshot;
mod stack;
mod state;
mod store;
mod strarith;
mod string;
mod table;
mod thread;
mod traverse;
mod userdata;
mod value;
mod wire;
mod writes;

pub(crate) use arena::Handle;
pub use error::ErrorKind;
pub use lua::InterruptHandle;
pub use lua::{
    AnyUserData, Chunk, Error, ExternalError, ExternalResult, FromLua, FromLuaMulti, Function,
    GCMode, Integer, IntoLua, IntoLuaMulti, Lua, LuaOptions, LuaString, MetaMethod, MultiValue,
    Nil, Number, RegistryKey, Result, Table, TablePairs, TableSequence, Thread, ThreadStatus,
    UserData, UserDataFields, UserDataMethods, UserDataRef, UserDataRefMut, Value, Variadic,
};
pub use snapshot::Snapshot;

#[cfg(feature = "serde")]
pub use lua::LuaSerdeExt;

/// The common types under `Lua`-prefixed names, as `mlua::prelude`:
/// `use luprex_vm::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "serde")]
    #[doc(no_inline)]
    pub use crate::LuaSerdeExt;
    #[doc(no_inline)]
    pub use crate::{
        AnyUserData as LuaAnyUserData, Chunk as LuaChunk, Error as LuaError,
        ErrorKind as LuaErrorKind, ExternalError as LuaExternalError,
        ExternalResult as LuaExternalResult, FromLua, FromLuaMulti, Function as LuaFunction,
        Integer as LuaInteger, IntoLua, IntoLuaMulti, Lua, LuaOptions, LuaString,
        MetaMethod as LuaMetaMethod, MultiValue as LuaMultiValue, Nil as LuaNil,
        Number as LuaNumber, RegistryKey as LuaRegistryKey, Result as LuaResult, Table as LuaTable,
        TablePairs as LuaTablePairs, TableSequence as LuaTableSequence, Thread as LuaThread,
        ThreadStatus as LuaThreadStatus, UserData as LuaUserData,
        UserDataFields as LuaUserDataFields, UserDataMethods as LuaUserDataMethods,
        UserDataRef as LuaUserDataRef, UserDataRefMut as LuaUserDataRefMut, Value as LuaValue,
        Variadic as LuaVariadic,
    };
}
