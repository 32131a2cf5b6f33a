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
//! natives), `api` (the low-level embedding API on [`State`]), `lua` (the
//! high-level embedding API, [`Lua`]), `hash` (128-bit state and heap
//! hashes) and `traverse` (table-graph numbering and pairing for
//! difference transmission).
//!
//! # Embedding Lua: [`Lua`]
//!
//! [`Lua`] is the entry point, in the shape of the `mlua` crate; it needs no
//! C compiler, engine, network or async runtime. `Lua::new()` opens the base
//! and coroutine libraries; the other standard libraries (`string`,
//! `table`, `math`, ...) live in the `luprex_stdlib` crate, which opens
//! them in one call (`luprex_stdlib::open(&lua, StdLib::SANDBOX)` or
//! `Lua::new_with(StdLib::ALL, opts)` through its `LuaStdExt` trait): the
//! vm cannot depend on the stdlib, which depends on it.
//!
//! The API's value type is [`lua::Value`], whose objects are rooted
//! handles; the crate-root [`Value`] is the low-level, unrooted `Copy`
//! value of [`State`], for natives. The design (how callbacks get `&Lua`
//! while the VM runs) is explained in the [`lua`] module.
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
//! assert_eq!(f.call::<_, i64>(())?, 5);
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
//! assert_eq!(t.raw_get::<_, String>("name")?, "luprex");
//! let sum: i64 = t.sequence_values::<i64>().map(|v| v.unwrap()).sum();
//! assert_eq!(sum, 30);
//! for pair in t.pairs::<luprex_vm::lua::Value, luprex_vm::lua::Value>() {
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
//! `BTreeMap`, `Option<T>`, [`lua::Value`], [`Table`], [`Function`],
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
//! assert_eq!(t.raw_get::<_, i64>(3)?, 3);
//! let key = lua.create_registry_value("kept")?;
//! lua.collect_garbage()?;
//! assert_eq!(lua.registry_value::<String>(&key)?, "kept");
//! lua.remove_registry_value(key)?;
//! # Ok::<(), luprex_vm::Error>(())
//! ```
//!
//! ## Errors
//!
//! One [`Error`] type (a `std::error::Error`) with an [`ErrorKind`](error::ErrorKind):
//! syntax errors (with `incomplete_input` for REPLs), runtime errors with a
//! traceback, memory errors, limits, bad arguments, conversions, and
//! callback errors whose Rust cause comes back out.
//!
//! ```
//! use luprex_vm::{error::ErrorKind, Error, Lua};
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
//! let fail = lua.create_function(|_, ()| -> luprex_vm::lua::Result<()> {
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
//! use luprex_vm::{error::ErrorKind, Lua, LuaOptions};
//! let lua = Lua::new_with_options(LuaOptions::new().instruction_limit(100_000));
//! let e = lua.load("pcall(function() while true do end end)").exec().unwrap_err();
//! assert_eq!(e.kind(), &ErrorKind::InstructionLimit); // pcall cannot swallow it
//! lua.set_instruction_limit(None)?;
//! lua.set_memory_limit(Some(lua.used_memory() + (1 << 20)))?;
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
//! With the `serde` feature, `lua::LuaSerdeExt` converts any `Serialize`
//! type to a Lua value (`lua.to_value(&t)`) and any `Deserialize` type
//! from one (`lua.from_value::<T>(v)`); the mapping is described in its
//! module.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use luprex_vm::{lua::LuaSerdeExt, Lua};
//! let lua = Lua::new();
//! let v = lua.to_value(&vec![("a", 1), ("b", 2)]).unwrap();
//! lua.globals().set("v", v).unwrap();
//! assert_eq!(lua.load("v[2][1] .. v[2][2]").eval::<String>().unwrap(), "b2");
//! let back: Vec<(String, i64)> = lua.from_value(lua.globals().get("v").unwrap()).unwrap();
//! assert_eq!(back[0], ("a".to_string(), 1));
//! # }
//! ```

#![deny(missing_docs)]

pub mod api;
pub mod arena;
pub mod auxlib;
pub mod baselib;
pub mod call;
pub mod corolib;
pub mod debug;
pub mod dump;
pub mod error;
pub mod execute;
pub mod format;
pub mod func;
pub mod gc;
pub mod hash;
pub mod heap;
pub mod limits;
pub mod load;
pub mod lua;
pub mod meta;
pub mod number;
pub mod persist;
pub(crate) mod prefetch;
mod schema;
pub mod snapshot;
pub mod state;
pub mod store;
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
pub use limits::InterruptHandle;
pub use lua::{
    AnyUserData, Chunk, FromLua, FromLuaMulti, Function, IntoLua, IntoLuaMulti, Lua, LuaOptions,
    LuaString, MetaMethod, MultiValue, RegistryKey, Table, Thread, UserData, UserDataFields,
    UserDataMethods, UserDataRef, UserDataRefMut, Variadic,
};
pub use meta::ArithOp;
pub use persist::PayloadLoader;
pub use schema::{load_value, save_value, FieldClass, HostData, HostDataLoader, HostVisitor};
pub use snapshot::Snapshot;
pub use state::{Action, KFn, NativeFn, Pin, State, Status};
pub use thread::CoStatus;
pub use traverse::{pair_tables, IsSpecial, Numbering, Pairing, SpecialSet, TablePair};
pub use value::{Type, Value};
