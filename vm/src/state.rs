//! The Lua state: everything the VM knows, in one value.
//!
//! [`State`] owns the heap, the registry, the per-type metatables, the
//! registered natives, the collector's state, and the running thread's
//! [`ExecState`] (stack and frames, kept here rather than in the thread
//! object so that the dispatch loop reaches registers with one index).
//!
//! **Determinism.** Everything the VM does is a function of the `State`:
//! there are no globals, thread-locals, clocks, random seeds or machine
//! addresses in it. Object identities (`tostring` of a table) are derived
//! from arena indices; tables iterate in insertion order; the collector is
//! paced by the VM's own byte accounting. The same program therefore builds
//! a bit-identical heap in any process.
//!
//! **The schema.** The struct is declared through `state_schema!`
//! (`schema.rs`): every field carries a class (*world*, *heap*, *host*,
//! *scratch*) that decides what snapshots, persistence, the hashes and the
//! collector do with it; their code is generated from the declaration.
//! A new field needs a class, and a new world field's type a `WorldField`
//! implementation (and a perturbation in the schema tests).
//!
//! **Natives.** A Rust function is registered once under a stable name
//! (`"print"`, `"coroutine.wrap"`); function values refer to it by
//! [`NativeId`]. A snapshot written to disk can re-bind natives by name.
//!
//! **The native ABI.** A native is a [`NativeFn`]: `fn(&mut State) ->
//! Result<Action, Error>`. Its arguments are the top of the running stack
//! (read them with [`State::arg`], [`State::nargs`]); it pushes its results
//! with [`State::push`] and returns [`Action::Return`]`(n)`: the last `n`
//! values on the stack are the results. It may instead ask the VM to call a
//! function for it ([`Action::Call`]: push the function and its arguments,
//! name a continuation) or to yield ([`Action::Yield`]); the VM runs the
//! callee as an ordinary frame of the interpreter loop, without recursion on
//! the Rust stack, and then invokes the continuation ([`KFn`]) with the
//! callee's results on top of the native's stack window. Natives written
//! this way can be yielded across (pcall, xpcall, coroutine.wrap, ...).
//!
//! **Rooting.** The collector runs only at *safe points*: certain
//! instructions of the interpreter loop (NEWTABLE, CONCAT, CLOSURE and the
//! return from a native) and explicit requests ([`State::collect_garbage`],
//! `collectgarbage`). Allocation functions of the API never collect. Hence a
//! native or embedder may hold handles in Rust variables freely until it
//! runs Lua code (a nested call via [`State::call_value`], or returning to
//! the VM). Across such a point a handle must be on the Lua stack (arguments
//! and pushed values are), in a table reachable from the registry, or
//! pinned ([`State::pin`]). At a safe point of the loop the running frame's
//! registers above the instruction's live ones are dead: the collector sets
//! them to nil rather than mark them (`gc.rs`'s `gc_safe_point`). Every
//! slot below a stack's length is marked or was written since the last
//! atomic step, so it names no freed object; the slots above the length
//! that a stack keeps (`stack.rs`) rely on this rule.

use crate::error::Error;
use crate::func::NativeId;
use crate::gc::GcState;
use crate::heap::Heap;
use crate::meta::{TM_N, TM_NAMES};
use crate::thread::{CoStatus, ExecState, Thread};
use crate::value::{StrRef, TableRef, ThreadRef, Type, Value};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;

/// The natives by registered name. Only looked up (never iterated), and
/// looked up at every `string.gmatch` and every other native that makes a
/// closure, so hashed (a tree of two hundred names cost ~480
/// instructions a lookup).
pub(crate) type NativeNames =
    hashbrown::HashMap<&'static str, NativeId, BuildHasherDefault<NameHasher>>;

/// The hash of [`NativeNames`]: the VM's portable string hash.
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(17) ^ crate::string::hash_bytes(bytes);
    }
}

/// A native function (see the module docs for the ABI).
pub type NativeFn = fn(&mut State) -> Result<Action, Error>;

/// A continuation: called when the function a native asked to call returns
/// (status [`Status::Ok`]), when the native is resumed after a yield
/// ([`Status::Yield`]), or when a protected call's callee failed
/// ([`Status::Error`], the error value on top of the stack). The `i64` is the
/// context the native passed along.
pub type KFn = fn(&mut State, Status, i64) -> Result<Action, Error>;

/// Why a continuation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The requested call returned; its results are on top of the stack.
    Ok,
    /// The coroutine was resumed; the resume arguments are on top.
    Yield,
    /// The protected call failed; the error value is on top.
    Error,
}

/// What a native asks the VM to do when it returns.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    /// Return the last `n` values of the stack.
    Return(usize),
    /// Call the function at `stack[len - nargs - 1]` with the `nargs` values
    /// above it, keeping `nresults` results (`-1`: all). Then run the
    /// continuation, or, with `None`, return the callee's results as the
    /// native's own (a tail call).
    Call {
        /// Number of arguments pushed after the function.
        nargs: usize,
        /// Results wanted (`-1`: all).
        nresults: i32,
        /// Continuation and its context.
        k: Option<(KFn, i64)>,
    },
    /// Yield the last `nvalues` values of the stack to the resumer. When
    /// resumed, run the continuation; without one, the resume arguments
    /// become the native's results.
    Yield {
        /// Number of values yielded.
        nvalues: usize,
        /// Continuation and its context.
        k: Option<(KFn, i64)>,
    },
    /// Resume a coroutine, the outcome being the native's: what
    /// `coroutine.resume` and the functions of `coroutine.wrap` return.
    /// Built by the coroutine library only (its fields are private); a
    /// host resumes with [`State::resume`].
    Resume(ResumeRequest),
}

/// A resume asked for by [`Action::Resume`]: of coroutine `co`, with the
/// top `nargs` values of the stack as arguments; `lead`: as
/// `coroutine.resume` (`true` and the values, or `false` and the error),
/// else as a function of `coroutine.wrap` (the values, or the error
/// raised). The dispatch loop carries it out in place when it can
/// (`coswitch.rs`), else it nests.
#[derive(Clone, Copy, Debug)]
pub struct ResumeRequest {
    pub(crate) co: ThreadRef,
    pub(crate) nargs: usize,
    pub(crate) lead: bool,
}

/// A registered native.
#[derive(Clone, Copy)]
pub struct NativeEntry {
    /// Stable name.
    pub name: &'static str,
    /// The function.
    pub f: NativeFn,
}

/// Registry index of the main thread.
pub const RIDX_MAINTHREAD: i64 = 1;
/// Registry index of the globals table.
pub const RIDX_GLOBALS: i64 = 2;

/// Maximum number of stack slots of a thread (`LUAI_MAXSTACK`).
pub const MAX_STACK: usize = 1_000_000;
/// Maximum nesting of C calls (`LUAI_MAXCCALLS`): see "The C-call count"
/// in `call.rs`.
pub const MAX_CCALLS: u32 = 200;
/// Stack slots beyond [`MAX_STACK`] that a message handler may use
/// (`ERRORSTACKSIZE - LUAI_MAXSTACK`).
pub const ERROR_STACK_RESERVE: usize = 200;

/// A hook called when the instruction budget runs out.
pub type BudgetHook = fn(&mut State) -> Result<(), Error>;

/// A handle on a value pinned as a GC root (see [`State::pin`]): the pin
/// slot's index (`.0`) and a generation, so that a released pin (or one a
/// rollback discarded) is never taken for a later pin in the same slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pin(pub u32, u32);

crate::state_schema! { @state
    /// The Lua state. Every field carries its class (`schema.rs`): what
    /// snapshots, persistence, the hashes and the collector do with it.
    pub struct State {
        /// The heap.
        [heap] pub(crate) heap: Heap,
        /// The running thread's execution state.
        [world] pub(crate) ex: ExecState,
        /// Host data covered with the heap ([`State::set_host_data`]).
        [world] pub(crate) host_data: crate::schema::HostDataMap,
        /// The running thread.
        [world] pub(crate) running: ThreadRef,
        /// The main thread.
        [world] pub(crate) main_thread: ThreadRef,
        /// The registry table.
        [world] pub(crate) registry: TableRef,
        /// The globals table.
        [world] pub(crate) globals: TableRef,
        /// `registry._LOADED`.
        [world] pub(crate) loaded: TableRef,
        /// Metatables of the non-table, non-userdata types, by [`Type`].
        [world] pub(crate) type_meta: [Option<TableRef>; 8],
        /// Metamethod names, interned (`__index`, ...), indexed by `TM`.
        [world] pub(crate) tm_names: [StrRef; TM_N],
        /// Type names, interned (what `type()` returns), indexed by [`Type`].
        [world] pub(crate) type_names: [StrRef; Type::N],
        /// Registered natives.
        [host] pub(crate) natives: Vec<NativeEntry>,
        /// Name → native id.
        [host] pub(crate) native_names: NativeNames,
        /// Collector state.
        [world] pub(crate) gc: GcState,
        /// Pinned values (roots held by Rust code).
        [world] pub(crate) pins: Vec<Value>,
        /// Free pin slots.
        [world] pub(crate) free_pins: Vec<u32>,
        /// The C-call count of `ldo.c`'s `nCcalls` (its low half), less
        /// `host_ccalls`: Rust-level calls (resume, call_value), and the
        /// loop's frames that a C function's `lua_call` would have made
        /// (see "The C-call count" in `call.rs`).
        [scratch] pub(crate) n_ccalls: u32,
        /// Frames of the running thread below this index were pushed before
        /// its current resume: they hold no C call any more
        /// (`lua_resume` resets the count).
        [scratch] pub(crate) ccall_mark: u32,
        /// `n_ccalls` as the running coroutine's resume set it (0 in the
        /// main thread): what an error caught in the coroutine returns to.
        [scratch] pub(crate) ccall_base: u32,
        /// The resumes the dispatch loop carries out in place, innermost
        /// last (`coswitch.rs`): what a nested resume keeps on the Rust
        /// stack.
        [scratch] pub(crate) loop_resumes: Vec<crate::coswitch::LoopResume>,
        /// C calls the host runs the state's entry points under
        /// ([`State::set_host_c_calls`]).
        [host] pub(crate) host_ccalls: u32,
        /// Message handlers running (they may use the error stack reserve).
        [scratch] pub(crate) in_msgh: u32,
        /// Charged instructions left before the next limits check, where the
        /// budget hook runs (`limits.rs`: backward jumps and calls are
        /// charged; the check sets it again). Host: one half of the limits'
        /// accounting (`schema.rs`).
        [host] pub(crate) budget: i64,
        /// The lookup hint for `__index` in the string metatable, for the
        /// dispatch loop's SELF on a string (`meta::string_method`). A
        /// cache that changes no answer (see `TableView::get_str_hinted`),
        /// so host: none of the four consumers needs it.
        [host] pub(crate) str_meta_hint: std::cell::Cell<u32>,
        /// Per event, the hash entry where `fast_tm` last found it in a
        /// metatable too big to scan (classes whose metatable holds their
        /// methods): checked before use, a cache as `str_meta_hint`.
        [host] pub(crate) tm_hints: [std::cell::Cell<u32>; TM_N],
        /// Where the last `next` found its key's successor: tried first by
        /// the following call, whose key is usually that one (a `pairs`
        /// loop). Checked before use (the key must be at that position),
        /// so it never changes a result and is not state.
        [host] pub(crate) next_hint: usize,
        /// The heap's bytes when the last ordinary call of a native began
        /// (`call_native`): at the safe point after it returns, equal or
        /// more tells that it allocated nothing, and generational mode
        /// takes no step there (`loop_safe_point`). Set by every such call
        /// before it is read, on the same path in every process, so not
        /// state.
        [host] pub(crate) native_mark: usize,
        /// Advanced by the collector's atomic step and by a return to rest:
        /// a stack stored in its thread keeps what lies above its length
        /// only while this stays the same (`stack.rs`). It changes no
        /// answer, so host.
        [host] pub(crate) stack_epoch: u64,
        /// The budget hook, run at every limits check.
        [host] pub(crate) budget_hook: Option<BudgetHook>,
        /// Where `print` writes.
        [host] pub(crate) stdout: Box<dyn Write>,
        /// Where warnings go.
        [host] pub(crate) stderr: Box<dyn Write>,
        /// Whether warnings are on (`warn("@on")`).
        [world] pub(crate) warn_on: bool,
        /// A warning being assembled from pieces.
        [world] pub(crate) warn_buf: Vec<u8>,
        /// The value of the last error returned by the API, kept alive.
        [world] pub(crate) last_error: Value,
        /// Scratch buffer for string building.
        [scratch] pub(crate) buf: Vec<u8>,
        /// Whether the state is closing (no more finalizer registration).
        [scratch] pub(crate) closing: bool,
        /// The collector's buffer, in a minor collection, for the objects
        /// listed `old1` (`gc/generational.rs`): kept, so that a minor
        /// collection allocates nothing for them; empty between uses.
        [scratch] pub(crate) gc_roots: Vec<crate::schema::ObjRef>,
        /// The snapshot journal (`snapshot.rs`).
        [host] pub(crate) journal: crate::snapshot::Journal,
        /// Continuations and payload loaders registered for persistence
        /// (`persist.rs`).
        [host] pub(crate) persist: crate::persist::Registry,
        /// Debug hooks (`debug.rs`).
        [world] pub(crate) hooks: crate::debug::Hooks,
        /// Memory and instruction limits, interrupt flag (`limits.rs`).
        [host] pub(crate) limits: crate::limits::Limits,
        /// The embedding API's per-state data (`lua/`), if a `Lua` owns this
        /// state.
        [host] pub(crate) host: Option<std::rc::Weak<dyn std::any::Any>>,
        /// Whether `load` accepts binary chunks (the sandbox set refuses them).
        [host] pub(crate) allow_binary_chunks: bool,
        /// The embedder's own data, one value per type ([`State::set_app_data`]).
        [host] pub(crate) app_data: Vec<Box<dyn std::any::Any>>,
    }
}

impl State {
    /// A new state with the base and coroutine libraries opened.
    pub fn new() -> State {
        let mut st = State::new_bare();
        crate::baselib::open(&mut st);
        crate::corolib::open(&mut st);
        st
    }

    /// A new state with no library opened (only the registry, `_G` empty).
    pub fn new_bare() -> State {
        let mut heap = Heap::default();
        let registry = heap.new_table(2, 2);
        let globals = heap.new_table(0, 32);
        let loaded = heap.new_table(0, 8);
        let main = Thread {
            status: CoStatus::Running,
            started: true,
            ex: ExecState::default(),
            is_main: true,
            error: Value::Nil,
        };
        let main_thread = heap.new_thread(main);
        let tm_names = TM_NAMES.map(|n| heap.intern(n.as_bytes()));
        let type_names = Type::ALL.map(|t| heap.intern(t.name().as_bytes()));
        let mut st = State {
            heap,
            ex: ExecState::default(),
            running: main_thread,
            main_thread,
            registry,
            globals,
            loaded,
            type_meta: [None; 8],
            tm_names,
            type_names,
            natives: Vec::new(),
            native_names: NativeNames::default(),
            gc: GcState::new(),
            pins: Vec::new(),
            free_pins: Vec::new(),
            n_ccalls: 0,
            ccall_mark: 0,
            ccall_base: 0,
            loop_resumes: Vec::new(),
            host_ccalls: 0,
            in_msgh: 0,
            budget: crate::limits::SLICE,
            str_meta_hint: Default::default(),
            tm_hints: Default::default(),
            next_hint: 0,
            native_mark: 0,
            stack_epoch: 0,
            budget_hook: None,
            stdout: Box::new(std::io::BufWriter::new(std::io::stdout())),
            stderr: Box::new(std::io::stderr()),
            warn_on: false,
            warn_buf: Vec::new(),
            last_error: Value::Nil,
            buf: Vec::new(),
            closing: false,
            gc_roots: Vec::new(),
            journal: Default::default(),
            persist: Default::default(),
            hooks: Default::default(),
            limits: Default::default(),
            host: None,
            allow_binary_chunks: true,
            app_data: Vec::new(),
            host_data: Default::default(),
        };
        st.raw_set_int(registry, RIDX_MAINTHREAD, Value::Thread(main_thread));
        st.raw_set_int(registry, RIDX_GLOBALS, Value::Table(globals));
        let k = st.heap.intern(b"_LOADED");
        st.raw_set_str(registry, k, Value::Table(loaded));
        let g = st.heap.intern(b"_G");
        st.raw_set_str(loaded, g, Value::Table(globals));
        st.gc.reset_threshold(st.heap.bytes, 0);
        st
    }

    // ----- natives -------------------------------------------------------

    /// Registers a native under a stable name and returns a function value
    /// for it. Registering the same name again replaces the function (the
    /// id stays the same).
    pub fn register_native(&mut self, name: &'static str, f: NativeFn) -> Value {
        let id = self.native_id(name, f);
        let h = self.heap.new_rust_fn(crate::func::RustClosure { id, upvalues: Vec::new() });
        Value::RustFn(h)
    }

    /// Registers a native and returns its id (for closures with upvalues).
    pub fn native_id(&mut self, name: &'static str, f: NativeFn) -> NativeId {
        if let Some(&id) = self.native_names.get(name) {
            self.natives[id.0 as usize].f = f;
            return id;
        }
        let id = NativeId(self.natives.len() as u32);
        self.natives.push(NativeEntry { name, f });
        self.native_names.insert(name, id);
        id
    }

    /// A Rust closure value: native `id` with upvalues.
    pub fn new_rust_closure(&mut self, id: NativeId, upvalues: Vec<Value>) -> Value {
        Value::RustFn(self.heap.new_rust_fn(crate::func::RustClosure { id, upvalues }))
    }

    /// The registered name of a native.
    pub fn native_name(&self, id: NativeId) -> &'static str {
        self.natives[id.0 as usize].name
    }

    /// Registers a native and stores it in table `t` under `field`.
    pub fn set_native_field(&mut self, t: TableRef, field: &str, name: &'static str, f: NativeFn) {
        let v = self.register_native(name, f);
        let k = self.heap.intern(field.as_bytes());
        self.raw_set_str(t, k, v);
    }

    // ----- simple accessors ----------------------------------------------

    /// The globals table.
    pub fn globals(&self) -> TableRef {
        self.globals
    }

    /// The registry table.
    pub fn registry(&self) -> TableRef {
        self.registry
    }

    /// The `_LOADED` table (`package.loaded`).
    pub fn loaded_table(&self) -> TableRef {
        self.loaded
    }

    /// The main thread.
    pub fn main_thread(&self) -> ThreadRef {
        self.main_thread
    }

    /// The running thread.
    pub fn running_thread(&self) -> ThreadRef {
        self.running
    }

    /// The metatable of any value (own metatable for tables and userdata,
    /// the per-type one otherwise).
    #[inline]
    pub fn metatable(&self, v: Value) -> Option<TableRef> {
        match v {
            Value::Table(t) => self.heap.tables.get(t).meta,
            Value::UserData(u) => self.heap.userdata.get(u).meta,
            _ => self.type_meta[v.type_of() as usize],
        }
    }

    /// Sets the metatable of a basic type (e.g. the string metatable).
    pub fn set_type_metatable(&mut self, ty: Type, mt: Option<TableRef>) {
        self.type_meta[ty as usize] = mt;
    }

    /// Replaces the writer `print` uses.
    pub fn set_stdout(&mut self, w: Box<dyn Write>) {
        let _ = self.stdout.flush();
        self.stdout = w;
    }

    /// Replaces the writer warnings go to.
    pub fn set_stderr(&mut self, w: Box<dyn Write>) {
        let _ = self.stderr.flush();
        self.stderr = w;
    }

    /// Stores `data` as the embedder's data of type `T` (as mlua's
    /// `Lua::set_app_data`), returning the previous value of that type.
    /// App data is host configuration (schema class *host*): natives reach
    /// it with [`State::app_data`], and it is never saved, hashed or rolled
    /// back, so it must not hold world state (that is [`State::set_host_data`]'s
    /// job). An engine keeps its output sinks and services here.
    pub fn set_app_data<T: 'static>(&mut self, data: T) -> Option<T> {
        let old = self.remove_app_data::<T>();
        self.app_data.push(Box::new(data));
        old
    }

    /// The embedder's data of type `T`, if set.
    pub fn app_data<T: 'static>(&self) -> Option<&T> {
        self.app_data.iter().find_map(|d| d.downcast_ref::<T>())
    }

    /// The embedder's data of type `T`, mutably, if set.
    pub fn app_data_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.app_data.iter_mut().find_map(|d| d.downcast_mut::<T>())
    }

    /// Removes and returns the embedder's data of type `T`.
    pub fn remove_app_data<T: 'static>(&mut self) -> Option<T> {
        let i = self.app_data.iter().position(|d| d.is::<T>())?;
        self.app_data.remove(i).downcast::<T>().ok().map(|b| *b)
    }

    /// Writes to the state's stdout.
    pub fn write_stdout(&mut self, bytes: &[u8]) {
        let _ = self.stdout.write_all(bytes);
    }

    /// Writes the bytes of string `s` to the state's stdout, straight from
    /// the heap (no copy through a buffer of the caller's).
    pub fn write_stdout_str(&mut self, s: StrRef) {
        let _ = self.stdout.write_all(self.heap.str(s));
    }

    /// Flushes the state's stdout.
    pub fn flush_stdout(&mut self) {
        let _ = self.stdout.flush();
    }

    /// Turns warnings on or off (as `warn("@on")`).
    pub fn set_warnings(&mut self, on: bool) {
        self.warn_on = on;
    }

    /// Emits a warning (`lua_warning`): pieces accumulate until `tocont`
    /// is false; control messages (`@on`, `@off`) switch warnings.
    pub fn warning(&mut self, msg: &[u8], tocont: bool) {
        if self.warn_buf.is_empty() && !tocont && msg.first() == Some(&b'@') {
            match msg {
                b"@on" => self.warn_on = true,
                b"@off" => self.warn_on = false,
                _ => {}
            }
            return;
        }
        self.warn_buf.extend_from_slice(msg);
        if !tocont {
            let text = std::mem::take(&mut self.warn_buf);
            self.emit_warning(&text);
        }
    }

    /// Emits a complete warning message, never as a control message (for a
    /// message given in several pieces, as `warn("", "@on")`, which prints
    /// `@on`).
    pub fn emit_warning(&mut self, text: &[u8]) {
        if self.warn_on {
            let _ = self.stdout.flush();
            let _ = self.stderr.write_all(b"Lua warning: ");
            let _ = self.stderr.write_all(text);
            let _ = self.stderr.write_all(b"\n");
            let _ = self.stderr.flush();
        }
    }

    // ----- pins -----------------------------------------------------------

    /// Pins `v`: it stays alive (is a GC root) until [`State::unpin`].
    pub fn pin(&mut self, v: Value) -> Pin {
        let i = if let Some(i) = self.free_pins.pop() {
            self.pins[i as usize] = v;
            i
        } else {
            self.pins.push(v);
            self.pins.len() as u32 - 1
        };
        Pin(i, self.journal.pin_gen(i))
    }

    /// Whether `p` is a live pin (not released, not discarded by a
    /// rollback).
    fn pin_live(&self, p: Pin) -> bool {
        (p.0 as usize) < self.pins.len() && self.journal.pin_gen(p.0) == p.1
    }

    /// The pinned value (nil for a released or discarded pin).
    pub fn pinned(&self, p: Pin) -> Value {
        if self.pin_live(p) {
            self.pins[p.0 as usize]
        } else {
            Value::Nil
        }
    }

    /// Releases a pin. Releasing a pin that is no longer live (released
    /// already, or discarded by a rollback) does nothing.
    pub fn unpin(&mut self, p: Pin) {
        if self.pin_live(p) {
            self.pins[p.0 as usize] = Value::Nil;
            self.free_pins.push(p.0);
            self.journal.bump_pin_gen(p.0);
        }
    }
}

impl Drop for State {
    /// Runs pending finalizers (as `lua_close`) and flushes the output.
    fn drop(&mut self) {
        self.close_state();
        let _ = self.stdout.flush();
        let _ = self.stderr.flush();
    }
}
