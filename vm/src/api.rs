//! The public embedding API used by the CLI, the test harnesses and the
//! engine: loading, protected calls, globals, tables, strings.
//!
//! Values returned by these functions are handles; they stay valid while
//! reachable from Lua (globals, the registry, a table that is) or pinned
//! ([`State::pin`]). None of these functions collects garbage, except
//! [`State::call`] (which runs Lua code) and [`State::collect_garbage`].

use crate::error::Error;
use crate::state::State;
use crate::table::TableView;
use crate::value::{StrRef, TableRef, UserDataRef, Value};

/// A message handler for [`State::call_msgh`].
pub type MsgHandler = fn(&mut State, Value) -> Value;

impl State {
    /// Calls `f(args)` in protected mode and returns all its results. On
    /// error the stack is unwound (to-be-closed variables closed) and the
    /// error carries the Lua value, the rendered message and, for errors no
    /// `pcall` caught, a traceback (`stack traceback:\n\t...`).
    pub fn call(&mut self, f: Value, args: &[Value]) -> Result<Vec<Value>, Error> {
        self.call_msgh(f, args, None)
    }

    /// [`State::call`] with a message handler (`lua_pcall`'s `msgh`): on an
    /// error, `msgh` maps the error value to the value the call fails with.
    /// It runs before the stack is unwound (it can take a traceback with
    /// [`State::traceback`]), and the to-be-closed variables being closed
    /// receive its result, as in the reference.
    pub fn call_msgh(
        &mut self,
        f: Value,
        args: &[Value],
        msgh: Option<MsgHandler>,
    ) -> Result<Vec<Value>, Error> {
        let depth = self.ex.frames.len();
        let level = self.ex.stack.len();
        self.last_error = Value::Nil;
        match self.call_value(f, args) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.call_failed(e, depth, level, msgh)),
        }
    }

    /// [`State::call`] of the function and arguments the embedding API
    /// pushed at `stack[func..]`: on success the results are left at
    /// `stack[func..]`; on error the stack is unwound to `func`.
    pub(crate) fn call_pushed_protected(&mut self, func: usize) -> Result<(), Error> {
        let depth = self.ex.frames.len();
        self.last_error = Value::Nil;
        match self.call_pushed(func, -1) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.call_failed(e, depth, func, None)),
        }
    }

    /// The error path of [`State::call_msgh`]: traceback, message handler,
    /// frames above `depth` dropped, to-be-closed variables above stack
    /// `level` closed, the stack cut to `level`, the message rendered.
    #[cold]
    fn call_failed(
        &mut self,
        mut e: Error,
        depth: usize,
        level: usize,
        msgh: Option<MsgHandler>,
    ) -> Error {
        if !e.handled && self.running == self.main_thread {
            e.traceback = self.traceback(None, 0, true);
            e.handled = true;
        }
        if let Some(h) = msgh {
            e.value = h(self, e.value);
        }
        self.unwind_frames(depth);
        if let Some(v) = self.close_level(level, Some(e.value)) {
            e.value = v;
        }
        self.ex.stack.truncate(level);
        self.last_error = e.value;
        e.message = self.render_error(e.value);
        e
    }

    /// Loads and runs a chunk, returning its results (convenience for
    /// tests and the CLI).
    pub fn exec(&mut self, source: &[u8], chunkname: &[u8]) -> Result<Vec<Value>, Error> {
        let f = match self.load(source, chunkname) {
            Ok(f) => f,
            Err(mut e) => {
                e.message = self.render_error(e.value);
                return Err(e);
            }
        };
        self.call(f, &[])
    }

    /// Sets a global variable.
    pub fn set_global(&mut self, name: &str, v: Value) {
        let k = self.heap.intern(name.as_bytes());
        let g = self.globals;
        self.raw_set_str(g, k, v);
    }

    /// Reads a global variable (raw).
    pub fn get_global(&mut self, name: &str) -> Value {
        match self.heap.interner.find(&self.heap.strings, name.as_bytes()) {
            Some(k) => self.heap.tables.get(self.globals).get_str(k),
            None => Value::Nil,
        }
    }

    /// A string value.
    ///
    /// This and the other thin constructors of values are inlined, the
    /// work done out of line returning a handle: a `Value` returned out
    /// of line came back through memory written in pieces (a tag byte, a
    /// 4-byte handle), and the native's `push` copied it with one 16-byte
    /// load that waited for those stores (half of `string.sub`'s and of
    /// `string.char`'s time).
    #[inline(always)]
    pub fn new_string(&mut self, bytes: &[u8]) -> Value {
        Value::Str(self.heap.intern(bytes))
    }

    /// A string of `bytes` as [`State::new_string`] makes it, except that
    /// one longer than 40 bytes is *loose* (not interned: `string.rs`), as
    /// a long concatenation's result is and as Lua 5.4's long strings are,
    /// hashed only if it becomes a table key. For text a native reads or
    /// builds and that is seldom a key (`io.read`'s lines): interning each
    /// cost an insertion into a large hash table and a removal at the
    /// sweep, both cache misses (`io.lines` over 300,000 lines of 55 bytes:
    /// 1.93× lua5.4's time with the same instruction count).
    #[inline(always)]
    pub fn new_loose_string(&mut self, bytes: &[u8]) -> Value {
        Value::Str(self.heap.loose_str(bytes))
    }

    /// The string of the bytes `range` of string `s` (`string.sub`): the
    /// same value as `new_string` of those bytes, without a copy of them
    /// when the string exists. Panics if `range` is not within `s`.
    #[inline(always)]
    pub fn new_substring(&mut self, s: StrRef, range: std::ops::Range<usize>) -> Value {
        Value::Str(self.heap.intern_range(s, range))
    }

    /// A new empty table.
    #[inline(always)]
    pub fn new_table(&mut self) -> Value {
        Value::Table(self.heap.new_table(0, 0))
    }

    /// A new empty table with room for `narray` array slots and `nhash`
    /// other keys (`lua_createtable`).
    pub fn new_table_sized(&mut self, narray: usize, nhash: usize) -> TableRef {
        self.heap.new_table(narray, nhash)
    }

    /// Interns `bytes`: the registered string with that content (two
    /// registered strings of equal contents are one handle; a loose one,
    /// the result of a long concatenation, is compared by
    /// [`State::raw_eq`]).
    #[inline]
    pub fn intern(&mut self, bytes: &[u8]) -> StrRef {
        self.heap.intern(bytes)
    }

    /// The bytes of string `s` (a read-only view into the heap).
    #[inline(always)]
    pub fn str_bytes(&self, s: StrRef) -> &[u8] {
        self.heap.str(s)
    }

    /// A read-only view of table `t`: raw gets, length, `next` and its
    /// traversal order, the metatable (through the header).
    #[inline(always)]
    pub fn table(&self, t: TableRef) -> TableView<'_> {
        self.heap.tables.get(t)
    }

    /// Every live table with a read-only view of it, in handle order
    /// (garbage not yet collected included).
    pub fn live_tables(&self) -> impl Iterator<Item = (TableRef, TableView<'_>)> {
        self.heap.tables.iter()
    }

    /// Sets (or with `None` removes) the metatable of table `t`, raw: no
    /// `__metatable` protection check (as `debug.setmetatable`). A
    /// metatable with `__gc` flags the table for finalization.
    pub fn set_table_metatable(&mut self, t: TableRef, mt: Option<TableRef>) {
        self.set_any_metatable(Value::Table(t), mt);
    }

    /// Every live userdata whose payload is a `T`, in handle order.
    pub fn userdata_of_type<T: std::any::Any>(&self) -> Vec<UserDataRef> {
        self.heap.userdata.iter().filter(|(_, u)| u.data.is::<T>()).map(|(h, _)| h).collect()
    }

    /// Raw `t[k] = v`; does nothing for a non-table `t` or a nil/NaN key
    /// (see [`State::try_table_set`] to get the error).
    pub fn table_set(&mut self, t: Value, k: Value, v: Value) {
        let _ = self.try_table_set(t, k, v);
    }

    /// Raw `t[k] = v`. Errors for a non-table `t`, a nil or NaN key.
    pub fn try_table_set(&mut self, t: Value, k: Value, v: Value) -> Result<(), Error> {
        match t {
            Value::Table(h) => self.raw_set_checked(h, k, v),
            _ => Err(self.error_string(b"table expected")),
        }
    }

    /// Removes every entry of table `t` (raw: no metamethods), keeping the
    /// table itself (its handle, so every reference to it) and its
    /// metatable, with room for as many entries as it had: refilling it
    /// with the same keys does not rehash (LuaJIT's `table.clear`). Deleting
    /// the keys one by one would leave tombstones that the refill then
    /// churns through.
    ///
    /// The table gets a fresh empty body; the old body goes to an
    /// unreachable table that the collector frees. All through the journaled
    /// mutators, so a snapshot rollback restores the old contents.
    pub fn table_clear(&mut self, t: TableRef) {
        let view = self.heap.tables.get(t);
        let in_array = view.array().iter().filter(|v| !v.is_nil()).count();
        let nhash = view.iter().count() - in_array;
        let narray = if in_array > 0 { view.array().len() } else { 0 };
        self.clear_with_room(t, narray, nhash);
    }

    /// Removes every entry of table `t` and leaves it with no room at all
    /// (no array slot, no hash part), keeping the table itself (its handle)
    /// and its metatable: afterwards `t` lays out the keys stored into it
    /// exactly as a new empty table would. Difference transmission uses it
    /// to rebuild a table's iteration order (see [`State::table_clear`],
    /// which keeps room for as many entries as the table had, array slots
    /// included).
    pub fn table_reset(&mut self, t: TableRef) {
        self.clear_with_room(t, 0, 0);
    }

    /// Rebuilds table `t` (raw, keeping its handle and metatable) so that
    /// it iterates exactly `entries`, in that order: the longest prefix of
    /// keys `1, 2, 3, …` goes to an array part of exactly that size, every
    /// other entry to the hash part in order (an integer key included,
    /// even `n + 1`). Any iteration order a table can have is rebuilt so
    /// (the array part's keys come first, ascending, then the hash part's
    /// in order), which [`State::table_reset`] followed by stores cannot
    /// always do (a store lays a key out by the table's state: an integer
    /// key may go to either part). Difference transmission uses it to give
    /// a client table the master's order.
    ///
    /// Entries with a nil value are skipped. Fails, leaving the table
    /// emptied (its metatable kept), on a nil or NaN key or a key given
    /// twice. Journaled like every mutator.
    pub fn table_rebuild(&mut self, t: TableRef, entries: &[(Value, Value)]) -> Result<(), Error> {
        let live = || entries.iter().filter(|e| !e.1.is_nil());
        let narray = live()
            .enumerate()
            .take_while(|&(i, &(k, _))| {
                let want = i as i64 + 1;
                match k {
                    Value::Int(j) => j == want,
                    Value::Float(f) => f == want as f64,
                    _ => false,
                }
            })
            .count();
        let nhash = live().count() - narray;
        self.clear_with_room(t, narray, nhash);
        let ok = self.heap.table_write(t, |tab| {
            for (i, &(k, v)) in live().enumerate() {
                if i < narray {
                    tab.set_int(i as i64 + 1, v);
                } else if !tab.insert_in_hash(k, v) {
                    return false;
                }
            }
            true
        });
        if ok {
            Ok(())
        } else {
            self.table_reset(t);
            Err(self.rt_error("table_rebuild: bad or repeated key"))
        }
    }

    /// [`State::table_clear`] with the given room.
    fn clear_with_room(&mut self, t: TableRef, narray: usize, nhash: usize) {
        let spare = self.heap.new_table(narray, nhash);
        let fresh = *self.heap.tables.get(spare).header();
        let old = *self.heap.tables.get(t).header();
        {
            let mut m = self.heap.tables.get_mut(t);
            *m = fresh;
            m.meta = old.meta;
            m.flags = 0;
        }
        let mut m = self.heap.tables.get_mut(spare);
        *m = old;
        m.meta = None;
    }

    /// The key tables know `k` by, for a read: `k`, or for a loose string
    /// its registered twin (see `string.rs` in the vm crate). Code that
    /// reads a table through [`State::table`] with a key that came from Lua
    /// passes it through this first.
    #[inline]
    pub fn key(&self, k: Value) -> Value {
        self.heap.key(k)
    }

    /// [`State::key`] of a string.
    #[inline]
    pub fn str_key(&self, s: StrRef) -> StrRef {
        self.heap.str_key(s)
    }

    /// [`State::str_key`] for a write: the twin of a loose string is
    /// registered if it has none yet. (`raw_set_str`, `table_set` and the
    /// other writers of the API do this themselves.)
    #[inline]
    pub fn str_key_mut(&mut self, s: StrRef) -> StrRef {
        self.heap.str_key_mut(s)
    }

    /// Primitive equality (`rawequal`, `lua_rawequal`).
    #[inline]
    pub fn raw_eq(&self, a: Value, b: Value) -> bool {
        self.heap.raw_eq(a, b)
    }

    /// Raw `t[k]` (nil for a non-table `t`).
    #[inline]
    pub fn table_get(&self, t: Value, k: Value) -> Value {
        match t {
            Value::Table(h) => self.heap.tables.get(h).get(self.heap.key(k)),
            _ => Value::Nil,
        }
    }

    /// Raw `t[i] = v`.
    pub fn raw_set_int(&mut self, t: TableRef, i: i64, v: Value) {
        self.heap.table_write(t, |tab| tab.set_int(i, v));
    }

    /// Raw `t[1], ..., t[n] = ` the running native's first `n` arguments
    /// (at most as many as it has), as SETLIST stores a constructor's
    /// values: one copy when the array part holds them all, one table
    /// write otherwise (`table.pack`: `raw_set_int` per value cost 160
    /// instructions each).
    pub fn raw_set_list_from_args(&mut self, t: TableRef, n: usize) {
        let base = self.arg_base();
        let n = n.min(self.ex.stack.len().saturating_sub(base));
        self.set_list_at(t, base, n, 0);
    }

    /// Whether the running code may yield (`lua_isyieldable`): it runs in
    /// a coroutine, with no nested call from Rust in between.
    pub fn is_yieldable(&self) -> bool {
        self.running != self.main_thread && self.ex.nny == 0
    }

    /// `t[i] = v` where the store can neither call a metamethod nor
    /// rehash: `i` lies in the array part, and the table has no metatable
    /// or `t[i]` is not nil (`lua_seti`'s fast path); or, on a table
    /// without a metatable and with an empty hash part, `v` is not nil and
    /// `i` is the array's next index within its capacity (an append). The
    /// dispatch loop's SETI and SETTABLE do the same. False, with nothing
    /// written, otherwise: the caller then takes the general path.
    pub fn set_int_in_array(&mut self, t: TableRef, i: i64, v: Value) -> bool {
        let tables = &mut self.heap.tables;
        // Checks that `t` names a live table, as every checked access does.
        let _ = tables.get(t);
        // SAFETY (both): `t` was checked just above.
        match unsafe { tables.array_slot_for_set::<false>(t, (i as u64).wrapping_sub(1), v) } {
            Some(slot) => {
                *slot = v;
                true
            }
            None => unsafe { tables.try_append::<false>(t, i, v) },
        }
    }

    /// Raw `t[to + k] = t[from + k]` for `k` in `0..n` (keys, from 1),
    /// every value read before any is written, as one move of array slots:
    /// true if `t` has no metatable and every key involved is in its array
    /// part; false, nothing written, otherwise (the caller moves them one
    /// by one, with metamethods). The caller charges the work
    /// (`table.insert`, `table.remove`, `table.move`).
    pub fn move_in_array(&mut self, t: TableRef, from: i64, to: i64, n: i64) -> bool {
        let slot = |k: i64| k.checked_sub(1).and_then(|k| usize::try_from(k).ok());
        match (slot(from), slot(to), usize::try_from(n)) {
            (Some(f), Some(d), Ok(n)) => self.heap.tables.move_in_array(t, f, d, n),
            _ => false,
        }
    }

    /// Pushes `t[first]`, ..., `t[last]` when all those keys are in the
    /// array part of `t` and `t` has no metatable: one copy, true. False,
    /// nothing pushed, otherwise (the caller reads them one by one, with
    /// metamethods). The caller has checked the stack's room and charged
    /// the work (`table.unpack`).
    pub fn push_array_run(&mut self, t: TableRef, first: i64, last: i64) -> bool {
        let tab = self.heap.tables.get(t);
        if tab.meta.is_some() || first < 1 || last < first {
            return false;
        }
        let arr = tab.array();
        let (a, b) = (first as u64 - 1, last as u64);
        if b > arr.len() as u64 {
            return false;
        }
        self.ex.stack.extend_from_slice(&arr[a as usize..b as usize]);
        true
    }

    /// [`State::set_int_in_array`] for a run of keys `first..`: all the
    /// values are stored, or none (false) if any key of the run is not in
    /// the array part or, on a table with a metatable, holds nil.
    #[inline]
    pub fn set_ints_in_array(&mut self, t: TableRef, first: i64, vals: &[Value]) -> bool {
        let Some(start) = usize::try_from(first).ok().and_then(|f| f.checked_sub(1)) else {
            return false;
        };
        if vals.iter().all(|&v| crate::schema::ObjRef::of(v).is_none()) {
            return self.heap.tables.set_plain_run::<false>(t, start, vals);
        }
        let tables = &mut self.heap.tables;
        let view = tables.get(t);
        let alen = view.array().len();
        let fits = start < alen && alen - start >= vals.len();
        if !fits
            || (view.meta.is_some()
                && view.array()[start..][..vals.len()].iter().any(|v| v.is_nil()))
        {
            return false;
        }
        for (k, &v) in vals.iter().enumerate() {
            // SAFETY: `t` was checked by `get` above; the slot is in the
            // array part and the store raw (checked above).
            let slot = unsafe { tables.array_slot_for_set::<false>(t, (start + k) as u64, v) };
            if let Some(slot) = slot {
                *slot = v;
            }
        }
        true
    }

    /// Raw `t[s] = v`.
    pub fn raw_set_str(&mut self, t: TableRef, s: StrRef, v: Value) {
        let s = self.heap.str_key_mut(s);
        self.heap.table_write(t, |tab| tab.set_str(s, v));
    }

    /// A new full userdata holding `data`, with metatable `meta`. If the
    /// metatable has `__gc`, the userdata is flagged for finalization (as
    /// `lua_setmetatable` does). The payload is dropped when the userdata is
    /// collected.
    pub fn new_userdata(
        &mut self,
        data: Box<dyn crate::userdata::Payload>,
        meta: Option<TableRef>,
    ) -> Value {
        let u = crate::userdata::UserData { meta, user_values: Vec::new(), data };
        let v = Value::UserData(self.heap.new_userdata(u));
        self.check_finalizer(v, meta);
        v
    }

    /// A new full userdata holding `data` with user values `user_values`
    /// (`lua_newuserdatauv`) and metatable `meta`, as
    /// [`State::new_userdata`].
    pub fn new_userdata_uv(
        &mut self,
        data: Box<dyn crate::userdata::Payload>,
        meta: Option<TableRef>,
        user_values: Vec<Value>,
    ) -> Value {
        let u = crate::userdata::UserData { meta, user_values, data };
        let v = Value::UserData(self.heap.new_userdata(u));
        self.check_finalizer(v, meta);
        v
    }

    /// A new full userdata holding `v` as an [`Opaque`](crate::userdata::Opaque)
    /// payload (see [`State::new_userdata`]).
    pub fn new_userdata_opaque<T: std::any::Any>(&mut self, v: T, meta: Option<TableRef>) -> Value {
        self.new_userdata(Box::new(crate::userdata::Opaque(v)), meta)
    }

    /// The payload of a userdata value if it is a `T`, to read
    /// (`luaL_testudata` by payload type).
    pub fn userdata_ref<T: std::any::Any>(&self, v: Value) -> Option<&T> {
        match v {
            Value::UserData(u) => self.heap.userdata.get(u).data.downcast_ref::<T>(),
            _ => None,
        }
    }

    /// The payload of a userdata value if it is a `T` (`luaL_testudata`
    /// by payload type).
    pub fn userdata_mut<T: std::any::Any>(&mut self, v: Value) -> Option<&mut T> {
        match v {
            // The mark test inline (`Arena::get_mut_storing`): in generational
            // mode a file handle read in a loop would call the barrier each time.
            Value::UserData(u) => {
                self.heap.userdata.get_mut_storing(u, true).data.downcast_mut::<T>()
            }
            _ => None,
        }
    }

    /// Writes to the state's stderr (where warnings go).
    pub fn write_stderr(&mut self, bytes: &[u8]) {
        let _ = std::io::Write::write_all(&mut self.stderr, bytes);
        let _ = std::io::Write::flush(&mut self.stderr);
    }

    /// `lua_close` without freeing: closes the main thread's pending
    /// to-be-closed variables and runs every pending finalizer (used by
    /// `os.exit(code, true)`). Dropping the state afterwards does nothing
    /// more.
    pub fn close(&mut self) {
        self.close_state();
        self.flush_stdout();
    }

    /// The string form of a value, as `tostring` (with `__tostring`; if the
    /// metamethod fails, the raw form).
    pub fn tostring(&mut self, v: Value) -> Vec<u8> {
        match self.tostring_bytes(v) {
            Ok(b) => b,
            Err(_) => {
                let mut out = Vec::new();
                self.tostring_raw(v, &mut out);
                out
            }
        }
    }

    /// Figures about the heap for tests, benchmarks and profiling (see
    /// [`HeapStats`]).
    pub fn heap_stats(&self) -> HeapStats {
        HeapStats {
            strings: self.heap.strings.len(),
            interned: self.heap.interner.len(),
            tables: self.heap.tables.len(),
            table_slots: self.heap.tables.capacity_slots(),
            journal_slots: self.heap.journal_len(),
            journal_pages: self.heap.tables.journal_pages(),
            store_reserved_bytes: self.heap.tables.store().reserved_bytes(),
            table_layout_digest: self.heap.tables.layout_digest(),
        }
    }
}

/// Figures about a state's heap ([`State::heap_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapStats {
    /// Live strings.
    pub strings: usize,
    /// Strings registered in the interner (the live strings but the loose
    /// ones, `string.rs`).
    pub interned: usize,
    /// Live tables.
    pub tables: usize,
    /// Table header slots (live and free).
    pub table_slots: usize,
    /// Object slots saved by the open snapshots' journals.
    pub journal_slots: usize,
    /// Table-store pages saved by the open snapshots' journals.
    pub journal_pages: usize,
    /// Bytes the table store has reserved for table bodies.
    pub store_reserved_bytes: usize,
    /// A digest of the table headers, store pages and free lists: equal
    /// digests mean the same table layout (checked around rollbacks).
    pub table_layout_digest: u64,
}
