//! Writing a whole VM state to bytes and loading it into another state,
//! possibly in another process ([`State::save_state`],
//! [`State::load_state`]).
//!
//! # What is saved
//!
//! The *VM state*, everything a program's future depends on: every arena
//! of the heap with its exact layout (slot indices, free slots, free-list
//! order, so that later allocations return the same handles), the heap's
//! byte accounting, and every field of the `State`'s *world* class
//! (`schema.rs`), in declaration order, each written and read by its
//! type's `WorldField::save`/`WorldField::load`: the registry, globals
//! and `_LOADED` handles, the per-type metatables, the main and running
//! threads, the running execution state, the interned metamethod and type names,
//! the pins, the last API error, the collector's pacing and finalizer
//! lists, the warning state, the debug hooks (a state with a hook set is
//! refused: hooks are function pointers) and the host data (each by name,
//! re-created by the loader registered under it,
//! [`State::register_host_data_loader`]). The code is generated from the
//! declaration of the `State`, so a world field cannot be left out.
//! A state loaded from bytes therefore has the same `state_hash` and
//! `heap_hash` as the one saved, and running the same code in both gives
//! the same results and hashes.
//!
//! *Not* saved, because it is the receiving state's configuration (the
//! *host* class): the table of natives, stdout/stderr, the budget hook,
//! limits, the `Lua` back-pointer and the binary-chunk switch. The
//! instruction budget (`State::budget`) is not saved either: it is one
//! half of the limits' slice accounting (`limits.rs`), whose other half
//! belongs to the receiver, which keeps both (an embedder that wants the
//! budget hook to fire at the same instruction sets its limits again
//! after a load). The *scratch* class must be at rest: saving is refused
//! otherwise.
//!
//! # Re-binding Rust code by name
//!
//! Nothing process-local is written. A Rust closure refers to its native by
//! [`NativeId`], an index into the state's table of natives; the snapshot
//! carries a table `saved id -> registered name` of the natives it uses and
//! the loader maps each name to the receiver's id (the receiver opens the
//! same libraries first). A frame of a native waiting for a call or a
//! resume holds a continuation, a [`KFn`] function pointer; it is written
//! as the name it was registered under with
//! [`State::register_continuation`] (pointers compared by address) and
//! mapped back on load. A userdata payload is written through
//! [`Payload::persist`] under its [`Payload::persist_name`] and re-created
//! by the loader registered under that name
//! ([`State::register_payload_loader`]); host data likewise, by its
//! [`HostData::name`](crate::HostData::name) and the loader registered
//! under it ([`State::register_host_data_loader`]). An unknown name on
//! either side is an error that names it.
//!
//! # Format (version 5)
//!
//! Little-endian throughout. `u8`, `u32`, `u64`/`i64` are fixed width; a
//! *count* is a `u32` that must not exceed the bytes left (every element
//! takes at least one byte), so a corrupt count cannot make the loader
//! allocate more than the input's size; *bytes* are a count and the bytes.
//! A *value* is a tag byte (0 nil, 1 false, 2 true, 3 integer `i64`,
//! 4 float as its `u64` bits, 5..=10 string, table, Lua function, Rust
//! function, thread, userdata followed by the `u32` slot index).
//!
//! ```text
//! magic "LPRXSNAP", version u32
//! natives:  count, (saved id u32, name bytes)*
//! arenas, in this order: strings, tables, Lua closures, Rust closures,
//!   upvalues, prototypes, threads, userdata; each is
//!   slot count, (present u8, [object])*, free-list count, (index u32)*;
//!   a string object is a loose flag u8 (`string.rs`) and its bytes
//! heap bytes u64
//! collector state of each arena, in the same order (`arena/marks.rs`):
//!   flags u8 (1 clear, 2 barrier on), [mark words: count, u64*, unless
//!   clear], barrier list (count, u32*), sweep cursor (u8 present + u32);
//!   then the tables' barrier (on u8, listed values)
//! world fields, in the State's declaration order (`schema.rs`): the
//!   running execution state, host data (count, (name bytes, data
//!   bytes)*), running and main thread (u32), registry,
//!   globals, loaded (u32 each), 8 type metatables (u8 present + u32), the
//!   TM_N metamethod names (u32 each), the 8 type names (u32 each), collector (threshold, estimate
//!   u64, pause, stepmul u32, running u8, mode u8: 0 generational,
//!   1 incremental, finobj and tobefnz (count, values), in_fin u8, cycles
//!   u64, then the cycle of `gc/io.rs`: stepsize u32, phase u8, gray
//!   objects (count, (kind u8, index u32)*), the tables traversed in
//!   chunks (count, (u32 table, u32 position)*), weak-value,
//!   ephemeron and all-weak tables (count, u32* each), live, work and
//!   bytes at the atomic step u64), pins (count, values), free pins (count, u32*), warnings on
//!   (u8), warning buffer (bytes), last error (value), hooks (nothing:
//!   refused when set)
//! end marker "END!"
//! ```
//!
//! Objects: a string is its bytes; a table its metatable (u8 + u32),
//! flags, array (count, values), array capacity, entries (count, key and
//! value), hash capacity; a Lua closure its prototype and upvalues (count,
//! u32*); a Rust closure its saved native id and upvalues (count, values);
//! an upvalue 0 + thread + slot (open) or 1 + value (closed); a prototype
//! its code (count, u32*), constants (values), nested prototypes (u32*),
//! upvalue descriptors (name, in_stack, index, kind), parameter count,
//! vararg flag, register count, source string, line range, line info and
//! local variables (name, start, end); a thread its status, started, main
//! flag, error value and execution state; an execution state its stack
//! capacity and frame capacity (u32 each: a thread's estimated size, which
//! paces the collector, counts them), stack (values), frames, open
//! upvalues (slot, upvalue), to-be-closed slots,
//! `open_top` and `nny`; a frame its offsets, saved pc, `nextra`,
//! `nresults`, flags, result disposition, callee, continuation (u8 present,
//! name, context i64) and error level; a userdata its metatable, user
//! values and payload (persist name bytes, payload bytes).
//!
//! # Validation
//!
//! Loading trusts nothing. The bytes are first decoded into fresh arenas
//! and fields, then checked against everything the VM relies on, and only
//! then swapped into the state, so on any error the state is unchanged.
//! The checks: every handle names a live slot of the right arena
//! (tombstone keys of tables excepted: those may name freed objects and are
//! only compared; every reference is enumerated by the one object visitor
//! of `schema.rs`, and every world field's by its `WorldField::visit`,
//! host data included); free lists exact; strings distinct (the interner is
//! rebuilt from them); tables consistent ([`TableStore::table_from_parts`](crate::table::TableStore::table_from_parts), which
//! rebuilds the probe index); closures have one upvalue per descriptor of
//! their prototype; prototypes pass the bytecode verifier
//! ([`luprex_compiler::verify::verify_function`]) and their constants,
//! nested prototypes and debug information fit; every open upvalue is in
//! exactly one thread's open list, at the slot it names, below that
//! thread's stack length; frames are ordered and within the stack, Lua
//! frames' `top` is `base + max_stack` and `pc` is inside the code, flags
//! only where they make sense, result dispositions that write a register
//! of a Lua caller within its registers; thread statuses match their
//! execution states (only the main thread runs; a suspended started
//! coroutine waits in a native frame); the collector's lists name tables
//! and userdata, each once; the metamethod and type names are the right strings;
//! host data loaders accept their bytes and make data of their name.
//!
//! **Invariant:** neither saving nor loading mutates the state on failure,
//! and no input makes the loader panic or allocate much more than the size
//! of its input (fuzzed by `fuzz/fuzz_targets/snapshot_load.rs`).

use crate::arena::{Arena, Handle, Marks};
use crate::error::{Error, ErrorKind};
use crate::func::{FnProto, LuaClosure, NativeId, ProtoRef, RustClosure, UpVal, UpvalRef};
use crate::heap::Heap;
use crate::schema::{visit_object, ObjRef, Visit, World};
use crate::stack::Stack;
use crate::state::{KFn, State, ERROR_STACK_RESERVE, MAX_STACK};
use crate::string::{Interner, LuaStr};
use crate::table::{TableParts, TableView, Tables};
use crate::thread::{cist, CallInfo, Callee, CoStatus, ExecState, MetaRet, Thread};
use crate::userdata::{Payload, UserData};
use crate::value::{TableRef, ThreadRef, Value};
use luprex_compiler::verify::{verify_function, ConstKind, FnView};
use luprex_compiler::{Instruction, LocVar, OpCode, UpvalDesc};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A loader of userdata payloads: re-creates a payload from the bytes its
/// [`Payload::persist`] wrote, or `None` if they are not valid.
pub type PayloadLoader = fn(&[u8]) -> Option<Box<dyn Payload>>;

/// Names under which continuations and userdata payload loaders are
/// registered, for persistence.
#[derive(Default)]
pub(crate) struct Registry {
    /// Continuations by name, in registration order.
    continuations: Vec<(&'static str, KFn)>,
    /// Payload loaders by persist name.
    loaders: BTreeMap<&'static str, PayloadLoader>,
    /// Host data loaders by name (`schema.rs`).
    pub(crate) host_loaders: BTreeMap<&'static str, crate::schema::HostDataLoader>,
}

impl Registry {
    /// The registered name of continuation `k` (compared by address).
    fn name_of(&self, k: KFn) -> Option<&'static str> {
        let addr = k as usize;
        self.continuations.iter().find(|(_, f)| *f as usize == addr).map(|(n, _)| *n)
    }

    /// The continuation registered under `name`.
    fn by_name(&self, name: &[u8]) -> Option<KFn> {
        self.continuations.iter().find(|(n, _)| n.as_bytes() == name).map(|(_, f)| *f)
    }
}

/// File signature.
const MAGIC: &[u8; 8] = b"LPRXSNAP";
/// Format version (see the module docs).
const VERSION: u32 = 7;
/// Closing marker.
const END: &[u8; 4] = b"END!";
/// Largest stack length or frame extent accepted (the VM's own bound plus
/// the error reserve and slack for a message handler's frame).
const STACK_BOUND: usize = MAX_STACK + ERROR_STACK_RESERVE + 512;
/// Most bytes of stack capacity (beyond the stacks' contents) a snapshot
/// may make the loader reserve, over all threads.
const MAX_RESERVED: usize = 1 << 28;
/// Largest `nresults` of a frame accepted (CALL asks at most 254; natives
/// ask for a few).
const MAX_NRESULTS: i32 = 1 << 16;

/// A snapshot error (the value is nil: nothing is interned in the state).
fn snap_err(msg: impl Into<String>) -> Error {
    Error::runtime(msg).with_kind(ErrorKind::Snapshot)
}

impl State {
    /// Registers continuation `k` under a stable `name`, so that frames
    /// waiting in it can be written by [`State::save_state`] and re-bound by
    /// [`State::load_state`]. Every library registers its continuations
    /// next to its natives. Registering a name again replaces the function.
    pub fn register_continuation(&mut self, name: &'static str, k: KFn) {
        let list = &mut self.persist.continuations;
        match list.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 = k,
            None => list.push((name, k)),
        }
    }

    /// Registers the loader of userdata payloads whose
    /// [`Payload::persist_name`] is `name`.
    pub fn register_payload_loader(&mut self, name: &'static str, load: PayloadLoader) {
        self.persist.loaders.insert(name, load);
    }

    /// Whether Lua code is running (a native, a nested call, a coroutine,
    /// a finalizer): the state cannot be saved or replaced then.
    pub(crate) fn vm_busy(&self) -> bool {
        self.busy_scratch().is_some()
            || self.running != self.main_thread
            || !self.ex.frames.is_empty()
            || self.gc.in_fin
    }

    /// Writes the whole VM state to bytes (see the module docs for what is
    /// saved and the format). Fails with [`ErrorKind::Snapshot`] while Lua
    /// code is running, or if the state holds something that cannot be
    /// written: a frame waiting in an unregistered continuation, or a
    /// userdata payload without a persist name. Also refused while a debug
    /// hook is set (hooks are keyed by thread handles).
    pub fn save_state(&self) -> Result<Vec<u8>, Error> {
        if self.vm_busy() {
            return Err(snap_err("cannot save the state while Lua code is running"));
        }
        let mut w = Writer { st: self, out: Vec::new() };
        w.all().map_err(snap_err)?;
        Ok(w.out)
    }

    /// Replaces this state's VM state by one written by
    /// [`State::save_state`], in this process or another. Natives,
    /// continuations and payload loaders are re-bound by name against this
    /// state's registrations (open the same libraries first); an unknown
    /// name is an error naming it. The bytes are fully validated first: on
    /// any error ([`ErrorKind::Snapshot`]) this state is left unchanged.
    /// Refused while Lua code runs, a debug hook is set or a snapshot
    /// (`snapshot.rs`) is open. Pins issued before the load are invalidated
    /// (the pin table is the saved one).
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.vm_busy() {
            return Err(snap_err("cannot load a state while Lua code is running"));
        }
        if self.hooks.any {
            return Err(snap_err("cannot load a state while a debug hook is set"));
        }
        if self.snapshot_depth() > 0 {
            return Err(snap_err("cannot load a state while snapshots are open"));
        }
        let loaded = Reader::new(self, bytes).all().map_err(snap_err)?;
        let loaded = loaded.validate().map_err(snap_err)?;
        self.install(loaded);
        Ok(())
    }

    /// Swaps a validated snapshot in.
    fn install(&mut self, l: Validated) {
        let s = l.0;
        let pins_before = self.pins.len();
        self.heap = s.heap;
        self.install_world(s.world);
        // Pins issued before the load must not match the loaded slots.
        for i in 0..pins_before.max(self.pins.len()) {
            self.journal.bump_pin_gen(i as u32);
        }
    }
}

// ============================================================================
// Writing
// ============================================================================

/// The writer of `save_state` (world fields write themselves through it,
/// `schema.rs`).
pub(crate) struct Writer<'a> {
    st: &'a State,
    out: Vec<u8>,
}

/// The result of writing.
pub(crate) type WResult = Result<(), String>;

impl Writer<'_> {
    pub(crate) fn u8(&mut self, x: u8) {
        self.out.push(x);
    }
    pub(crate) fn u32(&mut self, x: u32) {
        self.out.extend_from_slice(&x.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, x: u64) {
        self.out.extend_from_slice(&x.to_le_bytes());
    }
    pub(crate) fn len(&mut self, n: usize) -> WResult {
        let n = u32::try_from(n).map_err(|_| "a sequence too long to save".to_string())?;
        self.u32(n);
        Ok(())
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) -> WResult {
        self.len(b.len())?;
        self.out.extend_from_slice(b);
        Ok(())
    }
    pub(crate) fn value(&mut self, v: Value) {
        let (tag, idx) = match v {
            Value::Nil => return self.u8(0),
            Value::Bool(b) => return self.u8(1 + u8::from(b)),
            Value::Int(i) => {
                self.u8(3);
                return self.u64(i as u64);
            }
            Value::Float(f) => {
                self.u8(4);
                return self.u64(f.to_bits());
            }
            Value::Str(h) => (5, h.index()),
            Value::Table(h) => (6, h.index()),
            Value::LuaFn(h) => (7, h.index()),
            Value::RustFn(h) => (8, h.index()),
            Value::Thread(h) => (9, h.index()),
            Value::UserData(h) => (10, h.index()),
        };
        self.u8(tag);
        self.u32(idx);
    }
    pub(crate) fn values(&mut self, vs: &[Value]) -> WResult {
        self.len(vs.len())?;
        vs.iter().for_each(|&v| self.value(v));
        Ok(())
    }
    pub(crate) fn opt_table(&mut self, t: Option<TableRef>) {
        match t {
            Some(t) => {
                self.u8(1);
                self.u32(t.index());
            }
            None => self.u8(0),
        }
    }

    fn arena<T>(&mut self, a: &Arena<T>, mut obj: impl FnMut(&mut Self, &T) -> WResult) -> WResult {
        self.len(a.raw_slots().len())?;
        for slot in a.raw_slots() {
            match slot {
                Some(o) => {
                    self.u8(1);
                    obj(self, o)?;
                }
                None => self.u8(0),
            }
        }
        self.len(a.free_list().len())?;
        a.free_list().iter().for_each(|&i| self.u32(i));
        Ok(())
    }

    fn all(&mut self) -> WResult {
        let st = self.st;
        self.out.extend_from_slice(MAGIC);
        self.u32(VERSION);
        let used: BTreeSet<u32> = st.heap.rust_fns.iter().map(|(_, c)| c.id.0).collect();
        self.len(used.len())?;
        for id in used {
            self.u32(id);
            let name = st.natives.get(id as usize).ok_or("a closure of an unknown native")?.name;
            self.bytes(name.as_bytes())?;
        }
        let hp = &st.heap;
        self.arena(&hp.strings, |w, s| {
            w.u8(u8::from(!s.is_registered()));
            w.bytes(s.as_bytes())
        })?;
        self.arena(hp.tables.headers(), |w, t| w.table(hp.tables.store().view(t)))?;
        self.arena(&hp.lua_fns, |w, c| {
            w.u32(c.proto.index());
            w.len(c.upvals.len())?;
            c.upvals.iter().for_each(|u| w.u32(u.index()));
            Ok(())
        })?;
        self.arena(&hp.rust_fns, |w, c| {
            w.u32(c.id.0);
            w.values(&c.upvalues)
        })?;
        self.arena(&hp.upvals, |w, u| {
            match *u {
                UpVal::Open { thread, slot } => {
                    w.u8(0);
                    w.u32(thread.index());
                    w.u32(slot);
                }
                UpVal::Closed(v) => {
                    w.u8(1);
                    w.value(v);
                }
            }
            Ok(())
        })?;
        self.arena(&hp.protos, |w, p| w.proto(p))?;
        self.arena(&hp.threads, |w, t| w.thread(t))?;
        self.arena(&hp.userdata, |w, u| w.userdata(u))?;
        self.u64(hp.bytes as u64);
        self.collector(hp)?;
        st.save_world(self)?;
        self.out.extend_from_slice(END);
        Ok(())
    }

    /// The collector's state kept by the arenas (`arena/marks.rs`) and the
    /// tables' barrier.
    fn collector(&mut self, hp: &Heap) -> WResult {
        for m in crate::gc::io::all_marks(hp) {
            self.marks(m)?;
        }
        let (watch, fwd) = hp.tables.barrier_state();
        self.u8(u8::from(watch));
        self.values(fwd)
    }

    fn marks(&mut self, m: &Marks) -> WResult {
        self.u8(u8::from(m.clear) | u8::from(m.watch) << 1 | u8::from(m.gen) << 2);
        if !m.clear {
            self.len(m.bits.len())?;
            m.bits.iter().for_each(|&w| self.u64(w));
        }
        self.len(m.again.len())?;
        m.again.iter().for_each(|&i| self.u32(i));
        match m.sweep_from {
            Some(c) => {
                self.u8(1);
                self.u32(c);
            }
            None => self.u8(0),
        }
        for list in [&m.young, &m.survival, &m.old1] {
            self.len(list.len())?;
            list.iter().for_each(|&i| self.u32(i));
        }
        Ok(())
    }

    /// A collector object reference: its kind and index.
    pub(crate) fn obj_ref(&mut self, o: ObjRef) {
        self.u8(o.kind() as u8);
        self.u32(o.index());
    }

    fn table(&mut self, t: TableView<'_>) -> WResult {
        let p = t.to_parts();
        self.opt_table(p.meta);
        self.u8(p.flags);
        self.values(&p.array)?;
        self.u64(p.array_cap as u64);
        self.len(p.entries.len())?;
        for (k, v) in p.entries {
            self.value(k);
            self.value(v);
        }
        self.u64(p.hash_cap as u64);
        Ok(())
    }

    fn proto(&mut self, p: &FnProto) -> WResult {
        self.len(p.code.len())?;
        p.code.iter().for_each(|i| self.u32(i.0));
        self.values(&p.k)?;
        self.len(p.protos.len())?;
        p.protos.iter().for_each(|q| self.u32(q.index()));
        self.len(p.upvals.len())?;
        for u in p.upvals.iter() {
            self.bytes(&u.name)?;
            self.u8(u8::from(u.in_stack));
            self.u8(u.index);
            self.u8(u.kind);
        }
        self.u8(p.num_params);
        self.u8(u8::from(p.is_vararg));
        self.u8(p.max_stack);
        self.u32(p.source.index());
        self.u32(p.line_defined);
        self.u32(p.last_line_defined);
        self.len(p.line_info.len())?;
        p.line_info.iter().for_each(|&l| self.u32(l));
        self.len(p.loc_vars.len())?;
        for lv in p.loc_vars.iter() {
            self.bytes(&lv.name)?;
            self.u32(lv.start_pc);
            self.u32(lv.end_pc);
        }
        Ok(())
    }

    fn thread(&mut self, t: &Thread) -> WResult {
        self.u8(t.status.code());
        self.u8(u8::from(t.started));
        self.u8(u8::from(t.is_main));
        self.value(t.error);
        self.exec(&t.ex)
    }

    pub(crate) fn exec(&mut self, ex: &ExecState) -> WResult {
        // Capacities count in a thread's estimated size (GC accounting).
        self.len(ex.stack.capacity())?;
        self.len(ex.frames.capacity())?;
        self.values(&ex.stack)?;
        self.len(ex.frames.len())?;
        for ci in &ex.frames {
            self.frame(ci)?;
        }
        self.len(ex.open_upvals.len())?;
        for &(slot, u) in &ex.open_upvals {
            self.u32(slot);
            self.u32(u.index());
        }
        self.len(ex.tbc.len())?;
        ex.tbc.iter().for_each(|&s| self.u32(s));
        self.u32(ex.open_top);
        self.u32(ex.nny);
        Ok(())
    }

    fn frame(&mut self, ci: &CallInfo) -> WResult {
        for x in [ci.func, ci.base, ci.top, ci.pc, ci.nextra] {
            self.u32(x);
        }
        self.u32(ci.nresults as u32);
        self.u8(ci.status);
        let (tag, a, b) = ci.ret.code();
        self.out.extend_from_slice(&[tag, a, b]);
        match ci.callee {
            Callee::Lua(f) => {
                self.u8(0);
                self.u32(f.index());
            }
            Callee::Rust(f) => {
                self.u8(1);
                self.u32(f.index());
            }
        }
        match ci.k {
            Some((k, ctx)) => {
                let name = self.st.persist.name_of(k).ok_or_else(|| {
                    let native = match ci.callee {
                        Callee::Rust(f) => self
                            .st
                            .heap
                            .rust_fns
                            .try_get(f.index())
                            .and_then(|c| self.st.natives.get(c.id.0 as usize))
                            .map_or("?", |n| n.name),
                        Callee::Lua(_) => "?",
                    };
                    format!("a frame of native '{native}' waits in an unregistered continuation")
                })?;
                self.u8(1);
                self.bytes(name.as_bytes())?;
                self.u64(ctx as u64);
            }
            None => self.u8(0),
        }
        self.u32(ci.errlevel);
        Ok(())
    }

    fn userdata(&mut self, u: &UserData) -> WResult {
        self.opt_table(u.meta);
        self.values(&u.user_values)?;
        let ty = u.data.type_name();
        let name = u
            .data
            .persist_name()
            .ok_or_else(|| format!("a userdata payload of type {ty} cannot be saved"))?;
        let mut payload = Vec::new();
        if !u.data.persist(&mut payload) {
            return Err(format!("a userdata payload of type {ty} ('{name}') cannot be saved"));
        }
        self.bytes(name.as_bytes())?;
        self.bytes(&payload)
    }
}

// ============================================================================
// Reading
// ============================================================================

/// The result of reading or checking.
pub(crate) type RResult<T> = Result<T, String>;

/// The reader of `load_state` (world fields read themselves through it,
/// `schema.rs`).
pub(crate) struct Reader<'a> {
    st: &'a State,
    data: &'a [u8],
    pos: usize,
    /// Saved native id -> this state's id.
    natives: BTreeMap<u32, NativeId>,
    /// Bytes of stack capacity reserved so far.
    reserved: usize,
}

/// A decoded snapshot, not yet validated.
struct Decoded {
    heap: Heap,
    world: World,
}

/// A snapshot that passed validation.
struct Validated(Decoded);

impl<'a> Reader<'a> {
    fn new(st: &'a State, data: &'a [u8]) -> Self {
        Reader { st, data, pos: 0, natives: BTreeMap::new(), reserved: 0 }
    }

    fn take(&mut self, n: usize) -> RResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| format!("truncated snapshot (at byte {})", self.pos))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    pub(crate) fn u8(&mut self) -> RResult<u8> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn bool(&mut self) -> RResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("bad flag byte {b} at byte {}", self.pos - 1)),
        }
    }
    pub(crate) fn u32(&mut self) -> RResult<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn u64(&mut self) -> RResult<u64> {
        let mut w = [0u8; 8];
        w.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(w))
    }
    pub(crate) fn usize(&mut self) -> RResult<usize> {
        usize::try_from(self.u64()?).map_err(|_| "a size out of range".to_string())
    }
    /// A count of elements of at least `min` bytes each (bounded by the
    /// input left, so a corrupt count cannot cause a huge allocation).
    pub(crate) fn count(&mut self, min: usize) -> RResult<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min) > self.data.len() - self.pos {
            return Err(format!("count {n} exceeds the snapshot (at byte {})", self.pos - 4));
        }
        Ok(n)
    }
    pub(crate) fn bytes(&mut self) -> RResult<&'a [u8]> {
        let n = self.count(1)?;
        self.take(n)
    }
    pub(crate) fn value(&mut self) -> RResult<Value> {
        Ok(match self.u8()? {
            0 => Value::Nil,
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => Value::Int(self.u64()? as i64),
            4 => Value::Float(f64::from_bits(self.u64()?)),
            5 => Value::Str(Handle::from_index(self.u32()?)),
            6 => Value::Table(Handle::from_index(self.u32()?)),
            7 => Value::LuaFn(Handle::from_index(self.u32()?)),
            8 => Value::RustFn(Handle::from_index(self.u32()?)),
            9 => Value::Thread(Handle::from_index(self.u32()?)),
            10 => Value::UserData(Handle::from_index(self.u32()?)),
            t => return Err(format!("bad value tag {t} at byte {}", self.pos - 1)),
        })
    }
    pub(crate) fn values(&mut self) -> RResult<Vec<Value>> {
        let n = self.count(1)?;
        (0..n).map(|_| self.value()).collect()
    }
    pub(crate) fn handle<T>(&mut self) -> RResult<Handle<T>> {
        Ok(Handle::from_index(self.u32()?))
    }
    pub(crate) fn opt_table(&mut self) -> RResult<Option<TableRef>> {
        Ok(if self.bool()? { Some(self.handle()?) } else { None })
    }

    /// An arena's slots (objects read by `obj`) and free list.
    fn arena<T>(
        &mut self,
        mut obj: impl FnMut(&mut Self) -> RResult<T>,
    ) -> RResult<(Vec<Option<T>>, Vec<u32>)> {
        let n = self.count(1)?;
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            slots.push(if self.bool()? { Some(obj(self)?) } else { None });
        }
        let nfree = self.count(4)?;
        let free = (0..nfree).map(|_| self.u32()).collect::<RResult<Vec<_>>>()?;
        Ok((slots, free))
    }

    // Fields are assigned one by one so that a field added to `Heap` later
    // (with a default) does not break this function.
    #[allow(clippy::field_reassign_with_default)]
    fn all(mut self) -> RResult<Decoded> {
        if self.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
            return Err("not a luprex snapshot (bad signature)".into());
        }
        let v = self.u32()?;
        if v != VERSION {
            return Err(format!("snapshot format version {v} (this VM reads {VERSION})"));
        }
        self.natives_table()?;
        let (strs, sfree) = self.arena(|r| Ok((r.bool()?, r.bytes()?)))?;
        let strings = build_strings(strs, sfree)?;
        let tables = self.arena(|r| r.table())?;
        let lua_fns = self.arena(|r| {
            let proto = r.handle()?;
            let n = r.count(4)?;
            let upvals = (0..n).map(|_| r.handle()).collect::<RResult<Vec<_>>>()?;
            Ok((proto, upvals.into_boxed_slice()))
        })?;
        let rust_fns = self.arena(|r| {
            let saved = r.u32()?;
            let id = *r.natives.get(&saved).ok_or("a closure of a native not in the table")?;
            Ok(RustClosure { id, upvalues: r.values()? })
        })?;
        let upvals = self.arena(|r| {
            Ok(match r.u8()? {
                0 => UpVal::Open { thread: r.handle()?, slot: r.u32()? },
                1 => UpVal::Closed(r.value()?),
                t => return Err(format!("bad upvalue tag {t}")),
            })
        })?;
        let protos = self.arena(|r| r.proto())?;
        let lua_fns = closures(lua_fns, &protos.0)?;
        let threads = self.arena(|r| r.thread())?;
        let userdata = self.arena(|r| r.userdata())?;
        let (strings, interner) = strings;
        let mut heap = Heap::default();
        heap.strings = strings;
        heap.interner = interner;
        heap.tables = Tables::from_raw_parts(tables.0, tables.1)?;
        heap.lua_fns = arena(lua_fns)?;
        heap.rust_fns = arena(rust_fns)?;
        heap.upvals = arena(upvals)?;
        heap.protos = arena(protos)?;
        heap.threads = arena(threads)?;
        heap.userdata = arena(userdata)?;
        heap.bytes = self.usize()?;
        self.collector(&mut heap)?;
        let world = World::load(&mut self)?;
        if self.take(END.len())? != END || self.pos != self.data.len() {
            return Err("bad end of snapshot".into());
        }
        Ok(Decoded { heap, world })
    }

    /// The collector's state kept by the arenas, checked against them
    /// (`Arena::set_marks`); how it fits the collector's phase is checked
    /// with the world fields (`GcState::check`).
    fn collector(&mut self, heap: &mut Heap) -> RResult<()> {
        heap.strings.set_marks(self.marks()?)?;
        heap.tables.arena_mut().set_marks(self.marks()?)?;
        heap.lua_fns.set_marks(self.marks()?)?;
        heap.rust_fns.set_marks(self.marks()?)?;
        heap.upvals.set_marks(self.marks()?)?;
        heap.protos.set_marks(self.marks()?)?;
        heap.threads.set_marks(self.marks()?)?;
        heap.userdata.set_marks(self.marks()?)?;
        let watch = self.bool()?;
        let fwd = self.values()?;
        heap.tables.set_barrier_state(watch, fwd);
        Ok(())
    }

    fn marks(&mut self) -> RResult<Marks> {
        let flags = self.u8()?;
        if flags > 7 {
            return Err(format!("bad mark flags {flags}"));
        }
        let clear = flags & 1 != 0;
        let bits = if clear {
            Vec::new()
        } else {
            let n = self.count(8)?;
            (0..n).map(|_| self.u64()).collect::<RResult<Vec<_>>>()?
        };
        let n = self.count(4)?;
        let again = (0..n).map(|_| self.u32()).collect::<RResult<Vec<_>>>()?;
        let sweep_from = if self.bool()? { Some(self.u32()?) } else { None };
        let mut list = || -> RResult<Vec<u32>> {
            let n = self.count(4)?;
            (0..n).map(|_| self.u32()).collect()
        };
        let (young, survival, old1) = (list()?, list()?, list()?);
        let (watch, gen) = (flags & 2 != 0, flags & 4 != 0);
        Ok(Marks { bits, clear, watch, again, sweep_from, gen, young, survival, old1 })
    }

    /// A collector object reference (see `Writer::obj_ref`); its liveness
    /// is checked with the world fields.
    pub(crate) fn obj_ref(&mut self) -> RResult<ObjRef> {
        let kind = self.u8()?;
        let i = self.u32()?;
        ObjRef::from_kind(usize::from(kind), i).ok_or_else(|| format!("bad object kind {kind}"))
    }

    fn natives_table(&mut self) -> RResult<()> {
        let n = self.count(5)?;
        for _ in 0..n {
            let saved = self.u32()?;
            let name = self.bytes()?;
            let found = std::str::from_utf8(name).ok().and_then(|s| self.st.native_names.get(s));
            let Some(&id) = found else {
                let name = String::from_utf8_lossy(name);
                return Err(format!("unknown native '{name}' (not registered in this state)"));
            };
            if self.natives.insert(saved, id).is_some() {
                return Err(format!("native id {saved} twice in the table"));
            }
        }
        Ok(())
    }

    fn table(&mut self) -> RResult<TableParts> {
        let meta = self.opt_table()?;
        let flags = self.u8()?;
        let array = self.values()?;
        let array_cap = self.usize()?;
        let n = self.count(2)?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            entries.push((self.value()?, self.value()?));
        }
        let hash_cap = self.usize()?;
        Ok(TableParts { meta, flags, array, array_cap, entries, hash_cap })
    }

    fn proto(&mut self) -> RResult<FnProto> {
        let n = self.count(4)?;
        let code = (0..n).map(|_| self.u32().map(Instruction)).collect::<RResult<Vec<_>>>()?;
        let k = self.values()?;
        let n = self.count(4)?;
        let protos = (0..n).map(|_| self.handle()).collect::<RResult<Vec<_>>>()?;
        let n = self.count(7)?;
        let mut upvals = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.bytes()?.to_vec();
            let in_stack = self.bool()?;
            upvals.push(UpvalDesc { name, in_stack, index: self.u8()?, kind: self.u8()? });
        }
        let num_params = self.u8()?;
        let is_vararg = self.bool()?;
        let max_stack = self.u8()?;
        let source = self.handle()?;
        let line_defined = self.u32()?;
        let last_line_defined = self.u32()?;
        let n = self.count(4)?;
        let line_info = (0..n).map(|_| self.u32()).collect::<RResult<Vec<_>>>()?;
        let n = self.count(12)?;
        let mut loc_vars = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.bytes()?.to_vec();
            loc_vars.push(LocVar { name, start_pc: self.u32()?, end_pc: self.u32()? });
        }
        Ok(FnProto {
            code: crate::func::Code::new(&code),
            k: Rc::from(k),
            protos: protos.into(),
            upvals: upvals.into(),
            num_params,
            is_vararg,
            max_stack,
            source,
            line_defined,
            last_line_defined,
            line_info: line_info.into(),
            loc_vars: loc_vars.into(),
        })
    }

    fn thread(&mut self) -> RResult<Thread> {
        let s = self.u8()?;
        let status = CoStatus::from_code(s).ok_or_else(|| format!("bad thread status {s}"))?;
        let started = self.bool()?;
        let is_main = self.bool()?;
        let error = self.value()?;
        let ex = self.exec()?;
        Ok(Thread { status, started, ex, is_main, error })
    }

    pub(crate) fn exec(&mut self) -> RResult<ExecState> {
        let (stack_cap, frames_cap) = (self.u32()? as usize, self.u32()? as usize);
        self.reserved += stack_cap * 16 + frames_cap * std::mem::size_of::<CallInfo>();
        if stack_cap > STACK_BOUND || frames_cap > STACK_BOUND || self.reserved > MAX_RESERVED {
            return Err("stack capacities too large".into());
        }
        let mut stack = Vec::with_capacity(stack_cap);
        let n = self.count(1)?;
        for _ in 0..n {
            stack.push(self.value()?);
        }
        let mut frames = Vec::with_capacity(frames_cap);
        let n = self.count(30)?;
        for _ in 0..n {
            frames.push(self.frame()?);
        }
        if stack.len() > stack_cap || frames.len() > frames_cap {
            return Err("a stack longer than its capacity".into());
        }
        let n = self.count(8)?;
        let mut open_upvals = Vec::with_capacity(n);
        for _ in 0..n {
            open_upvals.push((self.u32()?, self.handle()?));
        }
        let n = self.count(4)?;
        let tbc = (0..n).map(|_| self.u32()).collect::<RResult<Vec<_>>>()?;
        let open_top = self.u32()?;
        let nny = self.u32()?;
        Ok(ExecState { stack: Stack::from(stack), frames, open_upvals, tbc, open_top, nny })
    }

    fn frame(&mut self) -> RResult<CallInfo> {
        let [func, base, top, pc, nextra] =
            [self.u32()?, self.u32()?, self.u32()?, self.u32()?, self.u32()?];
        let nresults = self.u32()? as i32;
        let status = self.u8()?;
        let b = self.take(3)?;
        let ret = MetaRet::from_code(b[0], b[1], b[2]).ok_or("bad result disposition")?;
        let callee = match self.u8()? {
            0 => Callee::Lua(self.handle()?),
            1 => Callee::Rust(self.handle()?),
            t => return Err(format!("bad callee tag {t}")),
        };
        let k = if self.bool()? {
            let name = self.bytes()?;
            let Some(k) = self.st.persist.by_name(name) else {
                let name = String::from_utf8_lossy(name);
                return Err(format!(
                    "unknown continuation '{name}' (not registered in this state)"
                ));
            };
            Some((k, self.u64()? as i64))
        } else {
            None
        };
        let errlevel = self.u32()?;
        Ok(CallInfo { func, base, top, pc, nextra, nresults, status, ret, callee, k, errlevel })
    }

    fn userdata(&mut self) -> RResult<UserData> {
        let meta = self.opt_table()?;
        let user_values = self.values()?;
        let name = self.bytes()?;
        let payload = self.bytes()?;
        let found = self.st.persist.loaders.iter().find(|(n, _)| n.as_bytes() == name);
        let Some((_, load)) = found else {
            let name = String::from_utf8_lossy(name);
            return Err(format!("no payload loader registered for '{name}'"));
        };
        let data = load(payload)
            .ok_or_else(|| format!("corrupt payload for '{}'", String::from_utf8_lossy(name)))?;
        Ok(UserData { meta, user_values, data })
    }

    /// The host data loader registered under `name`.
    pub(crate) fn host_data_loader(
        &self,
        name: &[u8],
    ) -> Option<(&&'static str, &crate::schema::HostDataLoader)> {
        self.st.persist.host_loaders.iter().find(|(n, _)| n.as_bytes() == name)
    }
}

/// An arena from its decoded layout.
fn arena<T>((slots, free): (Vec<Option<T>>, Vec<u32>)) -> RResult<Arena<T>> {
    Arena::from_raw_parts(slots, free)
}

/// Builds the string arena with the saved layout, and its interner.
///
/// The interner offers only `intern`, which allocates, so the arena is
/// rebuilt by replaying allocations: the slots in index order (live
/// strings and, for free slots, placeholder strings distinct from every
/// live one), then freeing the placeholders in free-list order, which
/// leaves exactly the saved free list. Loose strings (flag true) are
/// allocated without the interner. Duplicate contents among the others are
/// corrupt, and so is a short loose string (`string.rs`'s invariants).
fn build_strings(
    slots: Vec<Option<(bool, &[u8])>>,
    free: Vec<u32>,
) -> RResult<(Arena<LuaStr>, Interner)> {
    let shape: Vec<Option<()>> = slots.iter().map(|s| s.map(|_| ())).collect();
    Arena::from_raw_parts(shape, free.clone())?;
    let registered = || slots.iter().flatten().filter(|(loose, _)| !loose);
    let live: BTreeSet<&[u8]> = registered().map(|&(_, b)| b).collect();
    if live.len() != registered().count() {
        return Err("the same string twice in the string arena".into());
    }
    if slots.iter().flatten().any(|&(loose, b)| loose && b.len() <= crate::string::SHORT) {
        return Err("a short string marked loose".into());
    }
    let mut arena = Arena::new();
    let mut interner = Interner::new();
    let mut placeholder = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        let bytes = match s {
            Some((true, b)) => {
                if Interner::add_loose(&mut arena, b).index() as usize != i {
                    return Err("the string arena's layout is inconsistent".into());
                }
                continue;
            }
            Some((false, b)) => *b,
            None => {
                placeholder.clear();
                placeholder.extend_from_slice(format!("\0free slot {i}").as_bytes());
                while live.contains(&placeholder[..]) {
                    placeholder.push(0);
                }
                &placeholder
            }
        };
        let h = interner.intern(&mut arena, bytes);
        if h.index() as usize != i {
            return Err("the same string twice in the string arena".into());
        }
    }
    for &i in &free {
        let h = Handle::from_index(i);
        if let Some(s) = arena.free(h) {
            interner.remove(h, &s);
        }
    }
    Ok((arena, interner))
}

// ============================================================================
// Validation
// ============================================================================

impl Decoded {
    fn validate(self) -> RResult<Validated> {
        let c = Check { s: &self };
        c.all()?;
        Ok(Validated(self))
    }
}

struct Check<'a> {
    s: &'a Decoded,
}

/// Checks that every reference it is shown names a live object; weak
/// references too.
struct Live<'a> {
    heap: &'a Heap,
    err: Option<String>,
}

impl Visit for Live<'_> {
    fn obj(&mut self, o: ObjRef) {
        if self.err.is_none() && !o.is_live(self.heap) {
            self.err =
                Some(format!("{} handle #{} names no live object", o.kind_name(), o.index()));
        }
    }
    fn weak(&mut self, v: Value) {
        self.value(v);
    }
}

impl Check<'_> {
    fn live<T>(a: &Arena<T>, idx: u32, what: &str) -> RResult<()> {
        match a.try_get(idx) {
            Some(_) => Ok(()),
            None => Err(format!("{what} handle #{idx} names no live object")),
        }
    }

    fn value(&self, v: Value) -> RResult<()> {
        let hp = &self.s.heap;
        match v {
            Value::Str(h) => Self::live(&hp.strings, h.index(), "string"),
            Value::Table(h) => Self::live(hp.tables.headers(), h.index(), "table"),
            Value::LuaFn(h) => Self::live(&hp.lua_fns, h.index(), "Lua function"),
            Value::RustFn(h) => Self::live(&hp.rust_fns, h.index(), "Rust function"),
            Value::Thread(h) => Self::live(&hp.threads, h.index(), "thread"),
            Value::UserData(h) => Self::live(&hp.userdata, h.index(), "userdata"),
            _ => Ok(()),
        }
    }

    fn values(&self, vs: &[Value]) -> RResult<()> {
        vs.iter().try_for_each(|&v| self.value(v))
    }

    fn all(&self) -> RResult<()> {
        let hp = &self.s.heap;
        // Every reference of every object and world field names a live
        // object of its kind (the one object visitor, `schema.rs`).
        // Garbage a pending sweep has not reached is skipped: it may name
        // objects freed already, and nothing but the sweep reads it; no
        // reachable object may be such garbage (`gc/io.rs`).
        let mut live = Live { heap: hp, err: None };
        let mut visit = |o: ObjRef| {
            if !crate::gc::io::is_garbage(hp, o) {
                visit_object(hp, o, &mut live);
            }
        };
        hp.tables.iter().for_each(|(h, _)| visit(ObjRef::Table(h)));
        hp.lua_fns.iter().for_each(|(h, _)| visit(ObjRef::LuaFn(h)));
        hp.rust_fns.iter().for_each(|(h, _)| visit(ObjRef::RustFn(h)));
        hp.upvals.iter().for_each(|(h, _)| visit(ObjRef::Upval(h)));
        hp.protos.iter().for_each(|(h, _)| visit(ObjRef::Proto(h)));
        hp.threads.iter().for_each(|(h, _)| visit(ObjRef::Thread(h)));
        hp.userdata.iter().for_each(|(h, _)| visit(ObjRef::UserData(h)));
        self.s.world.visit(&mut live);
        if let Some(e) = live.err {
            return Err(e);
        }
        // No table key is a loose string (`string.rs`): tables compare
        // string keys by handle.
        let loose = |k: Value| {
            matches!(k, Value::Str(s)
                if hp.strings.try_get(s.index()).is_some_and(|o| !o.is_registered()))
        };
        if hp.tables.iter().any(|(_, t)| t.iter().any(|(k, _)| loose(k))) {
            return Err("a loose string as a table key".into());
        }
        let mut roots = Vec::new();
        self.s.world.visit(&mut crate::gc::io::AllRefs(&mut roots));
        crate::gc::io::check_sweep(hp, roots)?;
        // (Closures' upvalue counts were checked as they were built,
        // `closures`.)
        let garbage = |o: ObjRef| crate::gc::io::is_garbage(hp, o);
        for (_, p) in hp.protos.iter().filter(|(h, _)| !garbage(ObjRef::Proto(*h))) {
            self.proto(p)?;
        }
        self.s.world.check(hp)?;
        self.pins()?;
        self.threads()
    }

    fn proto(&self, p: &FnProto) -> RResult<()> {
        let hp = &self.s.heap;
        let kinds = p
            .k
            .iter()
            .map(|&v| match v {
                Value::Nil => Ok(ConstKind::Nil),
                Value::Bool(_) => Ok(ConstKind::Bool),
                Value::Int(_) => Ok(ConstKind::Int),
                Value::Float(_) => Ok(ConstKind::Float),
                // Registered (`string.rs`): EQK and the field instructions
                // take a string constant for a key and compare it by handle.
                Value::Str(s) => match hp.strings.try_get(s.index()) {
                    Some(o) if o.is_registered() => Ok(ConstKind::Str),
                    Some(_) => Err("a loose string as a constant".to_string()),
                    None => Self::live(&hp.strings, s.index(), "string").map(|_| ConstKind::Str),
                },
                _ => Err("a constant that is not nil, a boolean, a number or a string".to_string()),
            })
            .collect::<RResult<Vec<_>>>()?;
        let mut nested: Vec<&[UpvalDesc]> = Vec::with_capacity(p.protos.len());
        for q in p.protos.iter() {
            Self::live(&hp.protos, q.index(), "prototype")?;
            nested.push(&hp.protos.get(*q).upvals);
        }
        Self::live(&hp.strings, p.source.index(), "string")?;
        if p.code.is_empty() || p.max_stack < 2 || p.num_params > p.max_stack {
            return Err("a prototype with no code or too few registers".into());
        }
        if !p.line_info.is_empty() && p.line_info.len() != p.code.len() {
            return Err("a prototype's line information does not match its code".into());
        }
        let ncode = p.code.len() as u64;
        if p.loc_vars.iter().any(|lv| lv.start_pc > lv.end_pc || u64::from(lv.end_pc) > ncode) {
            return Err("a local variable's range is outside its prototype's code".into());
        }
        let code = p.code.to_vec();
        let view = FnView {
            code: &code,
            num_params: p.num_params,
            is_vararg: p.is_vararg,
            max_stack: p.max_stack,
            constants: &kinds,
            num_upvalues: p.upvals.len(),
            nested_upvalues: &nested,
        };
        verify_function(&view).map_err(|e| e.to_string())
    }

    /// Free pin slots name nil pins, each once.
    fn pins(&self) -> RResult<()> {
        let w = &self.s.world;
        let mut seen = BTreeSet::new();
        for &p in &w.free_pins {
            if !matches!(w.pins.get(p as usize), Some(Value::Nil)) || !seen.insert(p) {
                return Err(format!("bad free pin slot {p}"));
            }
        }
        Ok(())
    }

    /// Thread statuses, execution states and open upvalues.
    fn threads(&self) -> RResult<()> {
        let s = &self.s.world;
        let hp = &self.s.heap;
        if s.running != s.main_thread {
            return Err("the running thread is not the main thread".into());
        }
        let main = hp.threads.try_get(s.main_thread.index()).ok_or("no main thread")?;
        // The running thread's object holds an empty execution state that
        // owns no allocation either (a coroutine switch moves the running
        // state into it without dropping what it held: `ExecState::rotate`).
        if !main.is_main
            || main.status != CoStatus::Running
            || !is_empty_ex(&main.ex)
            || !main.ex.is_unallocated()
        {
            return Err("the main thread is not running".into());
        }
        if !s.ex.frames.is_empty() {
            return Err("a snapshot with frames on the main thread".into());
        }
        let mut open_seen = BTreeSet::new();
        self.exec(s.main_thread, &s.ex, true, &mut open_seen)?;
        let garbage = |o: ObjRef| crate::gc::io::is_garbage(hp, o);
        for (h, t) in hp.threads.iter() {
            if h == s.main_thread || garbage(ObjRef::Thread(h)) {
                continue;
            }
            if t.is_main {
                return Err("two main threads".into());
            }
            self.value(t.error)?;
            self.thread_status(t)?;
            self.exec(h, &t.ex, t.status != CoStatus::Dead, &mut open_seen)?;
        }
        let open =
            |(h, u): &(_, &UpVal)| matches!(u, UpVal::Open { .. }) && !garbage(ObjRef::Upval(*h));
        let open_total = hp.upvals.iter().filter(open).count();
        if open_total != open_seen.len() {
            return Err("an open upvalue missing from its thread's list".into());
        }
        Ok(())
    }

    fn thread_status(&self, t: &Thread) -> RResult<()> {
        let ex = &t.ex;
        match t.status {
            CoStatus::Suspended if !t.started => {
                if ex.stack.is_empty() || !ex.frames.is_empty() || !ex.open_upvals.is_empty() {
                    return Err("a coroutine not started has a bad execution state".into());
                }
            }
            CoStatus::Suspended => {
                let ok = ex.frames.last().is_some_and(|ci| {
                    matches!(ci.callee, Callee::Rust(_)) && ci.status & cist::YIELDED != 0
                });
                if !ok {
                    return Err("a suspended coroutine is not waiting in a native".into());
                }
            }
            CoStatus::Dead => {}
            CoStatus::Running | CoStatus::Normal => {
                return Err("a coroutine running in a snapshot".into());
            }
        }
        Ok(())
    }

    fn exec(
        &self,
        th: ThreadRef,
        ex: &ExecState,
        resumable: bool,
        open_seen: &mut BTreeSet<u32>,
    ) -> RResult<()> {
        let hp = &self.s.heap;
        let len = ex.stack.len();
        if len > STACK_BOUND {
            return Err("a stack too large".into());
        }
        self.values(&ex.stack)?;
        let mut prev_slot = None;
        for &(slot, u) in &ex.open_upvals {
            let ok = matches!(hp.upvals.try_get(u.index()),
                Some(UpVal::Open { thread, slot: s }) if *thread == th && *s == slot);
            if !ok || slot as usize >= len || prev_slot.is_some_and(|p| p >= slot) {
                return Err("a thread's open upvalue list is inconsistent".into());
            }
            if !open_seen.insert(u.index()) {
                return Err("an open upvalue in two lists".into());
            }
            prev_slot = Some(slot);
        }
        if ex.tbc.windows(2).any(|w| w[0] >= w[1])
            || ex.tbc.last().is_some_and(|&t| t as usize >= len)
        {
            return Err("bad to-be-closed slots".into());
        }
        if ex.open_top as usize > STACK_BOUND || ex.nny > crate::state::MAX_CCALLS {
            return Err("bad execution state counters".into());
        }
        for (i, ci) in ex.frames.iter().enumerate() {
            // A frame entered from Rust returns to Rust (its results are not
            // fitted to a Lua caller's registers): in a thread that will be
            // resumed, only the coroutine's body may be one. Dead threads
            // keep the frames of a failed nested call, but never run them.
            if resumable && i > 0 && ci.status & cist::FRESH != 0 {
                return Err("bad frame: entered from Rust inside a coroutine".into());
            }
            let below = i.checked_sub(1).map(|j| &ex.frames[j]);
            let above = ex.frames.get(i + 1);
            self.frame(ci, below, above, len)?;
        }
        Ok(())
    }

    fn frame(
        &self,
        ci: &CallInfo,
        below: Option<&CallInfo>,
        above: Option<&CallInfo>,
        len: usize,
    ) -> RResult<()> {
        let hp = &self.s.heap;
        let bad = |m: &str| Err(format!("bad frame: {m}"));
        let (func, base, top) = (ci.func as usize, ci.base as usize, ci.top as usize);
        let limit = above.map_or(len, |a| a.func as usize);
        if func >= base || base > limit || top > STACK_BOUND || ci.errlevel as usize > STACK_BOUND {
            return bad("offsets");
        }
        if below.is_some_and(|b| func < b.base as usize) {
            return bad("below its caller");
        }
        if ci.nresults < -1 || ci.nresults > MAX_NRESULTS {
            return bad("results wanted");
        }
        if ci.status & cist::LUA_CALLER != 0 {
            let ordinary = ci.ret == MetaRet::Call && ci.status & cist::FRESH == 0;
            let lua = |c: &CallInfo| matches!(c.callee, Callee::Lua(_));
            if !ordinary || !lua(ci) || !below.is_some_and(lua) {
                return bad("flags");
            }
        }
        match ci.callee {
            Callee::Lua(f) => {
                Self::live(&hp.lua_fns, f.index(), "Lua function")?;
                let p = hp.protos.get(hp.lua_fns.get(f).proto);
                let native_only = cist::PCALL | cist::XPCALL | cist::YIELDED | cist::RECOVER;
                if ci.k.is_some() || ci.status & native_only != 0 {
                    return bad("native flags on a Lua frame");
                }
                if top != base + p.max_stack as usize {
                    return bad("top");
                }
                if ci.nextra as usize > base - func - 1 {
                    return bad("varargs");
                }
                let pc_ok = if above.is_some() {
                    ci.pc >= 1 && (ci.pc as usize) < p.code.len()
                } else {
                    ci.pc as usize <= p.code.len()
                };
                if !pc_ok {
                    return bad("pc");
                }
                if above.is_none() && top > len {
                    return bad("stack shorter than the registers");
                }
            }
            Callee::Rust(f) => {
                Self::live(&hp.rust_fns, f.index(), "Rust function")?;
                if ci.status & cist::TAIL != 0 {
                    return bad("tail flag on a native frame");
                }
                if ci.status & cist::YIELDED != 0 && above.is_some() {
                    return bad("a yielded native below another frame");
                }
                if ci.status & cist::RECOVER != 0 && ci.status & cist::PCALL == 0 {
                    return bad("recovering without protection");
                }
                // Errors unwind to a level above the native's own slots
                // (its continuation writes the status below that level).
                let lvl = ci.errlevel as usize;
                if ci.status & cist::PCALL != 0 && (lvl <= base || lvl > limit) {
                    return bad("error level");
                }
            }
        }
        self.frame_ret(ci, below)
    }

    /// The result disposition: metamethod frames write into the registers
    /// of the Lua frame below.
    fn frame_ret(&self, ci: &CallInfo, below: Option<&CallInfo>) -> RResult<()> {
        let hp = &self.s.heap;
        let need = match ci.ret {
            MetaRet::Call => return self.call_results(ci, below),
            MetaRet::Close => return Ok(()),
            MetaRet::Reg(a) => a as usize + 1,
            MetaRet::Cond(_) | MetaRet::Discard => 0,
            MetaRet::Concat { a, n } if n >= 2 => a as usize + n as usize,
            MetaRet::Concat { .. } => return Err("bad frame: concatenation".into()),
        };
        let caller = match below.map(|b| b.callee) {
            Some(Callee::Lua(f)) => hp.protos.get(hp.lua_fns.get(f).proto),
            _ => return Err("bad frame: a metamethod frame not above a Lua frame".into()),
        };
        if need > caller.max_stack as usize {
            return Err("bad frame: result register out of range".into());
        }
        Ok(())
    }
}

impl Check<'_> {
    /// A call made by a Lua frame's CALL, TAILCALL or TFORCALL instruction (the one
    /// before its saved pc) wants the results that instruction asks for:
    /// the caller then reads them (and, for all results, `open_top`).
    fn call_results(&self, ci: &CallInfo, below: Option<&CallInfo>) -> RResult<()> {
        let hp = &self.s.heap;
        let Some(Callee::Lua(f)) = below.map(|b| b.callee) else { return Ok(()) };
        let caller = hp.protos.get(hp.lua_fns.get(f).proto);
        let pc = below.map_or(0, |b| b.pc as usize);
        let ins = pc.checked_sub(1).and_then(|i| caller.code.get(i));
        let (want, reg) = match ins.and_then(|i| i.opcode().map(|op| (op, i.a(), i.c()))) {
            Some((OpCode::Call, a, c)) => (c as i32 - 1, a as usize),
            Some((OpCode::TForCall, a, c)) => (c as i32, a as usize + 4),
            // A native called by TAILCALL runs above its caller.
            Some((OpCode::TailCall, a, _)) => (-1, a as usize),
            _ => return Err("bad frame: a call not made by a call instruction".into()),
        };
        let base = below.map_or(0, |b| b.base as usize);
        if ci.nresults != want || ci.func as usize != base + reg {
            return Err("bad frame: results wanted differ from the call's".into());
        }
        Ok(())
    }
}

/// Whether an execution state is empty (a running thread's object holds an
/// empty one; its real state is in the `State`).
fn is_empty_ex(ex: &ExecState) -> bool {
    ex.stack.is_empty() && ex.frames.is_empty() && ex.open_upvals.is_empty() && ex.tbc.is_empty()
}

/// Builds the closures read as (prototype handle, upvalues), now that the
/// prototypes are read (a closure copies what a call needs from its
/// prototype, `LuaClosure::new`).
#[allow(clippy::type_complexity)]
fn closures(
    (slots, free): (Vec<Option<(ProtoRef, Box<[UpvalRef]>)>>, Vec<u32>),
    protos: &[Option<FnProto>],
) -> RResult<(Vec<Option<LuaClosure>>, Vec<u32>)> {
    let slots = slots
        .into_iter()
        .map(|slot| {
            slot.map(|(proto, upvals)| match protos.get(proto.index() as usize) {
                Some(Some(p)) if p.upvals.len() == upvals.len() => {
                    Ok(LuaClosure::new(proto, p, upvals))
                }
                Some(Some(_)) => {
                    Err("a closure's upvalue count differs from its prototype's".into())
                }
                _ => Err(format!("a closure of a missing prototype {}", proto.index())),
            })
            .transpose()
        })
        .collect::<RResult<Vec<_>>>()?;
    Ok((slots, free))
}

#[cfg(test)]
mod tests;
