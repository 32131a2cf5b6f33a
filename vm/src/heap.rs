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
//! # Accounting
//!
//! `bytes` is an estimate of the memory held by live objects. Allocation
//! functions add the object's estimated size; the collector recomputes the
//! figure from the survivors at the end of each cycle. Growth of an existing
//! table is added by the table-write slow path (`State::account_growth`).
//! Only this figure drives the collector, so when it runs is a pure function
//! of the program: no clock, no allocator statistics.

use crate::arena::Arena;
use crate::func::{FnProto, LuaClosure, ProtoRef, RustClosure, UpVal, UpvalRef};
use crate::string::{interned_size, Interner, LuaStr};
use crate::table::Table;
use crate::thread::Thread;
use crate::userdata::UserData;
use crate::value::{LuaFnRef, RustFnRef, StrRef, TableRef, ThreadRef, UserDataRef, Value};

/// Estimated fixed cost of a closure object.
const CLOSURE_BYTES: usize = 48;

/// All collectable objects.
#[derive(Default)]
pub struct Heap {
    /// Strings.
    pub strings: Arena<LuaStr>,
    /// The string interner (content → handle).
    pub interner: Interner,
    /// Tables.
    pub tables: Arena<Table>,
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
        if self.strings.len() != before {
            self.bytes += interned_size(self.strings.get(s));
        }
        s
    }

    /// The bytes of string `s`.
    #[inline(always)]
    pub fn str(&self, s: StrRef) -> &[u8] {
        self.strings.get(s).as_bytes()
    }

    /// Allocates a table.
    #[inline]
    pub fn new_table(&mut self, narray: usize, nhash: usize) -> TableRef {
        let t = Table::new(narray, nhash);
        self.bytes += t.estimated_bytes();
        self.tables.alloc(t)
    }

    /// Allocates a Lua closure.
    #[inline]
    pub fn new_lua_fn(&mut self, proto: ProtoRef, upvals: Box<[UpvalRef]>) -> LuaFnRef {
        self.bytes += CLOSURE_BYTES + upvals.len() * 4;
        self.lua_fns.alloc(LuaClosure { proto, upvals })
    }

    /// Allocates a Rust closure.
    pub fn new_rust_fn(&mut self, c: RustClosure) -> RustFnRef {
        self.bytes += CLOSURE_BYTES + c.upvalues.len() * 16;
        self.rust_fns.alloc(c)
    }

    /// Allocates an upvalue.
    #[inline]
    pub fn new_upval(&mut self, u: UpVal) -> UpvalRef {
        self.bytes += 24;
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
        self.bytes += 64 + u.user_values.len() * 16;
        self.userdata.alloc(u)
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
