//! The heap: one arena per object kind, and the byte accounting that paces
//! the collector.
//!
//! Objects refer to each other only by [`Handle`](crate::Handle)s; nothing
//! in the heap is a pointer or a `RefCell`, so the whole heap is plain data
//! (the basis of snapshot, rollback and hashing). The one `Rc` is inside a
//! prototype: its bytecode and constants, immutable, are shared with the
//! dispatch loop (which holds them while the function runs); sharing
//! immutable data is unobservable, and a cloned heap shares them too. All
//! mutation goes through `Arena::get_mut`.
//!
//! # The journal
//!
//! Snapshots (`snapshot.rs`) are undo journals kept by each arena
//! (`arena.rs`); the heap opens, rolls back and closes levels in all
//! arenas at once and keeps the interner in step with the string arena.
//! `bytes` is saved and restored by the state-level snapshot.
//!
//! # Accounting
//!
//! `bytes` is an estimate of the memory held by live objects. Allocation
//! functions add the object's estimated size; the collector recomputes the
//! figure from the survivors at the end of each cycle. Growth of an existing
//! table is added by every write that may resize it (`Heap::table_write`).
//! Only this figure drives the collector, so when it runs is a pure function
//! of the program: no clock, no allocator statistics.

use crate::arena::Arena;
use crate::func::{FnProto, LuaClosure, ProtoRef, RustClosure, UpVal, UpvalRef};
use crate::string::{interned_size, Interner, LuaStr};
use crate::table::Tables;
use crate::thread::Thread;
use crate::userdata::UserData;
use crate::value::{LuaFnRef, RustFnRef, StrRef, TableRef, ThreadRef, UserDataRef, Value};

/// Runs `$body` with `$a` bound to each arena of `$heap` in turn.
macro_rules! for_each_arena {
    ($heap:expr, $a:ident => $body:expr) => {{
        let h = $heap;
        {
            let $a = &mut h.strings;
            $body;
        }
        {
            let $a = &mut h.tables;
            $body;
        }
        {
            let $a = &mut h.lua_fns;
            $body;
        }
        {
            let $a = &mut h.rust_fns;
            $body;
        }
        {
            let $a = &mut h.upvals;
            $body;
        }
        {
            let $a = &mut h.protos;
            $body;
        }
        {
            let $a = &mut h.threads;
            $body;
        }
        {
            let $a = &mut h.userdata;
            $body;
        }
    }};
}

/// Estimated fixed cost of a closure object.
const CLOSURE_BYTES: usize = 48;

/// The estimated bytes of an upvalue.
pub(crate) const UPVAL_BYTES: usize = 24;

/// The estimated bytes of a Lua closure with `n` upvalues.
pub(crate) fn lua_fn_bytes(n: usize) -> usize {
    CLOSURE_BYTES + n * 4
}

/// The estimated bytes of a Rust closure with `n` upvalues.
pub(crate) fn rust_fn_bytes(n: usize) -> usize {
    CLOSURE_BYTES + n * 16
}

/// The estimated bytes of a userdata.
pub(crate) fn userdata_bytes(u: &UserData) -> usize {
    64 + u.user_values.len() * 16
}

/// All collectable objects.
#[derive(Default)]
pub struct Heap {
    /// Strings.
    pub strings: Arena<LuaStr>,
    /// The string interner (content → handle).
    pub interner: Interner,
    /// Tables.
    pub tables: Tables,
    /// Lua closures.
    pub lua_fns: Arena<LuaClosure>,
    /// Rust closures.
    pub rust_fns: Arena<RustClosure>,
    /// Upvalues.
    pub upvals: Arena<UpVal>,
    /// Prototypes.
    pub protos: Arena<FnProto>,
    /// Threads.
    pub threads: Arena<Thread>,
    /// Full userdata.
    pub userdata: Arena<UserData>,
    /// Estimated bytes held by objects.
    pub bytes: usize,
}

impl Heap {
    /// Interns `bytes`.
    #[inline]
    pub fn intern(&mut self, bytes: &[u8]) -> StrRef {
        let before = self.strings.len();
        let s = self.interner.intern(&mut self.strings, bytes);
        self.interned(s, before)
    }

    /// Interns the bytes `range` of string `s` without copying them first
    /// ([`Interner::intern_range`]).
    pub fn intern_range(&mut self, s: StrRef, range: std::ops::Range<usize>) -> StrRef {
        let before = self.strings.len();
        let r = self.interner.intern_range(&mut self.strings, s, range);
        self.interned(r, before)
    }

    /// The string of a concatenation, `bytes`: interned if short, loose if
    /// long ([`Interner::concat`]).
    pub fn concat_str(&mut self, bytes: &[u8]) -> StrRef {
        let before = self.strings.len();
        let s = self.interner.concat(&mut self.strings, bytes);
        self.interned(s, before)
    }

    /// A string of `bytes`: interned up to [`crate::string::SHORT`]
    /// bytes, loose past that (`State::new_loose_string`).
    pub fn loose_str(&mut self, bytes: &[u8]) -> StrRef {
        if bytes.len() <= crate::string::SHORT {
            return self.intern(bytes);
        }
        self.concat_str_owned(bytes.into())
    }

    /// [`Heap::concat_str`] of bytes in an allocation of their own
    /// ([`Interner::concat_owned`]).
    pub fn concat_str_owned(&mut self, bytes: Box<[u8]>) -> StrRef {
        let before = self.strings.len();
        let s = self.interner.concat_owned(&mut self.strings, bytes);
        self.interned(s, before)
    }

    // ----- keys and equality with loose strings (see `string.rs`) ---------

    /// The key a table knows `k` by, for a read: `k` itself, but for a
    /// loose string its registered twin, or the loose string itself if it
    /// has none (no table holds it, and a lookup by its handle finds
    /// nothing, as it should).
    #[inline]
    pub fn key(&self, k: Value) -> Value {
        match k {
            Value::Str(s) => Value::Str(self.str_key(s)),
            _ => k,
        }
    }

    /// [`Heap::key`] of a string. Out of line: the dispatch loop calls it
    /// on a miss, and its code there moved the loop's layout (RESULTS
    /// part 20).
    #[inline(never)]
    pub fn str_key(&self, s: StrRef) -> StrRef {
        self.interner.twin(&self.strings, s).unwrap_or(s)
    }

    /// The key a table stores `k` under, for a write: [`Heap::key`], with
    /// the twin of a loose string registered if it has none yet.
    #[inline]
    pub fn key_mut(&mut self, k: Value) -> Value {
        match k {
            Value::Str(s) => Value::Str(self.str_key_mut(s)),
            _ => k,
        }
    }

    /// [`Heap::key_mut`] of a string.
    #[inline]
    pub fn str_key_mut(&mut self, s: StrRef) -> StrRef {
        if self.strings.get(s).is_registered() {
            return s;
        }
        self.register_twin(s)
    }

    /// The registered string of loose `s`'s bytes: `intern`, which finds
    /// the twin (reviving it if the sweep has not passed it) or makes one.
    #[inline(never)]
    fn register_twin(&mut self, s: StrRef) -> StrRef {
        let bytes = self.str(s).to_vec();
        self.intern(&bytes)
    }

    /// Primitive equality (`rawequal`): [`Value::raw_eq_interned`], and
    /// two strings of different handles compared by their bytes when one
    /// is loose.
    #[inline(always)]
    pub fn raw_eq(&self, a: Value, b: Value) -> bool {
        match (a, b) {
            (Value::Str(x), Value::Str(y)) => self.str_eq(x, y),
            _ => a.raw_eq_interned(b),
        }
    }

    /// Whether strings `a` and `b` have the same bytes.
    #[inline(always)]
    pub fn str_eq(&self, a: StrRef, b: StrRef) -> bool {
        a == b || self.loose_eq(a, b)
    }

    /// [`Heap::str_eq`] of two different handles: equal only if one is
    /// loose (two registered strings differ) and the bytes are the same.
    /// Out of line, as [`Heap::str_key`].
    #[inline(never)]
    pub fn loose_eq(&self, a: StrRef, b: StrRef) -> bool {
        let (x, y) = (self.strings.get(a), self.strings.get(b));
        (!x.is_registered() || !y.is_registered()) && same_bytes(x, y)
    }

    /// The accounting of an interning that found or made `s` (`before`:
    /// the number of strings before it).
    #[inline]
    fn interned(&mut self, s: StrRef, before: usize) -> StrRef {
        if self.strings.len() != before {
            self.bytes += interned_size(self.strings.get(s));
        } else {
            self.revive_str(s);
        }
        s
    }

    /// A string found by content: while the collector's sweep has not
    /// passed it, it may be garbage brought back, so it is marked (see
    /// `gc.rs`).
    #[inline]
    fn revive_str(&mut self, s: StrRef) {
        if let Some(from) = self.strings.marks().sweep_from {
            if s.index() >= from {
                self.strings.mark(s);
            }
        }
    }

    /// Whether `s` is a loose string (see `string.rs`).
    #[inline]
    pub fn is_loose(&self, s: StrRef) -> bool {
        !self.strings.get(s).is_registered()
    }

    /// The bytes of string `s`.
    #[inline(always)]
    pub fn str(&self, s: StrRef) -> &[u8] {
        self.strings.get(s).as_bytes()
    }

    /// Runs `f` on a write access to table `h` and adds the table's growth
    /// to `bytes` (or takes off what it shrank): every write that may
    /// resize a table goes through here or does the same (see
    /// "Accounting"), else the collector would later take off, when it
    /// frees the table, bytes that were never added.
    pub(crate) fn table_write<R>(
        &mut self,
        h: TableRef,
        f: impl FnOnce(&mut crate::table::TableMut<'_>) -> R,
    ) -> R {
        let mut tab = self.tables.get_mut(h);
        let before = tab.estimated_bytes();
        let r = f(&mut tab);
        let after = tab.estimated_bytes();
        drop(tab);
        if after != before {
            self.bytes = (self.bytes + after).saturating_sub(before);
        }
        r
    }

    /// Allocates a table.
    #[inline]
    pub fn new_table(&mut self, narray: usize, nhash: usize) -> TableRef {
        let h = self.tables.alloc(narray, nhash);
        self.bytes += self.tables.get(h).estimated_bytes();
        h
    }

    /// Allocates a Lua closure.
    #[inline]
    pub fn new_lua_fn(&mut self, proto: ProtoRef, upvals: Box<[UpvalRef]>) -> LuaFnRef {
        self.bytes += lua_fn_bytes(upvals.len());
        let c = LuaClosure::new(proto, self.protos.get(proto), upvals);
        self.lua_fns.alloc(c)
    }

    /// Allocates a Rust closure.
    pub fn new_rust_fn(&mut self, c: RustClosure) -> RustFnRef {
        self.bytes += rust_fn_bytes(c.upvalues.len());
        self.rust_fns.alloc(c)
    }

    /// Allocates an upvalue.
    #[inline]
    pub fn new_upval(&mut self, u: UpVal) -> UpvalRef {
        self.bytes += UPVAL_BYTES;
        self.upvals.alloc(u)
    }

    /// Allocates a prototype.
    pub fn new_proto(&mut self, p: FnProto) -> ProtoRef {
        self.bytes += p.estimated_bytes();
        self.protos.alloc(p)
    }

    /// Allocates a thread.
    pub fn new_thread(&mut self, t: Thread) -> ThreadRef {
        self.bytes += t.estimated_bytes();
        self.threads.alloc(t)
    }

    /// Allocates a userdata.
    pub fn new_userdata(&mut self, u: UserData) -> UserDataRef {
        self.bytes += userdata_bytes(&u);
        self.userdata.alloc(u)
    }

    // ----- the undo journal (see `arena.rs` and `snapshot.rs`) -----------

    /// Opens a journal level in every arena.
    pub(crate) fn journal_begin(&mut self) {
        for_each_arena!(self, a => a.journal_begin());
    }

    /// The type name of an object changed since level `level` that could
    /// not be copied (only userdata payloads can fail), if any.
    pub(crate) fn journal_poison(&self, level: usize) -> Option<&'static str> {
        self.userdata.journal_poison(level)
    }

    /// Undoes every change since journal level `level` (which stays open)
    /// and closes the levels above it. The interner follows the string
    /// arena: strings created since are removed, strings freed since are
    /// registered again.
    pub(crate) fn journal_rollback_to(&mut self, level: usize) {
        let interner = &mut self.interner;
        self.strings.journal_rollback_to(level, |idx, cur, restored| {
            let s = StrRef::from_index(idx);
            if let Some(c) = cur {
                interner.remove(s, c);
            }
            if let Some(r) = restored {
                interner.reinsert(s, r);
            }
        });
        self.tables.journal_rollback_to(level);
        self.lua_fns.journal_rollback_to(level, |_, _, _| {});
        self.rust_fns.journal_rollback_to(level, |_, _, _| {});
        self.upvals.journal_rollback_to(level, |_, _, _| {});
        self.protos.journal_rollback_to(level, |_, _, _| {});
        self.threads.journal_rollback_to(level, |_, _, _| {});
        self.userdata.journal_rollback_to(level, |_, _, _| {});
    }

    /// Closes journal level `level` and those above it, keeping the
    /// current state (see `Arena::journal_commit_to`).
    pub(crate) fn journal_commit_to(&mut self, level: usize) {
        for_each_arena!(self, a => a.journal_commit_to(level));
    }

    /// Number of object slots saved by the open journal levels.
    pub fn journal_len(&self) -> usize {
        self.strings.journal_len()
            + self.tables.journal_len()
            + self.lua_fns.journal_len()
            + self.rust_fns.journal_len()
            + self.upvals.journal_len()
            + self.protos.journal_len()
            + self.threads.journal_len()
            + self.userdata.journal_len()
    }

    /// The metatable of a table or userdata value (not of other types).
    #[inline]
    pub fn own_meta(&self, v: Value) -> Option<TableRef> {
        match v {
            Value::Table(t) => self.tables.get(t).meta,
            Value::UserData(u) => self.userdata.get(u).meta,
            _ => None,
        }
    }

    /// A deterministic identity for `tostring`/`%p`: the object kind in the
    /// high bits and its arena index in the low 32 bits.
    pub fn object_id(v: Value) -> u64 {
        let (kind, idx) = match v {
            Value::Str(h) => (1u64, h.index()),
            Value::Table(h) => (2, h.index()),
            Value::LuaFn(h) => (3, h.index()),
            Value::RustFn(h) => (4, h.index()),
            Value::Thread(h) => (5, h.index()),
            Value::UserData(h) => (6, h.index()),
            _ => return 0,
        };
        (kind << 32) | u64::from(idx)
    }
}

/// Whether two strings have the same bytes (lengths first; a loose
/// string's hash is not computed for this).
#[inline(never)]
fn same_bytes(x: &LuaStr, y: &LuaStr) -> bool {
    x.len() == y.len() && x.as_bytes() == y.as_bytes()
}
