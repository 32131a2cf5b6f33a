//! The embedding API: [`Lua`], in the shape of `mlua`.
//!
//! The low-level API of the crate ([`State`], natives as
//! `fn(&mut State) -> Result<Action, Error>`, `Copy` handles valid while
//! reachable) is what the VM and the standard library are written in. This
//! module puts a safe, `'static`, `mlua`-like surface over it: a cheaply
//! cloneable [`Lua`], handles ([`Table`], [`Function`], [`LuaString`],
//! [`AnyUserData`], [`Thread`]) that root themselves, conversions
//! ([`IntoLua`], [`FromLua`] and their multi-value forms), closures as Lua
//! functions, [`UserData`] types with methods, fields and metamethods.
//!
//! # Where the state lives
//!
//! `Lua` is `Rc<Inner>`; `Inner` owns the [`State`], boxed, in a
//! `RefCell<Option<Box<State>>>`. The VM runs on `&mut State`, yet a Rust
//! callback receives `&Lua` and may use it (create tables, call Lua
//! functions, load chunks), which would need a second borrow of the cell
//! while the first one runs the VM. Instead of a borrow, the API **moves**
//! the box out of the cell to run Lua code (`Lua::run`: `Option::take`, a
//! pointer move) and puts it back afterwards, also on error, so no
//! `RefCell` borrow is held while the VM runs. Keeping the moved-out state
//! boxed keeps each nesting level's Rust stack frames small, so the VM's
//! 200 nested Rust calls fit in a 2 MiB thread stack (in release builds).
//!
//! The native that calls a Rust callback (a trampoline) holds the running
//! state as `&mut State`; it **lends** it to the `Lua` for the callback's
//! duration: a pointer made from that `&mut State` goes into `Inner::lent`
//! (a `Cell<Option<NonNull<State>>>`, see `Lent`), set and cleared by a
//! guard whose lifetime keeps the trampoline's own reference borrowed, so
//! the trampoline cannot touch the state while it is lent. Every API entry
//! (`Lua::with_state`, `Lua::run`, a handle's drop) looks there first: it
//! takes the pointer out of the cell (so a nested entry finds nothing and
//! no second `&mut` is ever made from it), uses it, and puts it back; so
//! during a callback `&Lua` works exactly as at top level, nested runs
//! included (a run inside a callback runs the lent state, whose own
//! callbacks lend it again). This is the crate's one `unsafe` block outside
//! the dispatch loop and the prefetch hint (`Lent::with`); it replaced
//! swapping the whole `State` (1712 bytes) with an inert placeholder twice
//! per callback, which was more than half of a callback's cost
//! (`benches/RESULTS.md`, issue 16).
//!
//! Operations that cannot run Lua code (raw table access, creating values)
//! use the state briefly (`Lua::with_state`). Finding it neither lent nor in
//! the cell is reported as an error ("Lua state is busy"), never a panic:
//! this happens only if the API is used from inside [`Lua::with_raw_state`].
//!
//! # Values across the boundary
//!
//! Calls and callbacks convert values straight between Rust types and the
//! state's stack, without a [`MultiValue`] in between: the conversion
//! traits have hidden methods (`FromLua::from_raw`,
//! `FromLuaMulti::from_raw_args`, `IntoLua::push_into_stack`, ... as mlua's
//! `from_stack` / `push_into_stack`) whose defaults go through [`Value`]
//! and which numbers, booleans, strings, tuples and [`Variadic`] implement
//! directly. [`Function::call`] pushes the function and its arguments on the
//! stack (which roots them), runs the call there, converts the results in
//! place and pops them; a callback reads its arguments off the stack (a copy
//! of at most 8 raw values, kept alive by their slots) and pushes its
//! results. Immediates thus cross without allocating, pinning or touching a
//! `RefCell`.
//!
//! # Handles
//!
//! A handle is `Rc<RefInner>`: a strong `Lua` and a [`Pin`] (a GC root of
//! the state, see [`State::pin`]). Cloning a handle clones the `Rc`;
//! dropping the last clone releases the pin. The drop must not need the
//! state, which may be moved out at that moment: the pin is released at
//! once if the cell is free, otherwise queued (`pending_unpins`) and
//! released at the next API entry. Handles are therefore `'static`, survive
//! collections, and need no lifetime. Because a handle holds the `Lua`
//! strongly, a handle stored inside the state (captured by a callback
//! closure, kept in a userdata) makes a cycle that keeps the state alive
//! until the process ends; store [`RegistryKey`]s there instead, which hold
//! the state weakly.
//!
//! # Callbacks
//!
//! [`Lua::create_function`] stores the closure as the payload of a
//! userdata that is upvalue 0 of a Rust closure of a trampoline native
//! made for the closure's type (`typed_trampoline::<F, A, R>`, registered
//! once per type and state, unnamed): the argument conversion, the call and
//! the result conversion are compiled into it. Userdata methods, fields and
//! metamethods are boxed as `Rc<dyn Fn>` callbacks of one trampoline
//! registered as `"lua.callback"`. When Lua collects the function, it
//! collects the userdata and the closure is dropped: no table of callbacks
//! to clean. An error returned by
//! a callback enters Lua as an ordinary error whose value is the message
//! (with the caller's position, as `luaL_error`), keeping its
//! [`ErrorKind`] and cause; if no `pcall` catches it, it comes out of the
//! API call as the same [`Error`], with [`Error::cause`] and
//! [`std::error::Error::source`] set. Argument conversion failures become
//! `bad argument #n to 'f' (...)` errors of kind [`ErrorKind::BadArgument`].
//!
//! # Determinism and snapshots
//!
//! Converting a `HashMap` into a table sorts its keys first, so the table's
//! order does not depend on hashing. Callback and userdata payloads are
//! opaque to snapshots: a state holding them can be snapshotted, but it
//! cannot be written to bytes.

mod chunk;
mod conv;
mod handles;
#[cfg(feature = "serde")]
mod serde_impl;
mod userdata;

pub use chunk::Chunk;
pub use conv::{FromLua, FromLuaMulti, IntoLua, IntoLuaMulti, MultiValue, Variadic};
pub use handles::{
    Function, LuaString, RegistryKey, Table, TablePairs, TableSequence, Thread, ThreadStatus, Value,
};
#[cfg(feature = "serde")]
pub use serde_impl::LuaSerdeExt;
pub use userdata::{
    AnyUserData, MetaMethod, UserData, UserDataFields, UserDataMethods, UserDataRef, UserDataRefMut,
};

pub use crate::error::Error;
#[cfg(doc)]
use crate::error::ErrorKind;
use crate::func::NativeId;
pub use crate::limits::InterruptHandle;
use crate::snapshot::Snapshot;
use crate::state::{Action, Pin, State};
use crate::value::Value as Raw;
use handles::{LuaRef, Slot};
use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::ptr::NonNull;
use std::rc::Rc;

/// The result type of the embedding API.
pub type Result<T> = std::result::Result<T, Error>;

/// Lua's integer type.
pub type Integer = i64;

/// Lua's float type.
pub type Number = f64;

/// `nil`, as a value (mlua's `Nil`).
#[allow(non_upper_case_globals)]
pub const Nil: Value = Value::Nil;

/// Turns any error into a Lua error carrying it as its cause
/// (`err.into_lua_err()`, as mlua's `ExternalError`).
pub trait ExternalError {
    /// The Lua error of kind [`ErrorKind::Callback`] whose cause is `self`.
    fn into_lua_err(self) -> Error;
}

impl<E: Into<Box<dyn std::error::Error + Send + Sync>>> ExternalError for E {
    fn into_lua_err(self) -> Error {
        Error::external(self)
    }
}

/// Turns the error of any `Result` into a Lua error (mlua's
/// `ExternalResult`).
pub trait ExternalResult<T> {
    /// `self` with its error made a Lua error ([`ExternalError`]).
    fn into_lua_err(self) -> Result<T>;
}

impl<T, E: ExternalError> ExternalResult<T> for std::result::Result<T, E> {
    fn into_lua_err(self) -> Result<T> {
        self.map_err(ExternalError::into_lua_err)
    }
}

/// A boxed callback: given its arguments (raw values kept alive by the
/// stack), it pushes its results on the stack and returns how many.
pub(crate) type Callback = Rc<dyn Fn(&Lua, &[Raw]) -> Result<usize>>;

/// The collector's mode (mlua's `GCMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GCMode {
    /// Incremental collection, the default: bounded pauses.
    Incremental,
    /// Generational collection: minor collections of the young objects,
    /// major ones of the whole heap.
    Generational,
}

impl GCMode {
    fn of(name: &str) -> GCMode {
        match name {
            "generational" => GCMode::Generational,
            _ => GCMode::Incremental,
        }
    }
}

/// A Lua state for embedding (see the module docs).
///
/// `Lua` is a cheap handle (`Rc`): clones refer to the same state. It is
/// neither `Send` nor `Sync`; use [`Lua::interrupt_handle`] to stop a
/// script from another thread.
#[derive(Clone)]
pub struct Lua {
    pub(crate) inner: Rc<Inner>,
}

/// Options for [`Lua::new_with_options`]: which of the vm crate's libraries
/// to open (the others are in `luprex_stdlib`) and the limits.
#[derive(Clone, Debug)]
pub struct LuaOptions {
    base: bool,
    coroutine: bool,
    memory_limit: Option<usize>,
    instruction_limit: Option<u64>,
}

impl Default for LuaOptions {
    fn default() -> Self {
        LuaOptions::new()
    }
}

impl LuaOptions {
    /// The default options: base and coroutine libraries, no limits.
    pub fn new() -> LuaOptions {
        LuaOptions { base: true, coroutine: true, memory_limit: None, instruction_limit: None }
    }

    /// A memory limit in bytes (see [`Lua::set_memory_limit`]).
    pub fn memory_limit(mut self, bytes: usize) -> LuaOptions {
        self.memory_limit = Some(bytes);
        self
    }

    /// An instruction budget (see [`Lua::set_instruction_limit`]).
    pub fn instruction_limit(mut self, n: u64) -> LuaOptions {
        self.instruction_limit = Some(n);
        self
    }

    /// Whether to open the base library (`print`, `pairs`, `pcall`, ...).
    pub fn base(mut self, on: bool) -> LuaOptions {
        self.base = on;
        self
    }

    /// Whether to open the `coroutine` library.
    pub fn coroutine(mut self, on: bool) -> LuaOptions {
        self.coroutine = on;
        self
    }
}

/// A deferred restoration of a borrowed userdata value.
type Restore = Box<dyn FnOnce(&mut State)>;

/// The per-state data of the API (see the module docs).
pub(crate) struct Inner {
    /// The state when no API call runs Lua code; `None` while it is moved
    /// out (`Lua::run`).
    pub(crate) state: RefCell<Option<Box<State>>>,
    /// The running state, lent by the trampoline for the duration of a
    /// callback (see the module docs and [`Lent`]).
    lent: Lent,
    /// Whether `pending_unpins` or `pending_restores` may hold something.
    pending: Cell<bool>,
    /// Pins of dropped handles, released at the next API entry.
    pending_unpins: RefCell<Vec<Pin>>,
    /// Userdata payloads to put back (borrow guards dropped while the state
    /// was busy).
    pending_restores: RefCell<Vec<Restore>>,
    /// Userdata metatables by Rust type (pinned forever).
    pub(crate) ud_metas: RefCell<Vec<(TypeId, Pin)>>,
    /// The trampoline native of boxed callbacks.
    callback_id: NativeId,
    /// The trampoline natives of [`Lua::create_function`], by closure type.
    typed_natives: RefCell<std::collections::BTreeMap<TypeId, NativeId>>,
}

/// The running state lent to a callback: a pointer to the `&mut State`
/// the trampoline received, valid while the trampoline's [`LendGuard`]
/// lives, and taken out (left `None`) while any API function uses it, so
/// at most one `&mut State` is made from it at a time.
struct Lent(Cell<Option<NonNull<State>>>);

impl Lent {
    /// Runs `f` on the lent state, if there is one and nobody uses it.
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> Option<R> {
        let p = self.0.take()?;
        // Puts the pointer back even if `f` panics.
        struct Back<'a>(&'a Cell<Option<NonNull<State>>>, NonNull<State>);
        impl Drop for Back<'_> {
            #[inline(always)]
            fn drop(&mut self) {
                self.0.set(Some(self.1));
            }
        }
        let back = Back(&self.0, p);
        // SAFETY: `p` was made by `LendGuard::lend` from the `&mut State`
        // the trampoline received, and the guard clears it before the
        // trampoline uses that reference again or returns (also on
        // unwinding), so the pointee is alive and not otherwise accessed
        // while `p` is here: the trampoline does nothing with its reference
        // while the guard lives, and every `&mut` made from `p` (this one)
        // is derived from it. Taking `p` out of the cell for the duration
        // of `f` makes this `&mut` the only one: a nested `with` (from
        // inside `f`) finds the cell empty. It ends when `f` returns, before
        // `back` puts `p` back.
        let st = unsafe { &mut *p.as_ptr() };
        let r = f(st);
        drop(back);
        Some(r)
    }
}

/// Lends the running state (see [`Lent`]) until dropped.
struct LendGuard<'a>(&'a Lent);

impl<'a> LendGuard<'a> {
    /// Lends `st` through `lent` (which must be empty: the caller checks)
    /// for the guard's life, during which `st` stays mutably borrowed.
    #[inline(always)]
    fn lend(lent: &'a Lent, st: &'a mut State) -> LendGuard<'a> {
        debug_assert!(lent.0.get().is_none(), "state lent twice");
        lent.0.set(Some(NonNull::from(st)));
        LendGuard(lent)
    }
}

impl Drop for LendGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0 .0.set(None);
    }
}

impl Inner {
    /// Releases pin `p` (from a handle's drop): now if the state is
    /// available, else at the next API entry.
    pub(crate) fn release(&self, p: Pin) {
        if self.access(|st| st.unpin(p)).is_some() {
            return;
        }
        if let Ok(mut q) = self.pending_unpins.try_borrow_mut() {
            q.push(p);
            self.pending.set(true);
        }
    }

    /// Queues a userdata payload restoration (see `userdata.rs`).
    pub(crate) fn defer_restore(&self, f: Restore) {
        if let Ok(mut q) = self.pending_restores.try_borrow_mut() {
            q.push(f);
            self.pending.set(true);
        }
    }

    /// Runs `f` on the state, lent or idle in the cell; `None` if it is
    /// busy.
    #[inline(always)]
    fn access<R>(&self, f: impl FnOnce(&mut State) -> R) -> Option<R> {
        if self.lent.0.get().is_some() {
            return self.lent.with(f);
        }
        let mut cell = self.state.try_borrow_mut().ok()?;
        Some(f(cell.as_mut()?))
    }

    /// Processes the queues of released pins and payload restorations.
    #[inline(always)]
    fn flush(&self, st: &mut State) {
        if self.pending.get() {
            self.flush_queues(st);
        }
    }

    #[cold]
    fn flush_queues(&self, st: &mut State) {
        self.pending.set(false);
        let restores = self.pending_restores.take();
        for f in restores {
            f(st);
        }
        let pins = self.pending_unpins.take();
        for p in pins {
            st.unpin(p);
        }
    }
}

/// The error for API use while the state is unavailable.
fn busy() -> Error {
    Error::runtime("Lua state is busy (API used inside Lua::with_raw_state)")
}

impl Default for Lua {
    fn default() -> Self {
        Lua::new()
    }
}

impl Lua {
    /// A new state with the base and coroutine libraries. The rest of the
    /// standard library is in `luprex_stdlib` (`luprex_stdlib::open`, or
    /// `Lua::new_with` from its `LuaStdExt` trait).
    pub fn new() -> Lua {
        Lua::new_with_options(LuaOptions::new())
    }

    /// A new state with the libraries chosen in `opts`.
    pub fn new_with_options(opts: LuaOptions) -> Lua {
        let mut st = State::new_bare();
        if opts.base {
            crate::baselib::open(&mut st);
        }
        if opts.coroutine {
            crate::corolib::open(&mut st);
        }
        st.set_memory_limit(opts.memory_limit);
        st.set_instruction_limit(opts.instruction_limit);
        Lua::from_state(st)
    }

    /// Wraps an existing low-level state (for example one built and filled
    /// by the engine) in the API.
    pub fn from_state(mut st: State) -> Lua {
        let callback_id = st.native_id("lua.callback", trampoline);
        st.native_id("lua.ud_index", userdata::ud_index);
        st.native_id("lua.ud_newindex", userdata::ud_newindex);
        let inner = Rc::new(Inner {
            state: RefCell::new(Some(Box::new(st))),
            lent: Lent(Cell::new(None)),
            pending: Cell::new(false),
            pending_unpins: RefCell::new(Vec::new()),
            pending_restores: RefCell::new(Vec::new()),
            ud_metas: RefCell::new(Vec::new()),
            callback_id,
            typed_natives: RefCell::new(Default::default()),
        });
        let weak: std::rc::Weak<dyn Any> = Rc::downgrade(&inner) as std::rc::Weak<Inner>;
        if let Some(st) = inner.state.borrow_mut().as_mut() {
            st.host = Some(weak);
        }
        Lua { inner }
    }

    /// Runs `f` on the state, borrowed (no Lua code may run inside).
    #[inline]
    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> Result<R> {
        let inner = &*self.inner;
        inner
            .access(|st| {
                inner.flush(st);
                f(st)
            })
            .ok_or_else(busy)
    }

    /// Runs `f` on the state moved out of its cell (so that callbacks can
    /// use the API), then puts the state back. Inside a callback, runs `f`
    /// on the lent state.
    #[inline]
    pub(crate) fn run<R>(&self, f: impl FnOnce(&mut State) -> Result<R>) -> Result<R> {
        let inner = &*self.inner;
        if inner.lent.0.get().is_some() {
            let r = inner.lent.with(|st| {
                inner.flush(st);
                f(st)
            });
            return r.unwrap_or_else(|| Err(busy()));
        }
        let mut st = {
            let mut cell = inner.state.try_borrow_mut().map_err(|_| busy())?;
            let mut st = cell.take().ok_or_else(busy)?;
            inner.flush(&mut st);
            st
        };
        let r = f(&mut st);
        // Invariant: nothing holds a borrow of the cell across `f` (the
        // borrows of `with_state` are scoped), so this cannot fail.
        *inner.state.borrow_mut() = Some(st);
        r
    }

    /// Gives `f` the low-level [`State`] (for code written against it, e.g.
    /// opening libraries). The state is moved out of the `Lua` meanwhile,
    /// so `f` may run Lua code that calls API callbacks; but API calls made
    /// by `f` itself on this `Lua` fail with a "busy" error.
    pub fn with_raw_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> Result<R> {
        self.run(|st| Ok(f(st)))
    }

    /// Makes a handle for raw value `v` (pins it if collectable).
    pub(crate) fn wrap(&self, st: &mut State, v: Raw) -> Value {
        match v {
            Raw::Nil => Value::Nil,
            Raw::Bool(b) => Value::Boolean(b),
            Raw::Int(i) => Value::Integer(i),
            Raw::Float(f) => Value::Number(f),
            Raw::Str(_) => Value::String(LuaString(self.make_ref(st, v))),
            Raw::Table(_) => Value::Table(Table(self.make_ref(st, v))),
            Raw::LuaFn(_) | Raw::RustFn(_) => Value::Function(Function(self.make_ref(st, v))),
            Raw::Thread(_) => Value::Thread(Thread(self.make_ref(st, v))),
            Raw::UserData(_) => Value::UserData(AnyUserData(self.make_ref(st, v))),
        }
    }

    fn make_ref(&self, st: &mut State, v: Raw) -> LuaRef {
        LuaRef::new(self.clone(), Slot::Pin(st.pin(v)))
    }

    /// Wraps several raw values.
    pub(crate) fn wrap_all(&self, st: &mut State, vs: &[Raw]) -> MultiValue {
        MultiValue::from_vec(vs.iter().map(|&v| self.wrap(st, v)).collect())
    }

    /// Makes a handle for raw value `v` (kept alive by the caller, e.g. on
    /// the stack).
    #[inline]
    pub(crate) fn wrap_raw(&self, v: Raw) -> Result<Value> {
        Ok(match v {
            Raw::Nil => Value::Nil,
            Raw::Bool(b) => Value::Boolean(b),
            Raw::Int(i) => Value::Integer(i),
            Raw::Float(f) => Value::Number(f),
            _ => self.with_state(|st| self.wrap(st, v))?,
        })
    }

    /// Makes handles for raw values `vs` (kept alive by the caller).
    pub(crate) fn wrap_raws(&self, vs: &[Raw]) -> Result<MultiValue> {
        self.with_state(|st| self.wrap_all(st, vs))
    }

    /// Pushes `v` on the stack of the state (idle or lent).
    #[inline]
    pub(crate) fn push_value(&self, v: &Value) -> Result<()> {
        self.with_state(|st| {
            let raw = v.to_raw(st);
            st.push(raw);
        })
    }

    /// Gives `f` a copy of `stack[from..]` (raw values, which stay alive on
    /// the stack), without holding the state.
    #[inline]
    pub(crate) fn with_stack_copy<T>(
        &self,
        from: usize,
        f: impl FnOnce(&[Raw]) -> Result<T>,
    ) -> Result<T> {
        let mut buf = [Raw::Nil; RAW_BUF];
        let mut heap = Vec::new();
        let n = self.with_state(|st| {
            let vals = st.ex.stack.get(from..).unwrap_or(&[]);
            if vals.len() <= RAW_BUF {
                copy_raws(&mut buf, vals);
            } else {
                heap.extend_from_slice(vals);
            }
            vals.len()
        })?;
        f(if n <= RAW_BUF { &buf[..n] } else { &heap })
    }

    /// Loads a chunk of Lua source (text; a binary chunk if it starts with
    /// `\x1bLua` and the state accepts them). Nothing is compiled until one
    /// of the [`Chunk`]'s run methods is called.
    pub fn load(&self, source: impl AsRef<[u8]>) -> Chunk<'_> {
        Chunk::new(self, source.as_ref().to_vec())
    }

    /// The globals table.
    pub fn globals(&self) -> Table {
        match self.inner.access(|st| st.globals) {
            Some(g) => Table(LuaRef::new(self.clone(), Slot::Fixed(Raw::Table(g)))),
            // Unreachable in practice (the state is busy only inside
            // `with_raw_state`): an empty table is a safe answer.
            None => Table(LuaRef::new(self.clone(), Slot::Fixed(Raw::Nil))),
        }
    }

    /// A new empty table.
    pub fn create_table(&self) -> Result<Table> {
        self.with_state(|st| {
            let t = st.new_table();
            Table(self.make_ref(st, t))
        })
    }

    /// A new table with the key-value pairs of `iter`, in order.
    pub fn create_table_from<K: IntoLua, V: IntoLua>(
        &self,
        iter: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Table> {
        let t = self.create_table()?;
        for (k, v) in iter {
            t.raw_set(k, v)?;
        }
        Ok(t)
    }

    /// A new table with the values of `iter` at keys `1..`.
    pub fn create_sequence_from<V: IntoLua>(
        &self,
        iter: impl IntoIterator<Item = V>,
    ) -> Result<Table> {
        let t = self.create_table()?;
        for (i, v) in iter.into_iter().enumerate() {
            t.raw_set(i as i64 + 1, v)?;
        }
        Ok(t)
    }

    /// A Lua string with content `bytes` (any bytes, not only UTF-8).
    pub fn create_string(&self, bytes: impl AsRef<[u8]>) -> Result<LuaString> {
        self.with_state(|st| {
            let s = st.new_string(bytes.as_ref());
            LuaString(self.make_ref(st, s))
        })
    }

    /// A Lua function calling the Rust closure `f`. Its arguments are
    /// converted to `A` (a failure is a `bad argument` error) and its result
    /// from `R`; an `Err` it returns is raised as a Lua error.
    pub fn create_function<A, R, F>(&self, f: F) -> Result<Function>
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static,
    {
        let id = self.typed_native::<F, A, R>()?;
        let lua = Rc::downgrade(&self.inner);
        self.with_state(|st| {
            let holder = st.new_userdata_opaque(TypedBox { f: Rc::new(f), lua }, None);
            let f = st.new_rust_closure(id, vec![holder]);
            Function(self.make_ref(st, f))
        })
    }

    /// The trampoline native for closures of type `F`, registered on first
    /// use (a closure type has one signature, so `F` determines `A` and
    /// `R`). Not by name: the name `"lua.callback"` stays the boxed
    /// trampoline's.
    fn typed_native<F, A, R>(&self) -> Result<NativeId>
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static,
    {
        let tid = TypeId::of::<F>();
        if let Some(&id) = self.inner.typed_natives.borrow().get(&tid) {
            return Ok(id);
        }
        let id = self.with_state(|st| {
            let id = NativeId(st.natives.len() as u32);
            let f: crate::state::NativeFn = typed_trampoline::<F, A, R>;
            st.natives.push(crate::state::NativeEntry { name: "lua.callback", f });
            id
        })?;
        self.inner.typed_natives.borrow_mut().insert(tid, id);
        Ok(id)
    }

    /// [`Lua::create_function`] for an `FnMut`. A recursive call of the same
    /// function (through Lua) is an error.
    pub fn create_function_mut<A, R, F>(&self, f: F) -> Result<Function>
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: FnMut(&Lua, A) -> Result<R> + 'static,
    {
        let f = RefCell::new(f);
        self.create_function(move |lua, a: A| {
            let mut f = f
                .try_borrow_mut()
                .map_err(|_| Error::runtime("mutable callback called recursively"))?;
            f(lua, a)
        })
    }

    /// The Rust closure value for a boxed callback (see the module docs).
    pub(crate) fn create_callback(&self, cb: Callback) -> Result<Function> {
        let id = self.inner.callback_id;
        self.with_state(|st| {
            let lua = Rc::downgrade(&self.inner);
            let holder = st.new_userdata_opaque(CallbackBox { cb, lua }, None);
            let f = st.new_rust_closure(id, vec![holder]);
            Function(self.make_ref(st, f))
        })
    }

    /// A new coroutine running `f` (resume it with [`Thread::resume`]).
    pub fn create_thread(&self, f: Function) -> Result<Thread> {
        self.with_state(|st| {
            let co = st.new_thread(f.0.raw(st));
            Thread(self.make_ref(st, Raw::Thread(co)))
        })
    }

    /// A new userdata holding `data`, with the metatable built from `T`'s
    /// [`UserData`] implementation (once per type).
    pub fn create_userdata<T: UserData>(&self, data: T) -> Result<AnyUserData> {
        userdata::create(self, data)
    }

    /// Stores `v` in the registry; the key keeps it alive until dropped or
    /// passed to [`Lua::remove_registry_value`]. A key holds the state
    /// weakly: it may be kept inside Lua-owned data without a cycle.
    pub fn create_registry_value(&self, v: impl IntoLua) -> Result<RegistryKey> {
        let v = v.into_lua(self)?;
        self.with_state(|st| {
            let raw = v.to_raw(st);
            RegistryKey::new(&self.inner, st.pin(raw))
        })
    }

    /// The value stored under `key`.
    pub fn registry_value<T: FromLua>(&self, key: &RegistryKey) -> Result<T> {
        let v = self.with_state(|st| {
            let raw = key.raw(st);
            self.wrap(st, raw)
        })?;
        T::from_lua(v, self)
    }

    /// Releases `key` (as dropping it does).
    pub fn remove_registry_value(&self, key: RegistryKey) -> Result<()> {
        drop(key);
        self.with_state(|_| ())
    }

    /// Runs a full garbage collection (after releasing dropped handles).
    pub fn collect_garbage(&self) -> Result<()> {
        self.run(|st| {
            st.collect_garbage();
            Ok(())
        })
    }

    /// Runs a full garbage collection (mlua's name for
    /// [`Lua::collect_garbage`]).
    pub fn gc_collect(&self) -> Result<()> {
        self.collect_garbage()
    }

    /// Does a basic step of the incremental collector; true if a cycle
    /// ended (mlua's `gc_step`).
    pub fn gc_step(&self) -> Result<bool> {
        self.gc_step_kbytes(0)
    }

    /// Does the collector's work of allocating `kbytes` KB; true if a
    /// cycle ended.
    pub fn gc_step_kbytes(&self, kbytes: i32) -> Result<bool> {
        self.run(|st| Ok(st.gc_step(kbytes.max(0) as usize)))
    }

    /// Stops automatic collection.
    pub fn gc_stop(&self) {
        let _ = self.with_state(|st| st.gc_set_running(false));
    }

    /// Restarts automatic collection.
    pub fn gc_restart(&self) {
        let _ = self.with_state(|st| st.gc_set_running(true));
    }

    /// Whether automatic collection runs.
    pub fn gc_is_running(&self) -> bool {
        self.with_state(|st| st.gc_is_running()).unwrap_or(false)
    }

    /// Incremental mode with its parameters (pause %, step multiplier, log2
    /// of the step size; 0 keeps one); returns the previous mode.
    pub fn gc_inc(&self, pause: i32, step_multiplier: i32, step_size: i32) -> GCMode {
        let p = |x: i32| x.max(0) as u32;
        let old =
            self.with_state(|st| st.gc_incremental(p(pause), p(step_multiplier), p(step_size)));
        GCMode::of(old.unwrap_or("incremental"))
    }

    /// Generational mode with its minor and major multipliers
    /// (percentages; 0 keeps one); returns the previous mode.
    pub fn gc_gen(&self, minor_multiplier: i32, major_multiplier: i32) -> GCMode {
        let p = |x: i32| x.max(0) as u32;
        let old =
            self.with_state(|st| st.gc_generational(p(minor_multiplier), p(major_multiplier)));
        GCMode::of(old.unwrap_or("incremental"))
    }

    /// Stores `v` in the registry under the name `key` (replacing what was
    /// there).
    pub fn set_named_registry_value(&self, key: &str, v: impl IntoLua) -> Result<()> {
        let v = v.into_lua(self)?;
        self.with_state(|st| {
            let (reg, k) = (st.registry(), st.intern(key.as_bytes()));
            let raw = v.to_raw(st);
            st.raw_set_str(reg, k, raw);
        })
    }

    /// The value stored in the registry under the name `key` (nil if none).
    pub fn named_registry_value<T: FromLua>(&self, key: &str) -> Result<T> {
        let v = self.with_state(|st| {
            let (reg, k) = (st.registry(), st.intern(key.as_bytes()));
            let raw = st.table(reg).get_str(k);
            self.wrap(st, raw)
        })?;
        T::from_lua(v, self)
    }

    /// Removes the value stored in the registry under the name `key`.
    pub fn unset_named_registry_value(&self, key: &str) -> Result<()> {
        self.set_named_registry_value(key, Value::Nil)
    }

    /// Bytes in use by the Lua heap (the collector's accounting).
    pub fn used_memory(&self) -> usize {
        self.with_state(|st| st.memory_in_use()).unwrap_or(0)
    }

    /// Converts `v` to a Lua value.
    pub fn pack(&self, v: impl IntoLua) -> Result<Value> {
        v.into_lua(self)
    }

    /// Converts a Lua value to `T`.
    pub fn unpack<T: FromLua>(&self, v: Value) -> Result<T> {
        T::from_lua(v, self)
    }

    /// Sets the memory limit, in bytes of the collector's accounting
    /// ([`Lua::used_memory`]); `0` removes it. Returns the previous limit
    /// (`0` for none), as mlua. An allocation past it (after a full
    /// collection) fails with `not enough memory` ([`ErrorKind::Memory`]);
    /// the state stays usable.
    pub fn set_memory_limit(&self, bytes: usize) -> Result<usize> {
        self.with_state(|st| {
            let old = st.memory_limit().unwrap_or(0);
            st.set_memory_limit((bytes != 0).then_some(bytes));
            old
        })
    }

    /// Sets (or with `None` removes) the instruction budget, counted from
    /// now: past it, the running script fails with
    /// [`ErrorKind::InstructionLimit`], which `pcall` in Lua cannot catch.
    /// Set it again to run more code.
    pub fn set_instruction_limit(&self, n: Option<u64>) -> Result<()> {
        self.with_state(|st| st.set_instruction_limit(n))
    }

    /// Instructions left under the budget (`None` without one).
    pub fn instructions_left(&self) -> Option<u64> {
        self.with_state(|st| st.instructions_left()).ok().flatten()
    }

    /// A handle (`Send + Sync`) that stops the running script from any
    /// thread: it fails with [`ErrorKind::Interrupted`], not catchable by
    /// `pcall`, until [`InterruptHandle::clear`] is called.
    pub fn interrupt_handle(&self) -> Result<InterruptHandle> {
        self.with_state(|st| st.interrupt_handle())
    }

    /// Replaces where `print` writes (default: the process's stdout).
    pub fn set_stdout(&self, w: Box<dyn std::io::Write>) -> Result<()> {
        self.with_state(|st| st.set_stdout(w))
    }

    /// Takes a snapshot of the whole Lua state ([`State::snapshot`]): a
    /// savepoint that [`Lua::rollback`] returns to. Handles created after
    /// the snapshot stop naming anything once it is rolled back to (they
    /// read as `nil`); handles created before it keep working.
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.with_state(|st| st.snapshot())?
    }

    /// Restores the state of snapshot `s` exactly ([`State::rollback`]);
    /// `s` stays open.
    pub fn rollback(&self, s: Snapshot) -> Result<()> {
        self.with_state(|st| st.rollback(s))?
    }

    /// Closes snapshot `s` (and newer ones), keeping the current state
    /// ([`State::release`]).
    pub fn release(&self, s: Snapshot) -> Result<()> {
        self.with_state(|st| st.release(s))?
    }

    /// The 128-bit hash of the reachable state ([`State::state_hash`]):
    /// equal across processes for the same program and inputs.
    pub fn state_hash(&self) -> Result<u128> {
        self.with_state(|st| st.state_hash())
    }

    /// The whole state as bytes ([`State::save_state`]). Refused while the
    /// state holds Rust callbacks or userdata without a persistence format.
    pub fn save_state(&self) -> Result<Vec<u8>> {
        self.with_state(|st| st.save_state())?
    }

    /// Replaces the state by one saved with [`Lua::save_state`]
    /// ([`State::load_state`]); on error nothing changes. Handles of the
    /// replaced state stop naming anything.
    pub fn load_state(&self, bytes: &[u8]) -> Result<()> {
        self.with_state(|st| st.load_state(bytes))?
    }
}

/// How many raw values a call or callback copies off the stack without
/// allocating.
const RAW_BUF: usize = 8;

/// Copies `src` (at most [`RAW_BUF`] values) to the front of `dst` and
/// returns that part, word by word: the values were just written by the
/// VM, and a 16-byte copy (`memcpy`) would stall (see `execute::load`).
#[inline(always)]
fn copy_raws<'a>(dst: &'a mut [Raw; RAW_BUF], src: &[Raw]) -> &'a [Raw] {
    for (d, s) in dst.iter_mut().zip(src) {
        crate::execute::store(d, crate::execute::load(s));
    }
    &dst[..src.len().min(RAW_BUF)]
}

/// The payload of a callback's holder userdata: the closure and its `Lua`
/// (weakly: the state owns the payload).
struct CallbackBox {
    cb: Callback,
    lua: std::rc::Weak<Inner>,
}

/// [`CallbackBox`] of a [`Lua::create_function`] closure, typed.
struct TypedBox<F> {
    f: Rc<F>,
    lua: std::rc::Weak<Inner>,
}

/// The trampoline native (`"lua.callback"`) of boxed callbacks (userdata
/// methods, fields and metamethods): calls the callback in upvalue 0 with
/// the running state lent to the `Lua` (see the module docs).
fn trampoline(st: &mut State) -> std::result::Result<Action, Error> {
    let found = match st.native_upvalue(0) {
        Raw::UserData(u) => payload::<CallbackBox>(st, u),
        _ => None,
    };
    let Some(found) = found else {
        return Err(st.native_error("Rust callback lost its closure"));
    };
    let cb = found.cb.clone();
    let lua = found.lua.upgrade();
    call_lent(st, lua, |lua, args| cb(lua, args))
}

/// The trampoline native of a [`Lua::create_function`] closure of type `F`
/// (one per closure type, see [`Lua::typed_native`]): as [`trampoline`],
/// with the conversions and the call inlined.
fn typed_trampoline<F, A, R>(st: &mut State) -> std::result::Result<Action, Error>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, A) -> Result<R> + 'static,
{
    let found = match st.native_upvalue(0) {
        Raw::UserData(u) => payload::<TypedBox<F>>(st, u),
        _ => None,
    };
    let Some(found) = found else {
        return Err(st.native_error("Rust callback lost its closure"));
    };
    let f = found.f.clone();
    let lua = found.lua.upgrade();
    call_lent(st, lua, |lua, args| {
        let a = A::from_raw_args(args, 1, lua)?;
        f(lua, a)?.push_into_stack_multi(lua)
    })
}

/// The payload of userdata `u` if it is an `Opaque<T>` (upcast to `dyn
/// Any`: one virtual call, where `Payload::downcast_ref` makes two).
#[inline(always)]
fn payload<T: 'static>(st: &State, u: crate::value::UserDataRef) -> Option<&T> {
    let any: &dyn Any = &*st.heap.userdata.get(u).data;
    any.downcast_ref::<crate::userdata::Opaque<T>>().map(|o| &o.0)
}

/// The body of the trampolines: runs `cb` on the arguments of the running
/// native with the state lent to `lua` (`None`: the `Lua` is gone), and
/// returns its results.
#[inline(always)]
fn call_lent(
    st: &mut State,
    lua: Option<Rc<Inner>>,
    cb: impl FnOnce(&Lua, &[Raw]) -> Result<usize>,
) -> std::result::Result<Action, Error> {
    let Some(inner) = lua else {
        return Err(st.native_error("Rust callback called outside its Lua state"));
    };
    let lua = Lua { inner };
    if !matches!(lua.inner.state.try_borrow().as_deref(), Ok(None)) {
        // The state runs without having been moved out (a low-level call
        // on a state the API also holds): cannot lend it.
        return Err(st.native_error("Rust callback called while its Lua state is borrowed"));
    }
    // The arguments, copied (they stay alive in their stack slots, which
    // nothing pops while the callback runs).
    let base = st.arg_base();
    let mut buf = [Raw::Nil; RAW_BUF];
    let heap: Vec<Raw>;
    let args = match st.ex.stack.get(base..).unwrap_or(&[]) {
        vals if vals.len() <= RAW_BUF => copy_raws(&mut buf, vals),
        vals => {
            heap = vals.to_vec();
            &heap[..]
        }
    };
    if lua.inner.lent.0.get().is_some() {
        return Err(st.native_error("Lua state is busy"));
    }
    let out = {
        let _lent = LendGuard::lend(&lua.inner.lent, st);
        cb(&lua, args)
    };
    match out {
        Ok(n) => {
            st.check_stack(0, "too many results")?;
            Ok(Action::Return(n))
        }
        Err(e) => Err(into_vm_error(st, e)),
    }
}

/// Turns an error made by host code (nil value, message set) into a Lua
/// error whose value is the message with the caller's position; errors
/// that already carry a Lua value pass through.
fn into_vm_error(st: &mut State, e: Error) -> Error {
    if !e.value.is_nil() || e.message.is_empty() {
        return e;
    }
    let detail = e.detail.clone();
    let mut out = match e.kind() {
        crate::error::ErrorKind::BadArgument { pos, .. } => {
            let pos = *pos;
            let prefix = format!("bad argument #{pos} (");
            let extra = e.message.strip_prefix(&prefix).and_then(|m| m.strip_suffix(')'));
            let extra = extra.unwrap_or(&e.message).to_string();
            let (name, _) = st.running_native_name();
            let mut out = st.arg_error(pos, &extra);
            out.detail = detail;
            return out.with_kind(crate::error::ErrorKind::BadArgument { pos, func: name });
        }
        _ => st.native_error(&e.message),
    };
    out.detail = detail;
    out
}
