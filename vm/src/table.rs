//! Lua tables: an array part and an insertion-ordered hash part.
//!
//! # Layout
//!
//! A table has two parts, as in PUC Lua's `ltable.c`:
//!
//! * the **array part**, `alen` slots of which slot `i` holds key `i + 1`.
//!   Every integer key `k` with `1 <= k <= alen` lives here (possibly as a
//!   nil slot), and nowhere else;
//! * the **hash part**, every other key. It is an *ordered* map: `elen`
//!   entries `(key, value)` in insertion order, plus an index, an
//!   open-addressing table (linear probing, `2 * hcap` slots, load factor
//!   at most 1/2) of `u32` positions into the entries (0 = empty slot,
//!   otherwise position + 1).
//!
//! A [`Table`] is only the *header* (32 bytes of plain data: metatable,
//! metamethod cache, sizes, and the [`Addr`]ess of the body). The contents
//! live in the table's **body**, one block of the heap's [`TableStore`] (a
//! paged block store of values, `store.rs`), laid out as
//!
//! ```text
//! [ entries: 2 * hcap cells | index: hcap cells | array: acap cells | slack ]
//! ```
//!
//! entry `e` being the cells `2e` (key) and `2e + 1` (value), and each index
//! cell holding two `u32` slots as the halves of an integer (a nil cell is
//! two empty slots, so a fresh block needs no initialization). The block's
//! capacity is `acap + 3 * hcap` rounded up to a power of two; the array is
//! last, so it grows into the slack without moving, and one table's
//! contents are one contiguous run of memory (one cache-miss chain per
//! access: header, chunk, body). A rehash that changes a capacity moves the
//! body to a new block (the array too: a table with a large array and a
//! growing hash part pays an array copy per hash doubling).
//!
//! **Snapshots.** Contents are journaled by the store a page at a time: the
//! first write to a page after a snapshot copies it, a rollback swaps the
//! copy back, so a fully rewritten heap costs about one `memcpy` of its
//! contents to journal and almost nothing to roll back (see
//! `benches/RESULTS.md`). The header is an arena slot, journaled as an
//! object — but only when it changes: a [`TableMut`] works on a copy of the
//! header and writes it back when dropped only if it differs, so a write
//! that changes only cells (an update, the common case) leaves the arena
//! untouched.
//!
//! The heap's [`Tables`] pairs the header arena with the store; contents
//! are read through a [`TableView`] and written through a [`TableMut`],
//! both of which borrow a header and the store.
//!
//! Keys are hashed without touching the heap: strings and all other
//! collectable objects by their handle index (strings are interned, so the
//! handle is the content), integers by value, floats by bits, booleans by
//! value; the word is tagged by type and multiplied by a fixed odd constant,
//! and the top bits select the slot (Fibonacci hashing). Nothing depends on a
//! machine address or on a random seed.
//!
//! # Normalized keys
//!
//! A float key with an integral value in the integer range is converted to
//! that integer (`t[1.0]` is `t[1]`, `t[2^53]` is `t[2^53 | 0]`); `-0.0` is
//! `0`. So a stored float key is never integral (or is at least 2^63 in
//! magnitude), and float keys compare by bits. NaN and nil are not keys.
//!
//! # Deletion, tombstones and dead entries
//!
//! Assigning nil to a key of the hash part leaves its entry in place with a
//! nil value: a **tombstone**. The index still finds it, so `next` from a
//! key removed during a traversal works, exactly as in PUC Lua. Assigning a
//! non-nil value to a tombstoned key is a re-insertion: the old entry
//! becomes **dead** (its key is set to nil, which no lookup matches, while
//! its index slot keeps acting as a probe-chain link), and a fresh entry is
//! appended, so **a re-inserted key goes to the end of the order** (if the
//! tombstone is already the last entry it is simply revived in place, which
//! is the same order). Tombstones and dead entries are dropped only by a
//! rehash, which happens only when a key that is absent or tombstoned gets
//! a value while the hash part is full (an insertion, which Lua forbids
//! during a traversal anyway), or on [`TableMut::resize_array`].
//!
//! A rehash sizes the hash part to the next power of two (at least 4) that
//! holds the surviving keys plus the new one; when it dropped tombstones and
//! that would leave less than a quarter free, it doubles once more, so
//! insert/delete churn costs amortized O(1).
//!
//! # Iteration order (a hard rule)
//!
//! [`TableView::next`] visits first the array part, keys `1..=alen` in
//! ascending order (skipping nil slots), then the hash part in entry order:
//! every other key in the order in which it was last inserted while absent,
//! whatever its type. The order therefore depends only on the sequence of
//! operations applied to the table, never on hashes, addresses or process.
//!
//! Integer keys can move between the parts, only at well-defined moments:
//!
//! * appending key `n + 1` to an array part of length `n` (below);
//! * a rehash, which may grow the array part and absorb hash keys `1..=n'`
//!   (they leave the hash order: integer keys in the array part are always
//!   visited first, in ascending order), or shrink it, appending the
//!   array's keys above the new size to the hash order in ascending order,
//!   before the key whose insertion caused the rehash.
//!
//! # Array growth
//!
//! Setting key `n + 1` (non-nil) on a table whose array part has length `n`
//! and that does not already hold key `n + 1` in its hash part appends to
//! the array part. The array has a logical capacity; within it appending
//! is a push. At capacity, the new capacity (double, at least 1) is taken
//! only if the array would then be more than half full (the array's
//! non-nil slots are counted, amortized by the doubling), as `computesizes`
//! would decide; otherwise the key goes to the hash part. A rehash computes
//! the optimal array size with `ltable.c`'s `computesizes` (the largest
//! power of two `2^i` such that more than half of `1..=2^i` are keys),
//! counting the array part only when some positive integer key is involved
//! (in the hash part or being inserted), so a table with a large array and
//! a churning string-keyed hash part does not rescan its array.
//!
//! # Length
//!
//! [`TableView::len`] returns a border as `luaH_getn` finds it: if the array
//! part's last slot is nil, the border is in the array part (the slot
//! before it if non-nil, else by binary search); otherwise, if key
//! `alen + 1` is absent, it is `alen`; otherwise an unbound
//! search continues into the hash part (doubling, then binary search), like
//! `hash_search`.
//!
//! # Metamethod cache
//!
//! `flags` belongs to the runtime: bit `i` set means "metamethod `i` known
//! absent". Every assignment to a string key, through any setter, resets it
//! to 0 (including assignments of nil), which is always safe.
//!
//! # The collector
//!
//! [`TableView::for_each_ref`] and [`TableView::iter`] report only live entries.
//! Tombstone and dead keys are weak: they may name freed objects (the
//! handle may even be reused), but they are only ever compared, never
//! dereferenced, so that is harmless. [`TableMut::retain`] turns dropped hash
//! entries into tombstones, so survivors keep their order and a traversal
//! in progress can continue.

use crate::arena::Arena;
use crate::number::{float_to_int, F2I};
use crate::store::{Addr, Elem, Store, EMPTY};
use crate::value::{StrRef, TableRef, Value};
use crate::writes::WriteLog;
use std::fmt;

/// Largest array part (2^27 slots, 2 GiB); larger integer keys live in the
/// hash part.
const MAX_ARRAY_BITS: usize = 27;
const MAX_ARRAY: usize = 1 << MAX_ARRAY_BITS;
/// Smallest nonempty hash part.
const MIN_HASH: usize = 4;
/// Hash parts up to this capacity are scanned, not probed, by string-key
/// reads ([`TableView::get_str`]).
const SCAN_HASH: usize = 4;

/// Error from [`TableMut::set`]: the key cannot be a table key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The key is nil ("table index is nil").
    NilKey,
    /// The key is NaN ("table index is NaN").
    NaNKey,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyError::NilKey => "table index is nil",
            KeyError::NaNKey => "table index is NaN",
        })
    }
}

impl std::error::Error for KeyError {}

/// Error from [`TableView::next`]: the key is not in the table
/// ("invalid key to 'next'").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextError;

impl fmt::Display for NextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid key to 'next'")
    }
}

impl std::error::Error for NextError {}

/// A free block's link is an integer in its first cell.
impl Elem for Value {
    #[inline]
    fn from_link(link: u32) -> Self {
        Value::Int(i64::from(link))
    }
    #[inline]
    fn link(self) -> u32 {
        match self {
            Value::Int(i) => i as u32,
            _ => u32::MAX,
        }
    }
}

/// A Lua table's header: the metatable, the metamethod cache, the sizes of
/// its two parts, and the [`Addr`]ess of its *body*, the one block of the
/// [`TableStore`] that holds both parts. Plain data (`Copy`, 32 bytes): the
/// snapshot journal copies it without allocating. Contents are read and
/// written through a [`TableView`] or a [`TableMut`] ([`Tables::get`],
/// [`Tables::get_mut`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table {
    /// The metatable.
    pub meta: Option<TableRef>,
    /// Metamethod-absence cache owned by the runtime; reset to 0 by every
    /// assignment to a string key.
    pub flags: u8,
    /// `64 - log2(index slots)` (64 when there is no hash part).
    shift: u8,
    /// The body block (capacity `body_cap(acap, hcap)`).
    body: Addr,
    /// Array slots in use (keys `1..=alen`).
    alen: u32,
    /// Logical capacity of the array part for appends (`>= alen`).
    acap: u32,
    /// Entries in use (live, tombstones and dead), in order.
    elen: u32,
    /// Maximum number of entries before a rehash (0 or a power of two).
    hcap: u32,
}

impl Default for Table {
    fn default() -> Self {
        Table { meta: None, flags: 0, shift: 64, body: EMPTY, alen: 0, acap: 0, elen: 0, hcap: 0 }
    }
}

/// Capacity of the body block of a table with array capacity `acap` and
/// hash capacity `hcap` (0: no block).
#[inline]
fn body_cap(acap: usize, hcap: usize) -> usize {
    match acap + 3 * hcap {
        0 => 0,
        n => n.next_power_of_two(),
    }
}

/// Reads index slot `p` from the index cells `index` (two `u32` slots per
/// cell, as the low and high halves of an integer; a nil cell is two empty
/// slots).
#[inline(always)]
fn islot(index: &[Value], p: usize) -> u32 {
    match index[p >> 1] {
        Value::Int(x) => ((x as u64) >> ((p & 1) * 32)) as u32,
        _ => 0,
    }
}

/// `cell` with index slot half `p & 1` set to `v`.
#[inline]
fn with_islot(cell: Value, p: usize, v: u32) -> Value {
    let x = match cell {
        Value::Int(x) => x as u64,
        _ => 0,
    };
    let sh = (p & 1) * 32;
    Value::Int(((x & !(0xffff_ffffu64 << sh)) | (u64::from(v) << sh)) as i64)
}

/// Finds the first free slot of the index (`slots` slots in cells `index`)
/// on the probe chain of hash `h`.
#[inline]
fn free_slot(index: &[Value], slots: usize, shift: u8, h: u64) -> usize {
    let mask = slots - 1;
    let mut pos = (h >> shift) as usize & mask;
    while islot(index, pos) != 0 {
        pos = (pos + 1) & mask;
    }
    pos
}

const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// Type tags mixed into handle hashes so that, e.g., string #3 and table #3
/// land in different slots.
const TAG_STR: u64 = 1 << 56;
const TAG_TABLE: u64 = 2 << 56;
const TAG_LUAFN: u64 = 3 << 56;
const TAG_RUSTFN: u64 = 4 << 56;
const TAG_THREAD: u64 = 5 << 56;
const TAG_UDATA: u64 = 6 << 56;
const TAG_BOOL: u64 = 7 << 56;

#[inline(always)]
fn mix(x: u64) -> u64 {
    (x ^ (x >> 32)).wrapping_mul(MUL)
}

#[inline(always)]
fn str_hash(s: StrRef) -> u64 {
    mix(u64::from(s.index()) | TAG_STR)
}

#[inline(always)]
fn int_hash(i: i64) -> u64 {
    mix(i as u64)
}

/// Hash of a normalized key (never nil/NaN in practice).
#[inline]
fn key_hash(k: Value) -> u64 {
    match k {
        Value::Int(i) => int_hash(i),
        Value::Str(s) => str_hash(s),
        Value::Float(f) => mix(f.to_bits().rotate_left(17)),
        Value::Bool(b) => mix(TAG_BOOL | u64::from(b)),
        Value::Table(h) => mix(u64::from(h.index()) | TAG_TABLE),
        Value::LuaFn(h) => mix(u64::from(h.index()) | TAG_LUAFN),
        Value::RustFn(h) => mix(u64::from(h.index()) | TAG_RUSTFN),
        Value::Thread(h) => mix(u64::from(h.index()) | TAG_THREAD),
        Value::UserData(h) => mix(u64::from(h.index()) | TAG_UDATA),
        Value::Nil => 0,
    }
}

/// Identity of normalized keys (floats by bits; nil matches nothing).
#[inline]
fn key_eq(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Table(x), Value::Table(y)) => x == y,
        (Value::LuaFn(x), Value::LuaFn(y)) => x == y,
        (Value::RustFn(x), Value::RustFn(y)) => x == y,
        (Value::Thread(x), Value::Thread(y)) => x == y,
        (Value::UserData(x), Value::UserData(y)) => x == y,
        _ => false,
    }
}

/// A key in canonical form, or why it cannot be one.
enum Norm {
    Int(i64),
    Other(Value),
    Nil,
    NaN,
}

#[inline]
fn normalize(key: Value) -> Norm {
    match key {
        Value::Int(i) => Norm::Int(i),
        Value::Float(f) => match float_to_int(f, F2I::Exact) {
            Some(i) => Norm::Int(i),
            None if f.is_nan() => Norm::NaN,
            None => Norm::Other(key),
        },
        Value::Nil => Norm::Nil,
        _ => Norm::Other(key),
    }
}

/// Result of probing the index for a key.
enum Probe {
    /// Found: (index slot, entry position).
    Found(usize, usize),
    /// Absent.
    Absent,
}

// --------------------------------------------------------------------
// The store of table contents
// --------------------------------------------------------------------

/// Where the contents of every table live: one paged block store of values
/// (`store.rs`), one block (the *body*) per table. A body is allocated when
/// the table is created or rehashed (or its array outgrows the block) and
/// freed when the collector frees the table.
#[derive(Default)]
pub struct TableStore {
    vals: Store<Value>,
}

impl TableStore {
    /// A table with an array part of `narray` nil slots and room for
    /// `nhash` hash keys (both are hints: the array is capped at 2^27
    /// slots, the preallocated hash part at 2^20 keys).
    pub fn new_table(&mut self, narray: usize, nhash: usize) -> Table {
        let narray = narray.min(MAX_ARRAY);
        let hcap = match nhash {
            0 => 0,
            n => n.min(1 << 20).next_power_of_two().max(MIN_HASH),
        };
        Table {
            body: self.alloc_body(narray, hcap),
            alen: narray as u32,
            acap: narray as u32,
            hcap: hcap as u32,
            shift: shift_for(hcap),
            ..Table::default()
        }
    }

    /// Frees the body of `t` (the collector frees its header).
    pub fn free_table(&mut self, t: &Table) {
        self.free_body(t);
    }

    /// Read access to the contents of `t`.
    #[inline(always)]
    pub fn view<'a>(&'a self, t: &'a Table) -> TableView<'a> {
        TableView { t, s: self }
    }

    /// Write access to the contents of `t`.
    #[inline(always)]
    pub fn view_mut<'a>(&'a mut self, t: &'a mut Table) -> TableMut<'a> {
        let h = *t;
        TableMut { t: h, orig: h, dst: HeaderDst::Plain(t), s: self }
    }

    /// Bytes reserved by the store's pages (a report figure; the
    /// collector's figure is [`TableView::estimated_bytes`]).
    pub fn reserved_bytes(&self) -> usize {
        self.vals.reserved_bytes()
    }

    /// A body block for capacities `acap` and `hcap` (all nil), or [`EMPTY`].
    fn alloc_body(&mut self, acap: usize, hcap: usize) -> Addr {
        match body_cap(acap, hcap) {
            0 => EMPTY,
            c => self.vals.alloc(c),
        }
    }

    fn free_body(&mut self, t: &Table) {
        let c = body_cap(t.acap as usize, t.hcap as usize);
        if c > 0 {
            self.vals.free(t.body, c);
        }
    }

    /// Opens a journal level.
    pub fn journal_begin(&mut self) {
        self.vals.journal_begin();
    }

    /// Undoes every change since level `level` (which stays open).
    pub fn journal_rollback_to(&mut self, level: usize) {
        self.vals.journal_rollback_to(level);
    }

    /// Closes level `level` and those above it, keeping the current state.
    pub fn journal_commit_to(&mut self, level: usize) {
        self.vals.journal_commit_to(level);
    }

    /// Pages saved by the open levels.
    pub fn journal_len(&self) -> usize {
        self.vals.journal_len()
    }
}

/// `shift` for a hash part of `hcap` entries (`2 * hcap` index slots).
#[inline]
fn shift_for(hcap: usize) -> u8 {
    match hcap {
        0 => 64,
        c => (64 - (c * 2).trailing_zeros()) as u8,
    }
}

// --------------------------------------------------------------------
// Every table: headers in an arena, contents in the store
// --------------------------------------------------------------------

/// The heap's tables: headers in an [`Arena`] (handles index it), contents
/// in a [`TableStore`]. Both keep undo journals and are rolled back
/// together. Every write to a table passes through one of its methods,
/// which report it to the write log (`writes.rs`).
#[derive(Default)]
pub struct Tables {
    arena: Arena<Table>,
    store: TableStore,
    writes: WriteLog,
}

impl Tables {
    /// Allocates a table (see [`TableStore::new_table`]).
    #[inline]
    pub fn alloc(&mut self, narray: usize, nhash: usize) -> TableRef {
        let t = self.store.new_table(narray, nhash);
        let h = self.arena.alloc(t);
        self.writes.touch(h.index());
        h
    }

    /// Read access to table `h`.
    #[inline(always)]
    pub fn get(&self, h: TableRef) -> TableView<'_> {
        TableView { t: self.arena.get(h), s: &self.store }
    }

    /// Write access to table `h` (journals its header while a snapshot is
    /// open; the store journals the pages written). Counts as a write of
    /// `h` for the write log, whether or not anything changes.
    #[inline(always)]
    pub fn get_mut(&mut self, h: TableRef) -> TableMut<'_> {
        self.writes.touch(h.index());
        let t = *self.arena.get(h);
        TableMut { t, orig: t, dst: HeaderDst::Slot(&mut self.arena, h), s: &mut self.store }
    }

    /// Table at raw index `idx`, if the slot is occupied.
    #[inline]
    pub fn try_get(&self, idx: u32) -> Option<TableView<'_>> {
        self.arena.try_get(idx).map(|t| TableView { t, s: &self.store })
    }

    /// Number of live tables.
    pub fn len(&self) -> usize {
        self.arena.len()
    }

    /// Number of header slots (live or free).
    pub fn capacity_slots(&self) -> usize {
        self.arena.capacity_slots()
    }

    /// The header arena (its layout, for writing the heap to bytes).
    pub fn headers(&self) -> &Arena<Table> {
        &self.arena
    }

    /// The contents' store.
    pub fn store(&self) -> &TableStore {
        &self.store
    }

    /// Live tables in index order.
    pub fn iter(&self) -> impl Iterator<Item = (TableRef, TableView<'_>)> {
        let s = &self.store;
        self.arena.iter().map(move |(h, t)| (h, TableView { t, s }))
    }

    /// Sets the mark bit of `h`; true if it was not set before.
    #[inline]
    pub fn mark(&mut self, h: TableRef) -> bool {
        self.arena.mark(h)
    }

    /// Whether `h` is marked.
    #[inline]
    pub fn is_marked(&self, h: TableRef) -> bool {
        self.arena.is_marked(h)
    }

    /// Frees every unmarked table in index order (its blocks too), calling
    /// `on_free` for each first; clears the marks. Returns the number freed.
    pub fn sweep(&mut self, mut on_free: impl FnMut(TableRef, TableView<'_>)) -> usize {
        let store = &mut self.store;
        let writes = &mut self.writes;
        self.arena.sweep(|h, t| {
            writes.touch(h.index());
            on_free(h, TableView { t, s: store });
            store.free_table(t);
        })
    }

    /// Rebuilds the tables from their layouts ([`TableView::to_parts`],
    /// `None` for a free slot) and the header arena's free list, checking
    /// each (see [`TableStore::table_from_parts`]).
    pub fn from_raw_parts(
        slots: Vec<Option<TableParts>>,
        free: Vec<u32>,
    ) -> Result<Tables, String> {
        let mut store = TableStore::default();
        let mut headers = Vec::with_capacity(slots.len());
        for (i, p) in slots.into_iter().enumerate() {
            headers.push(match p {
                Some(p) => Some(store.table_from_parts(p).map_err(|e| format!("table {i}: {e}"))?),
                None => None,
            });
        }
        Ok(Tables {
            arena: Arena::from_raw_parts(headers, free)?,
            store,
            writes: WriteLog::default(),
        })
    }

    /// Opens a journal level (headers and contents).
    pub fn journal_begin(&mut self) {
        self.arena.journal_begin();
        self.store.journal_begin();
        self.writes.journal_begin();
    }

    /// Undoes every change since level `level` (which stays open).
    pub fn journal_rollback_to(&mut self, level: usize) {
        self.arena.journal_rollback_to(level, |_, _, _| {});
        self.store.journal_rollback_to(level);
        self.writes.journal_rollback_to(level);
    }

    /// Closes level `level` and those above it, keeping the current state.
    pub fn journal_commit_to(&mut self, level: usize) {
        self.arena.journal_commit_to(level);
        self.store.journal_commit_to(level);
        self.writes.journal_commit_to(level);
    }

    /// Headers saved by the open levels.
    pub fn journal_len(&self) -> usize {
        self.arena.journal_len()
    }

    /// The dispatch loop's `t[i] = v` for an existing array slot (key
    /// `idx + 1`): the slot, mutable, if it is in the array part and the
    /// assignment is raw (no metatable, or the slot holds a value, so no
    /// `__newindex` applies). Touches no header.
    #[inline(always)]
    pub fn array_slot_for_set(&mut self, h: TableRef, idx: u64) -> Option<&mut Value> {
        let t = self.arena.get(h);
        if idx < u64::from(t.alen) {
            let i = 3 * t.hcap as usize + idx as usize;
            if t.meta.is_none() || !self.store.vals.get(t.body, i).is_nil() {
                self.writes.touch_fast(h.index());
                return Some(self.store.vals.get_mut(t.body, i));
            }
        }
        None
    }

    /// The dispatch loop's append: raw `t[i] = v` on a table without a
    /// metatable if it is an append to the array part within its capacity
    /// (`i` is `alen + 1`, `v` is not nil, the hash part is empty so it
    /// cannot hold key `i`): exactly what [`TableMut::set_int`] would do,
    /// without the hash probe and without building a `TableMut` (the
    /// header changes, so it is written, hence journaled). True if done.
    #[inline(always)]
    pub fn try_append(&mut self, h: TableRef, i: i64, v: Value) -> bool {
        let t = self.arena.get(h);
        let n = t.alen;
        if t.meta.is_none()
            && i as u64 == u64::from(n) + 1
            && n < t.acap
            && t.elen == 0
            && !v.is_nil()
        {
            let (body, cell) = (t.body, 3 * t.hcap as usize + n as usize);
            *self.store.vals.get_mut(body, cell) = v;
            self.arena.get_mut(h).alen = n + 1;
            self.writes.touch_fast(h.index());
            return true;
        }
        false
    }

    /// The dispatch loop's `t[s] = v` when `s` is present with a non-nil
    /// value (an update: raw whatever the metatable). True if done. The
    /// header is written (to reset the metamethod cache, as every
    /// string-key assignment does) only if the cache is not already clear.
    #[inline(always)]
    pub fn set_str_existing(&mut self, h: TableRef, s: StrRef, v: Value) -> bool {
        let t = self.arena.get(h);
        let (body, flags) = (t.body, t.flags);
        match (TableView { t, s: &self.store }).find_str_entry(s) {
            Some((e, old)) if !old.is_nil() => {
                *self.store.vals.get_mut(body, 2 * e + 1) = v;
                if flags != 0 {
                    self.arena.get_mut(h).flags = 0;
                }
                self.writes.touch_fast(h.index());
                true
            }
            _ => false,
        }
    }

    /// Sets bits of `h`'s metamethod-absence cache (`flags |= bits`): a
    /// lookup's bookkeeping, not a write of the table's contents, so the
    /// write log is not told (the header is still journaled).
    #[inline]
    pub fn cache_tm_absent(&mut self, h: TableRef, bits: u8) {
        self.arena.get_mut(h).flags |= bits;
    }

    /// The write log (`writes.rs`).
    #[inline]
    pub(crate) fn write_log(&self) -> &WriteLog {
        &self.writes
    }

    /// The write log, mutable.
    #[inline]
    pub(crate) fn write_log_mut(&mut self) -> &mut WriteLog {
        &mut self.writes
    }

    /// Content pages saved by the open levels.
    pub fn journal_pages(&self) -> usize {
        self.store.journal_len()
    }

    /// A digest of the physical layout: every header (body addresses
    /// included) and the store's pages and free lists. Two heaps with equal
    /// digests allocate alike from then on; the state hash, by contrast,
    /// covers only what Lua can observe. Tests check a rollback with it.
    pub fn layout_digest(&self) -> u64 {
        let mut h = self.store.vals.layout_digest(|v| key_hash(*v) ^ (v.is_nil() as u64));
        for (i, t) in self.arena.raw_slots().iter().enumerate() {
            let x = match t {
                None => u64::MAX,
                Some(t) => {
                    let meta = t.meta.map_or(0, |m| u64::from(m.index()) + 1);
                    u64::from(t.body)
                        ^ u64::from(t.alen) << 32
                        ^ u64::from(t.acap).rotate_left(7)
                        ^ u64::from(t.elen).rotate_left(19)
                        ^ u64::from(t.hcap).rotate_left(29)
                        ^ meta.rotate_left(41)
                        ^ u64::from(t.flags) << 56
                }
            };
            h = (h ^ x ^ i as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }
}

/// A table with its own store: for tests and benchmarks of the table
/// alone (the heap keeps every table in one [`Tables`]).
#[derive(Default)]
pub struct OwnedTable {
    store: TableStore,
    t: Table,
}

impl OwnedTable {
    /// See [`TableStore::new_table`].
    pub fn new(narray: usize, nhash: usize) -> OwnedTable {
        let mut store = TableStore::default();
        let t = store.new_table(narray, nhash);
        OwnedTable { store, t }
    }

    /// Write access.
    pub fn view_mut(&mut self) -> TableMut<'_> {
        self.store.view_mut(&mut self.t)
    }
}

// --------------------------------------------------------------------
// Reads
// --------------------------------------------------------------------

/// Read access to a table: its header and the store holding its body.
#[derive(Clone, Copy)]
pub struct TableView<'a> {
    t: &'a Table,
    s: &'a TableStore,
}

impl std::ops::Deref for TableView<'_> {
    type Target = Table;
    #[inline(always)]
    fn deref(&self) -> &Table {
        self.t
    }
}

impl<'a> TableView<'a> {
    /// The header.
    #[inline(always)]
    pub fn header(self) -> &'a Table {
        self.t
    }

    /// The used part of the body: entries, index, array slots.
    #[inline(always)]
    fn body(self) -> &'a [Value] {
        let t = self.t;
        self.s.vals.slice(t.body, 3 * t.hcap as usize + t.alen as usize)
    }

    /// The array part: slot `i` holds key `i + 1`.
    #[inline(always)]
    pub fn array(self) -> &'a [Value] {
        &self.body()[3 * self.t.hcap as usize..]
    }

    /// The entries, as `key, value` cell pairs.
    #[inline(always)]
    fn ents(self) -> &'a [Value] {
        &self.body()[..2 * self.t.elen as usize]
    }

    /// Raw `t[key]` (no metamethods): nil when absent; float keys with an
    /// integral value are looked up as integers; nil and NaN give nil.
    #[inline]
    pub fn get(self, key: Value) -> Value {
        match key {
            Value::Int(i) => self.get_int(i),
            Value::Str(s) => self.get_str(s),
            _ => match normalize(key) {
                Norm::Int(i) => self.get_int(i),
                Norm::Other(k) => self.get_hash(k),
                Norm::Nil | Norm::NaN => Value::Nil,
            },
        }
    }

    /// Raw `t[i]`, array part first.
    #[inline(always)]
    pub fn get_int(self, i: i64) -> Value {
        let idx = (i as u64).wrapping_sub(1);
        let t = self.t;
        if idx < u64::from(t.alen) {
            return self.s.vals.get(t.body, 3 * t.hcap as usize + idx as usize);
        }
        self.get_int_hash(i)
    }

    /// Array slot `idx` (key `idx + 1`) if it is in the array part.
    #[inline(always)]
    pub fn array_cell(self, idx: u64) -> Option<&'a Value> {
        let t = self.t;
        if idx < u64::from(t.alen) {
            return Some(self.s.vals.get_ref(t.body, 3 * t.hcap as usize + idx as usize));
        }
        None
    }

    /// Raw `t[s]` for a string key.
    #[inline(always)]
    pub fn get_str(self, s: StrRef) -> Value {
        self.find_str_entry(s).map_or(Value::Nil, |(_, v)| v)
    }

    /// The entry and value of string key `s` (live or tombstone). A small
    /// hash part (at most `SCAN_HASH` entries of capacity) is scanned in
    /// entry order instead of probed: fewer instructions than hashing and
    /// decoding an index slot, and the same answer (keys are unique among
    /// entries; dead entries have a nil key, which matches nothing).
    #[inline(always)]
    fn find_str_entry(self, s: StrRef) -> Option<(usize, Value)> {
        let h = self.t.hcap as usize;
        if h > SCAN_HASH {
            return self.find_str(s).map(|(_, e, v)| (e, v));
        }
        let ents = self.ents();
        let mut k = 0;
        while k < ents.len() {
            if matches!(ents[k], Value::Str(x) if x == s) {
                return Some((k / 2, ents[k + 1]));
            }
            k += 2;
        }
        None
    }

    /// The index slot, entry and value of string key `s` (live or
    /// tombstone).
    #[inline(always)]
    fn find_str(self, s: StrRef) -> Option<(usize, usize, Value)> {
        let h = self.t.hcap as usize;
        if h == 0 {
            return None;
        }
        // Entries and index only: an index slot never names an entry at or
        // past `elen`, so the entries need no bound of their own.
        let cells = self.s.vals.slice(self.t.body, 3 * h);
        let (ents, index) = cells.split_at(2 * h);
        let mask = 2 * h - 1;
        let mut pos = (str_hash(s) >> self.t.shift) as usize & mask;
        loop {
            let e = islot(index, pos);
            if e == 0 {
                return None;
            }
            let k = 2 * (e - 1) as usize;
            if matches!(ents[k], Value::Str(x) if x == s) {
                return Some((pos, (e - 1) as usize, ents[k + 1]));
            }
            pos = (pos + 1) & mask;
        }
    }

    #[inline(never)]
    fn get_int_hash(self, i: i64) -> Value {
        self.get_hash(Value::Int(i))
    }

    /// Lookup of a normalized non-integer key in the hash part.
    fn get_hash(self, key: Value) -> Value {
        match self.probe(key, key_hash(key)) {
            Probe::Found(_, e) => self.ents()[2 * e + 1],
            Probe::Absent => Value::Nil,
        }
    }

    /// Finds a normalized key in the hash part (live, tombstone).
    #[inline]
    fn probe(self, key: Value, h: u64) -> Probe {
        let hc = self.t.hcap as usize;
        if hc == 0 {
            return Probe::Absent;
        }
        let cells = self.s.vals.slice(self.t.body, 3 * hc);
        let (ents, index) = cells.split_at(2 * hc);
        let mask = 2 * hc - 1;
        let mut pos = (h >> self.t.shift) as usize & mask;
        loop {
            let e = islot(index, pos);
            if e == 0 {
                return Probe::Absent;
            }
            if key_eq(ents[2 * (e - 1) as usize], key) {
                return Probe::Found(pos, (e - 1) as usize);
            }
            pos = (pos + 1) & mask;
        }
    }

    /// `computesizes` over the array part, the hash part's positive integer
    /// keys and `extra`; the current size if no positive integer key is
    /// involved.
    fn optimal_array_size(self, extra: Option<u64>) -> usize {
        let mut nums = [0usize; MAX_ARRAY_BITS + 1];
        let mut total = 0usize;
        for (k, _) in self.hash_pairs() {
            if let Value::Int(k) = k {
                total += count_key(&mut nums, k as u64);
            }
        }
        if let Some(k) = extra {
            total += count_key(&mut nums, k);
        }
        if total == 0 {
            return self.t.alen as usize;
        }
        for (i, v) in self.array().iter().enumerate() {
            if !v.is_nil() {
                total += count_key(&mut nums, i as u64 + 1);
            }
        }
        computesizes(&nums, total)
    }

    /// The hash part's live pairs in order (after the array part in the
    /// traversal order).
    #[inline]
    pub(crate) fn hash_pairs(self) -> impl Iterator<Item = (Value, Value)> + 'a {
        self.ents().chunks_exact(2).filter(|c| !c[1].is_nil()).map(|c| (c[0], c[1]))
    }

    /// The length operator `#t` (raw): a border, found as `luaH_getn` does
    /// (see the module documentation).
    pub fn len(self) -> i64 {
        let array = self.array();
        let n = array.len();
        if n > 0 && array[n - 1].is_nil() {
            if n >= 2 && !array[n - 2].is_nil() {
                return (n - 1) as i64;
            }
            return binsearch(array, 0, n) as i64;
        }
        if self.t.elen == 0 || self.get_int_hash(n as i64 + 1).is_nil() {
            return n as i64;
        }
        self.hash_search(n as u64)
    }

    /// `hash_search`: `t[j]` present (or `j == 0`), `t[j + 1]` present.
    fn hash_search(self, mut j: u64) -> i64 {
        let max = i64::MAX as u64;
        let mut i;
        if j == 0 {
            j = 1;
        }
        loop {
            i = j;
            if j <= max / 2 {
                j *= 2;
            } else {
                j = max;
                if self.get_int(j as i64).is_nil() {
                    break;
                }
                return j as i64;
            }
            if self.get_int(j as i64).is_nil() {
                break;
            }
        }
        while j - i > 1 {
            let m = i + (j - i) / 2;
            if self.get_int(m as i64).is_nil() {
                j = m;
            } else {
                i = m;
            }
        }
        i as i64
    }

    /// Raw `next(t, key)`: the pair after `key` in the traversal order (see
    /// the module documentation), `Ok(None)` at the end, `Err` when `key`
    /// is not in the table. `key` nil starts the traversal.
    #[inline]
    pub fn next(self, key: Value) -> Result<Option<(Value, Value)>, NextError> {
        let pos = match self.position_after(key) {
            Some(p) => p,
            None => return Err(NextError),
        };
        Ok(self.next_at(pos).map(|(_, k, v)| (k, v)))
    }

    /// The traversal position just after `key` (0 for nil), or `None` if
    /// the key is not in the table.
    pub fn position_after(self, key: Value) -> Option<usize> {
        let n = self.t.alen as usize;
        let k = match normalize(key) {
            Norm::Nil => return Some(0),
            Norm::NaN => return None,
            Norm::Int(i) if (i as u64).wrapping_sub(1) < n as u64 => return Some(i as usize),
            Norm::Int(i) => Value::Int(i),
            Norm::Other(k) => k,
        };
        match self.probe(k, key_hash(k)) {
            Probe::Found(_, e) => Some(n + e + 1),
            Probe::Absent => None,
        }
    }

    /// Positional traversal: the first live pair at position `>= pos`
    /// (positions `0..array_len_raw()` are the array part, then the hash
    /// entries), with the position to resume from. Positions stay valid
    /// until the next rehash (an insertion, or `TableMut::resize_array`);
    /// this avoids the key lookup that [`TableView::next`] does at each step.
    #[inline]
    pub fn next_at(self, pos: usize) -> Option<(usize, Value, Value)> {
        let array = self.array();
        let n = array.len();
        if pos < n {
            if let Some(i) = array[pos..].iter().position(|v| !v.is_nil()) {
                let p = pos + i;
                return Some((p + 1, Value::Int(p as i64 + 1), array[p]));
            }
        }
        let start = pos.saturating_sub(n);
        let tail = self.ents().get(2 * start..)?;
        let i = tail.chunks_exact(2).position(|c| !c[1].is_nil())?;
        Some((n + start + i + 1, tail[2 * i], tail[2 * i + 1]))
    }

    /// True when the table has no non-nil value.
    pub fn is_empty(self) -> bool {
        self.next_at(0).is_none()
    }

    /// Every live key and value (array values with their integer keys),
    /// in traversal order.
    pub fn iter(self) -> impl Iterator<Item = (Value, Value)> + 'a {
        let arr = self
            .array()
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_nil())
            .map(|(i, v)| (Value::Int(i as i64 + 1), *v));
        arr.chain(self.hash_pairs())
    }

    /// Calls `f` on every live key and value, and on the metatable (the
    /// strong references of a non-weak table).
    pub fn for_each_ref(self, mut f: impl FnMut(Value)) {
        if let Some(m) = self.t.meta {
            f(Value::Table(m));
        }
        self.array().iter().filter(|v| !v.is_nil()).for_each(|v| f(*v));
        for (k, v) in self.hash_pairs() {
            f(k);
            f(v);
        }
    }

    /// Number of hash entries in traversal positions (live or not): the
    /// positions after the array part that [`TableView::next_at`] scans.
    pub fn hash_slots(self) -> usize {
        self.ents().len() / 2
    }

    /// Size of the array part (slots, nil or not).
    #[inline]
    pub fn array_len_raw(self) -> usize {
        self.t.alen as usize
    }

    /// Hints the CPU to fetch the store's chunk entry for the body (the
    /// step before [`TableView::prefetch_parts`]).
    #[inline]
    pub(crate) fn prefetch_chunk(self) {
        crate::prefetch::prefetch_read(self.s.vals.chunk_entry_ptr(self.t.body));
    }

    /// Hints the CPU to fetch the cache lines a traversal reads next: the
    /// entries in use (up to four lines) and the start of the array part
    /// (see `prefetch.rs`; the index is not read by traversals).
    #[inline]
    pub(crate) fn prefetch_parts(self) {
        use crate::prefetch::prefetch_read;
        let t = self.t;
        let b = self.body().as_ptr().cast::<u8>();
        let ent_bytes = (32 * t.elen as usize).min(256);
        let mut off = 0;
        while off < ent_bytes {
            prefetch_read(b.wrapping_add(off));
            off += 64;
        }
        if t.alen > 0 {
            prefetch_read(b.wrapping_add(48 * t.hcap as usize));
        }
    }

    /// Approximate heap bytes, from logical sizes only (deterministic).
    pub fn estimated_bytes(self) -> usize {
        std::mem::size_of::<Table>()
            + (self.t.acap as usize + 3 * self.t.hcap as usize) * std::mem::size_of::<Value>()
    }

    /// The table's layout (see [`TableParts`]).
    pub(crate) fn to_parts(self) -> TableParts {
        TableParts {
            meta: self.t.meta,
            flags: self.t.flags,
            array: self.array().to_vec(),
            array_cap: self.t.acap as usize,
            entries: self.ents().chunks_exact(2).map(|c| (c[0], c[1])).collect(),
            hash_cap: self.t.hcap as usize,
        }
    }
}

// --------------------------------------------------------------------
// Writes
// --------------------------------------------------------------------

/// Write access to a table (its reads too, through [`TableMut::view`] and
/// the forwarding methods).
///
/// It works on a copy of the header and writes the copy back when dropped,
/// only if it changed: most writes change only body cells, so the header's
/// arena slot is neither written nor journaled (a snapshot then costs only
/// the body's pages).
pub struct TableMut<'a> {
    t: Table,
    orig: Table,
    dst: HeaderDst<'a>,
    s: &'a mut TableStore,
}

/// Where a [`TableMut`] writes its header back.
enum HeaderDst<'a> {
    /// A header owned outside the heap.
    Plain(&'a mut Table),
    /// A header in the heap's arena (journaled by `Arena::get_mut`).
    Slot(&'a mut Arena<Table>, TableRef),
}

impl Drop for TableMut<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.t != self.orig {
            match &mut self.dst {
                HeaderDst::Plain(t) => **t = self.t,
                HeaderDst::Slot(a, h) => *a.get_mut(*h) = self.t,
            }
        }
    }
}

impl std::ops::Deref for TableMut<'_> {
    type Target = Table;
    #[inline(always)]
    fn deref(&self) -> &Table {
        &self.t
    }
}

impl std::ops::DerefMut for TableMut<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.t
    }
}

/// Forwards read methods of [`TableView`] to [`TableMut`].
macro_rules! forward_reads {
    ($($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) -> $r:ty;)*) => {
        $($(#[$m])* #[inline(always)]
        pub fn $name(&self, $($a: $t),*) -> $r {
            self.view().$name($($a),*)
        })*
    };
}

impl<'a> TableMut<'a> {
    /// Read access to the same table.
    #[inline(always)]
    pub fn view(&self) -> TableView<'_> {
        TableView { t: &self.t, s: self.s }
    }

    forward_reads! {
        /// See [`TableView::get`].
        fn get(key: Value) -> Value;
        /// See [`TableView::get_int`].
        #[cfg(test)]
        fn get_int(i: i64) -> Value;
        /// See [`TableView::get_str`].
        #[cfg(test)]
        fn get_str(s: StrRef) -> Value;
        /// See [`TableView::len`].
        #[cfg(test)]
        fn len() -> i64;
        /// See [`TableView::next`].
        #[cfg(test)]
        fn next(key: Value) -> Result<Option<(Value, Value)>, NextError>;
        /// See [`TableView::is_empty`].
        #[cfg(test)]
        fn is_empty() -> bool;
        /// See [`TableView::array_len_raw`].
        fn array_len_raw() -> usize;
        /// See [`TableView::estimated_bytes`].
        fn estimated_bytes() -> usize;
    }

    /// See [`TableView::array`].
    pub fn array(&self) -> &[Value] {
        self.view().array()
    }

    /// See [`TableView::iter`].
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        self.view().iter()
    }

    /// The array part, mutable: writing through it is the same as
    /// [`TableMut::set_int`] in range.
    #[cfg(test)]
    pub fn array_mut(&mut self) -> &mut [Value] {
        let base = 3 * self.t.hcap as usize;
        &mut self.s.vals.slice_mut(self.t.body, base + self.t.alen as usize)[base..]
    }

    /// Body cell `i`, mutable (journals its page).
    #[inline(always)]
    fn cell_mut(&mut self, i: usize) -> &mut Value {
        self.s.vals.get_mut(self.t.body, i)
    }

    /// Sets the value of entry `e`.
    #[inline(always)]
    fn set_entry_val(&mut self, e: usize, v: Value) {
        *self.cell_mut(2 * e + 1) = v;
    }

    /// Sets index slot `p` to `v`.
    #[inline]
    fn set_islot(&mut self, p: usize, v: u32) {
        let i = 2 * self.t.hcap as usize + (p >> 1);
        let cell = self.s.vals.get(self.t.body, i);
        *self.cell_mut(i) = with_islot(cell, p, v);
    }

    /// Appends an entry (the caller checked `elen < hcap`).
    #[inline]
    fn push_entry(&mut self, key: Value, val: Value) {
        let e = self.t.elen as usize;
        *self.cell_mut(2 * e) = key;
        *self.cell_mut(2 * e + 1) = val;
        self.t.elen += 1;
    }

    /// Appends to the array part (the caller checked `alen < acap`).
    #[inline]
    fn push_array(&mut self, v: Value) {
        let i = 3 * self.t.hcap as usize + self.t.alen as usize;
        *self.cell_mut(i) = v;
        self.t.alen += 1;
    }

    /// Raw `t[key] = v` (no metamethods). Integral float keys are stored as
    /// integers; assigning nil deletes. Fails for nil and NaN keys.
    #[inline]
    pub fn set(&mut self, key: Value, v: Value) -> Result<(), KeyError> {
        match key {
            Value::Int(i) => self.set_int(i, v),
            Value::Str(s) => self.set_str(s, v),
            _ => match normalize(key) {
                Norm::Int(i) => self.set_int(i, v),
                Norm::Other(k) => self.set_hash(k, key_hash(k), v),
                Norm::Nil => return Err(KeyError::NilKey),
                Norm::NaN => return Err(KeyError::NaNKey),
            },
        }
        Ok(())
    }

    /// Raw `t[i] = v`.
    #[inline(always)]
    pub fn set_int(&mut self, i: i64, v: Value) {
        let idx = (i as u64).wrapping_sub(1);
        if idx < u64::from(self.t.alen) {
            *self.array_slot_mut(idx as usize) = v;
            return;
        }
        self.set_int_slow(i, v);
    }

    /// Raw `t[s] = v` for a string key (resets `flags`).
    #[inline]
    pub fn set_str(&mut self, s: StrRef, v: Value) {
        self.t.flags = 0; // (the header is written back only if it changed)
        if let Some((pos, e, old)) = self.view().find_str(s) {
            if !old.is_nil() {
                self.set_entry_val(e, v);
            } else {
                self.revive(pos, e, v);
            }
            return;
        }
        if !v.is_nil() {
            self.insert_new(Value::Str(s), str_hash(s), v);
        }
    }

    #[inline(never)]
    fn set_int_slow(&mut self, i: i64, v: Value) {
        let key = Value::Int(i);
        let h = int_hash(i);
        if let Probe::Found(pos, e) = self.view().probe(key, h) {
            self.update(pos, e, v);
            return;
        }
        if v.is_nil() {
            return;
        }
        if i as u64 == u64::from(self.t.alen) + 1 && self.array_room_for_one() {
            self.push_array(v);
            return;
        }
        self.insert_new(key, h, v);
    }

    /// Assignment to a normalized non-integer key.
    fn set_hash(&mut self, key: Value, h: u64, v: Value) {
        if let Value::Str(_) = key {
            self.t.flags = 0;
        }
        match self.view().probe(key, h) {
            Probe::Found(pos, e) => self.update(pos, e, v),
            Probe::Absent if v.is_nil() => {}
            Probe::Absent => self.insert_new(key, h, v),
        }
    }

    /// Assigns to an existing entry (live or tombstone).
    #[inline]
    fn update(&mut self, pos: usize, e: usize, v: Value) {
        if !self.view().ents()[2 * e + 1].is_nil() {
            self.set_entry_val(e, v);
        } else {
            self.revive(pos, e, v);
        }
    }

    /// Re-insertion of a tombstoned key (index slot `pos`, entry `e`): the
    /// key moves to the end of the order.
    #[cold]
    #[inline(never)]
    fn revive(&mut self, pos: usize, e: usize, v: Value) {
        if v.is_nil() {
            return;
        }
        if e + 1 == self.t.elen as usize {
            // Already last: reviving in place is the same order.
            self.set_entry_val(e, v);
            return;
        }
        let key = self.view().ents()[2 * e];
        *self.cell_mut(2 * e) = Value::Nil;
        if self.t.elen < self.t.hcap {
            let slot = self.t.elen + 1;
            self.set_islot(pos, slot);
            self.push_entry(key, v);
        } else {
            self.rehash_and_set(key, v);
        }
    }

    /// Inserts a key known to be absent (not even a tombstone).
    fn insert_new(&mut self, key: Value, h: u64, v: Value) {
        if self.t.elen >= self.t.hcap {
            self.rehash_and_set(key, v);
            return;
        }
        let hc = self.t.hcap as usize;
        let pos = free_slot(&self.view().body()[2 * hc..3 * hc], 2 * hc, self.t.shift, h);
        let slot = self.t.elen + 1;
        self.set_islot(pos, slot);
        self.push_entry(key, v);
    }

    /// Whether key `alen + 1` may be appended to the array part, growing
    /// its logical capacity if it pays (see the module docs).
    fn array_room_for_one(&mut self) -> bool {
        let n = self.t.alen as usize;
        if n < self.t.acap as usize {
            return true;
        }
        let new_cap = (n * 2).clamp(1, MAX_ARRAY);
        if new_cap <= n {
            return false;
        }
        let used = self.array().iter().filter(|v| !v.is_nil()).count();
        if (used + 1) * 2 > new_cap {
            self.grow_acap(new_cap);
            true
        } else {
            false
        }
    }

    /// Raises the array's logical capacity to `acap`, moving the body to a
    /// larger block when the current one is too small (the array is last in
    /// the body, so it grows into the block's slack otherwise).
    fn grow_acap(&mut self, acap: usize) {
        let hc = self.t.hcap as usize;
        if body_cap(acap, hc) != body_cap(self.t.acap as usize, hc) {
            let used = 3 * hc + self.t.alen as usize;
            let b = self.s.alloc_body(acap, hc);
            self.s.vals.copy_block(self.t.body, b, used);
            let t = self.t;
            self.s.free_body(&t);
            self.t.body = b;
        }
        self.t.acap = acap as u32;
    }

    /// Rehash for the insertion of absent key `key` (value `v`), then
    /// inserts it.
    #[cold]
    fn rehash_and_set(&mut self, key: Value, v: Value) {
        let extra_int = match key {
            Value::Int(i) if i >= 1 => Some(i as u64),
            _ => None,
        };
        let na = self.view().optimal_array_size(extra_int);
        let extra_in_hash = !matches!(extra_int, Some(k) if k <= na as u64);
        self.rebuild(na, usize::from(extra_in_hash));
        match key {
            Value::Int(i) => self.set_int(i, v),
            _ => self.insert_new(key, key_hash(key), v),
        }
    }

    /// Rebuilds both parts: the array part gets size `na` (absorbing hash
    /// keys in range, or spilling its keys above `na` to the end of the hash
    /// order), tombstones and dead entries are dropped, and the hash part
    /// gets room for its live keys plus `reserve` more. The body is
    /// rewritten in place when neither capacity changes, else moved to a new
    /// block.
    fn rebuild(&mut self, na: usize, reserve: usize) {
        let view = self.view();
        let mut entries: Vec<(Value, Value)> = view.hash_pairs().collect();
        let had_garbage = entries.len() != self.t.elen as usize;
        let old_len = self.t.alen as usize;
        let mut array: Option<Vec<Value>> = None;
        if na < old_len {
            for (i, v) in view.array().iter().enumerate().skip(na) {
                if !v.is_nil() {
                    entries.push((Value::Int(i as i64 + 1), *v));
                }
            }
            array = Some(view.array()[..na].to_vec());
        } else if na > old_len {
            let mut a = view.array().to_vec();
            a.resize(na, Value::Nil);
            entries.retain(|&(k, v)| match k {
                Value::Int(k) if (k as u64).wrapping_sub(1) < na as u64 => {
                    a[(k - 1) as usize] = v;
                    false
                }
                _ => true,
            });
            array = Some(a);
        }
        let need = entries.len() + reserve;
        let mut cap = if need == 0 { 0 } else { need.next_power_of_two().max(MIN_HASH) };
        if had_garbage && need * 4 > cap * 3 {
            // Churn: keep a quarter free so rehashes stay amortized O(1).
            cap *= 2;
        }
        let index = build_index(&entries, cap);
        if array.is_none() && cap == self.t.hcap as usize {
            self.write_hash(&entries, &index);
            return;
        }
        let array = array.unwrap_or_else(|| self.view().array().to_vec());
        let acap = if array.len() == old_len { self.t.acap as usize } else { array.len() };
        let t = self.t;
        self.s.free_body(&t);
        let t = &mut self.t;
        t.body = self.s.alloc_body(acap, cap);
        (t.acap, t.alen, t.hcap, t.shift) =
            (acap as u32, array.len() as u32, cap as u32, shift_for(cap));
        self.write_hash(&entries, &index);
        let base = 3 * cap;
        if !array.is_empty() {
            self.s.vals.slice_mut(self.t.body, base + array.len())[base..].copy_from_slice(&array);
        }
    }

    /// Writes the entries and index cells of the hash part (capacity
    /// `hcap`, already set) and sets `elen`.
    fn write_hash(&mut self, entries: &[(Value, Value)], index: &[Value]) {
        let hc = self.t.hcap as usize;
        if hc > 0 {
            let cells = self.s.vals.slice_mut(self.t.body, 3 * hc);
            for (c, &(k, v)) in cells.chunks_exact_mut(2).zip(entries) {
                c[0] = k;
                c[1] = v;
            }
            cells[2 * hc..].copy_from_slice(index);
        }
        self.t.elen = entries.len() as u32;
    }

    /// Sets the array part's size to `n` (clamped to 2^27): growing absorbs
    /// hash keys in `1..=n`, shrinking moves the array's keys above `n` to
    /// the end of the hash order (ascending). Rebuilds the hash part, so it
    /// drops tombstones: do not call it during a traversal that deletes keys.
    pub fn resize_array(&mut self, n: usize) {
        self.rebuild(n.min(MAX_ARRAY), 0);
    }

    /// Keeps only the live pairs for which `f(key, value)` is true (for weak
    /// tables). Dropped array slots become nil and dropped hash entries
    /// tombstones, so survivors keep their order and `next` still accepts
    /// dropped keys until the next rehash. Only the cells that change are
    /// written (journaled).
    pub fn retain(&mut self, mut f: impl FnMut(Value, Value) -> bool) {
        let base = 3 * self.t.hcap as usize;
        for i in 0..self.t.alen as usize {
            let v = self.s.vals.get(self.t.body, base + i);
            if !v.is_nil() && !f(Value::Int(i as i64 + 1), v) {
                *self.cell_mut(base + i) = Value::Nil;
            }
        }
        for e in 0..self.t.elen as usize {
            let (k, v) =
                (self.s.vals.get(self.t.body, 2 * e), self.s.vals.get(self.t.body, 2 * e + 1));
            if !v.is_nil() && !f(k, v) {
                self.set_entry_val(e, Value::Nil);
            }
        }
    }

    /// Array slot `i` (`i < alen`), mutable: journals only its page.
    #[inline(always)]
    pub fn array_slot_mut(&mut self, i: usize) -> &mut Value {
        let base = 3 * self.t.hcap as usize;
        self.cell_mut(base + i)
    }
}

/// The index cells (`cap` cells, `2 * cap` slots) for `entries` in order.
fn build_index(entries: &[(Value, Value)], cap: usize) -> Vec<Value> {
    let mut index = vec![Value::Nil; cap];
    if cap > 0 {
        let shift = shift_for(cap);
        for (e, &(k, _)) in entries.iter().enumerate().filter(|(_, (k, _))| !k.is_nil()) {
            let p = free_slot(&index, 2 * cap, shift, key_hash(k));
            index[p >> 1] = with_islot(index[p >> 1], p, e as u32 + 1);
        }
    }
    index
}

/// Counts key `k` in its `nums` slice if it is an array candidate;
/// returns 1 if counted.
#[inline]
fn count_key(nums: &mut [usize; MAX_ARRAY_BITS + 1], k: u64) -> usize {
    if k >= 1 && k <= MAX_ARRAY as u64 {
        nums[ceil_log2(k)] += 1;
        1
    } else {
        0
    }
}

/// `ceil(log2(k))` for `k >= 1`: the `nums` slice of key `k`.
#[inline]
fn ceil_log2(k: u64) -> usize {
    (64 - (k - 1).leading_zeros()) as usize
}

/// `ltable.c`'s `computesizes`: the largest power of two `2^i` such that
/// more than half of the slots `1..=2^i` would be used (`nums[i]` counts
/// the keys in `(2^(i-1), 2^i]`, `total` all candidate keys).
fn computesizes(nums: &[usize], total: usize) -> usize {
    let mut a = 0;
    let mut optimal = 0;
    let mut twotoi = 1usize;
    for &n in nums {
        if total <= twotoi / 2 {
            break;
        }
        a += n;
        if a > twotoi / 2 {
            optimal = twotoi;
        }
        twotoi *= 2;
    }
    optimal
}

/// `binsearch`: a border in `array[i..j]` given `array[j-1]` nil and
/// (`i == 0` or `array[i-1]` non-nil).
fn binsearch(array: &[Value], mut i: usize, mut j: usize) -> usize {
    while j - i > 1 {
        let m = (i + j) / 2;
        if array[m - 1].is_nil() {
            j = m;
        } else {
            i = m;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::StrRef;

    /// A table header is journaled as an object when it changes: it stays
    /// small plain data (its contents live in the table store).
    #[test]
    fn table_header_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Table>(), 32);
    }

    fn s(i: u32) -> Value {
        Value::Str(StrRef::from_index(i))
    }
    fn int(i: i64) -> Value {
        Value::Int(i)
    }
    fn tbl(i: u32) -> Value {
        Value::Table(TableRef::from_index(i))
    }

    /// The whole traversal, through `next`.
    fn keys(t: TableView<'_>) -> Vec<Value> {
        let mut out = Vec::new();
        let mut k = Value::Nil;
        while let Some((nk, v)) = t.next(k).unwrap() {
            assert!(!v.is_nil());
            out.push(nk);
            k = nk;
        }
        out
    }

    fn same(a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| key_eq(*x, *y))
    }

    #[test]
    fn basic_get_set_all_key_types() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        let ks = [int(1), int(-5), int(0), s(3), tbl(3), Value::Bool(true), Value::Float(0.5)];
        for (n, k) in ks.iter().enumerate() {
            t.set(*k, int(n as i64 + 100)).unwrap();
        }
        for (n, k) in ks.iter().enumerate() {
            assert!(t.get(*k).raw_eq(int(n as i64 + 100)), "{k:?}");
        }
        assert!(t.get(Value::Bool(false)).is_nil());
        assert!(t.get(s(4)).is_nil());
        assert!(t.get(tbl(4)).is_nil());
        assert!(t.get(Value::LuaFn(crate::value::LuaFnRef::from_index(3))).is_nil());
        assert!(t.get_str(StrRef::from_index(3)).raw_eq(int(103)));
        assert!(t.get_int(-5).raw_eq(int(101)));
        // overwrite and delete
        t.set(s(3), int(7)).unwrap();
        assert!(t.get(s(3)).raw_eq(int(7)));
        t.set(s(3), Value::Nil).unwrap();
        assert!(t.get(s(3)).is_nil());
        assert!(same(
            &keys(t.view()),
            &[int(1), int(-5), int(0), tbl(3), Value::Bool(true), Value::Float(0.5)]
        ));
    }

    #[test]
    fn nil_and_nan_keys() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        assert_eq!(t.set(Value::Nil, int(1)), Err(KeyError::NilKey));
        assert_eq!(t.set(Value::Float(f64::NAN), int(1)), Err(KeyError::NaNKey));
        assert_eq!(t.set(Value::Nil, Value::Nil), Err(KeyError::NilKey));
        assert!(t.get(Value::Nil).is_nil());
        assert!(t.get(Value::Float(f64::NAN)).is_nil());
        assert!(t.next(Value::Float(f64::NAN)).is_err());
        assert_eq!(KeyError::NilKey.to_string(), "table index is nil");
        assert_eq!(KeyError::NaNKey.to_string(), "table index is NaN");
        assert_eq!(NextError.to_string(), "invalid key to 'next'");
        assert!(t.is_empty());
    }

    #[test]
    fn float_keys_normalize() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.set(Value::Float(1.0), int(10)).unwrap();
        assert!(t.get_int(1).raw_eq(int(10)));
        assert_eq!(t.array_len_raw(), 1);
        let two53 = 9007199254740992.0;
        t.set(Value::Float(two53), int(53)).unwrap();
        assert!(t.get_int(1 << 53).raw_eq(int(53)));
        t.set(Value::Float(-0.0), int(0)).unwrap();
        assert!(t.get_int(0).raw_eq(int(0)));
        assert!(t.get(Value::Float(0.0)).raw_eq(int(0)));
        let two63 = 9223372036854775808.0;
        t.set(Value::Float(two63), int(63)).unwrap();
        assert!(t.get(Value::Float(two63)).raw_eq(int(63)));
        assert!(t.get_int(i64::MIN).is_nil());
        t.set(Value::Float(-two63), int(-63)).unwrap();
        assert!(t.get_int(i64::MIN).raw_eq(int(-63)));
        t.set(Value::Float(1.5), int(15)).unwrap();
        assert!(t.get(Value::Float(1.5)).raw_eq(int(15)));
        let ks = keys(t.view());
        assert!(ks.iter().any(|k| matches!(k, Value::Int(i) if *i == 1 << 53)));
        assert!(ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two63)));
        assert!(!ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two53)));
        // next accepts the float spelling of an integer key
        assert!(t.next(Value::Float(1.0)).is_ok());
    }

    #[test]
    fn order_mixed_types_is_insertion_order() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        let ks = [s(9), int(100), tbl(1), s(2), Value::Bool(false), int(-1), Value::Float(2.5)];
        for k in ks {
            t.set(k, int(1)).unwrap();
        }
        assert!(same(&keys(t.view()), &ks));
        // updates do not move keys
        t.set(s(9), int(2)).unwrap();
        t.set(int(100), int(2)).unwrap();
        assert!(same(&keys(t.view()), &ks));
    }

    #[test]
    fn array_part_first_then_hash() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.set(s(1), int(1)).unwrap();
        for i in 1..=5 {
            t.set_int(i, int(i));
        }
        t.set(s(2), int(1)).unwrap();
        assert_eq!(t.array_len_raw(), 5);
        assert!(same(&keys(t.view()), &[int(1), int(2), int(3), int(4), int(5), s(1), s(2)]));
    }

    #[test]
    fn deletion_during_traversal() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 0..50 {
            t.set(s(i), int(i as i64)).unwrap();
        }
        for i in 1..=20 {
            t.set_int(i, int(i));
        }
        let mut k = Value::Nil;
        let mut seen = 0;
        while let Some((nk, _)) = t.next(k).unwrap() {
            t.set(nk, Value::Nil).unwrap();
            seen += 1;
            k = nk;
        }
        assert_eq!(seen, 70);
        assert!(t.is_empty());
        assert!(keys(t.view()).is_empty());
    }

    #[test]
    fn next_after_deleted_key_continues() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 0..5 {
            t.set(s(i), int(i as i64)).unwrap();
        }
        t.set(s(2), Value::Nil).unwrap();
        let (k, _) = t.next(s(2)).unwrap().unwrap();
        assert!(key_eq(k, s(3)));
        assert!(t.next(s(77)).is_err());
        assert!(t.next(int(77)).is_err());
        // an array slot set to nil is still a valid position
        t.set_int(1, int(1));
        t.set_int(2, int(2));
        t.set_int(1, Value::Nil);
        let (k, _) = t.next(int(1)).unwrap().unwrap();
        assert!(key_eq(k, int(2)));
    }

    #[test]
    fn reinserted_key_goes_last() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 0..4 {
            t.set(s(i), int(1)).unwrap();
        }
        t.set(s(1), Value::Nil).unwrap();
        assert!(same(&keys(t.view()), &[s(0), s(2), s(3)]));
        t.set(s(1), int(5)).unwrap();
        assert!(same(&keys(t.view()), &[s(0), s(2), s(3), s(1)]));
        assert!(t.get(s(1)).raw_eq(int(5)));
        // reinserting the last key keeps it last
        t.set(s(1), Value::Nil).unwrap();
        t.set(s(1), int(6)).unwrap();
        assert!(same(&keys(t.view()), &[s(0), s(2), s(3), s(1)]));
        // deleting and reinserting many times stays correct through rehashes
        for round in 0..100 {
            let k = s(round % 4);
            t.set(k, Value::Nil).unwrap();
            t.set(k, int(round as i64)).unwrap();
            let ks = keys(t.view());
            assert!(key_eq(*ks.last().unwrap(), k));
            assert_eq!(ks.len(), 4);
        }
        assert!(t.estimated_bytes() < 1024, "{}", t.estimated_bytes());
    }

    #[test]
    fn array_migration_on_rehash() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        // 3, 2 go to the hash part first (not appendable)
        t.set_int(3, int(3));
        t.set(s(0), int(0)).unwrap();
        t.set_int(2, int(2));
        assert_eq!(t.array_len_raw(), 0);
        assert!(same(&keys(t.view()), &[int(3), s(0), int(2)]));
        // key 1 is appended; then a new key rehashes and absorbs 2 and 3
        t.set_int(1, int(1));
        t.set(s(1), int(1)).unwrap();
        t.set_int(4, int(4));
        assert!(t.array_len_raw() >= 4, "{}", t.array_len_raw());
        assert!(same(&keys(t.view()), &[int(1), int(2), int(3), int(4), s(0), s(1)]));
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn array_shrinks_when_sparse() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 1..=64 {
            t.set_int(i, int(i));
        }
        assert_eq!(t.array_len_raw(), 64);
        for i in 1..=62 {
            t.set_int(i, Value::Nil);
        }
        // an integer key insertion into the (empty, full) hash part rehashes
        t.set_int(1000, int(1000));
        assert_eq!(t.array_len_raw(), 0);
        assert!(same(&keys(t.view()), &[int(63), int(64), int(1000)]));
    }

    #[test]
    fn queue_pattern_stays_small() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        let (mut head, mut tail) = (1i64, 0i64);
        for i in 0..100_000 {
            tail += 1;
            t.set_int(tail, int(i));
            if tail - head >= 10 {
                assert!(t.get_int(head).raw_eq(int(head - 1)));
                t.set_int(head, Value::Nil);
                head += 1;
            }
        }
        assert!(t.estimated_bytes() < 4096, "{}", t.estimated_bytes());
        assert_eq!(keys(t.view()).len(), 10);
    }

    #[test]
    fn sequence_building_uses_array() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 1..=1000 {
            assert_eq!(t.len(), i - 1);
            t.set_int(t.len() + 1, int(i));
        }
        assert_eq!(t.array_len_raw(), 1000);
        assert_eq!(t.len(), 1000);
        // pop from the end
        for i in (1..=1000).rev() {
            assert_eq!(t.len(), i);
            t.set_int(i, Value::Nil);
        }
        assert_eq!(t.len(), 0);
        assert!(t.is_empty());
    }

    #[test]
    fn len_borders() {
        // constructor-like: new(n, 0) then set 1..n
        let mut owned = OwnedTable::new(3, 0);
        let mut t = owned.view_mut();
        assert_eq!(t.len(), 0);
        for i in 1..=3 {
            t.set_int(i, int(i));
        }
        assert_eq!(t.len(), 3);
        t.set_int(3, Value::Nil);
        assert_eq!(t.len(), 2);
        t.set_int(2, Value::Nil);
        assert_eq!(t.len(), 1);
        // continue into the hash part
        let mut owned = OwnedTable::new(2, 0);
        let mut t = owned.view_mut();
        t.set_int(1, int(1));
        t.set_int(2, int(2));
        t.set(s(0), int(0)).unwrap();
        t.set_int(3, int(3));
        t.set_int(4, int(4));
        t.set_int(5, int(5));
        assert_eq!(t.len(), 5);
        // only hash keys
        let mut owned = OwnedTable::new(0, 4);
        let mut t = owned.view_mut();
        t.set_int(2, int(2));
        assert_eq!(t.len(), 0);
        t.set_int(1, int(1));
        assert_eq!(t.len(), 2);
        // a border is always returned
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in [1, 2, 3, 5, 8, 9, 10, 20] {
            t.set_int(i, int(i));
        }
        let n = t.len();
        assert!(n == 0 || !t.get_int(n).is_nil());
        assert!(t.get_int(n + 1).is_nil());
        // max integer border
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.set_int(1, int(1));
        t.set_int(2, int(1));
        t.set_int(i64::MAX, int(1));
        let n = t.len();
        assert!(t.get_int(n + 1).is_nil() && !t.get_int(n).is_nil());
    }

    #[test]
    fn flags_reset_on_string_assignment() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.flags = 0xff;
        t.set_int(1, int(1));
        assert_eq!(t.flags, 0xff);
        t.set(tbl(1), int(1)).unwrap();
        assert_eq!(t.flags, 0xff);
        t.set_str(StrRef::from_index(1), int(1));
        assert_eq!(t.flags, 0);
        t.flags = 0xff;
        t.set(s(5), Value::Nil).unwrap();
        assert_eq!(t.flags, 0);
        t.flags = 0xff;
        t.set(s(1), int(2)).unwrap();
        assert_eq!(t.flags, 0);
    }

    #[test]
    fn retain_and_refs() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 1..=4 {
            t.set_int(i, tbl(i as u32));
        }
        for i in 0..6 {
            t.set(s(i), tbl(10 + i)).unwrap();
        }
        t.meta = Some(TableRef::from_index(99));
        let mut n = 0;
        t.view().for_each_ref(|_| n += 1);
        assert_eq!(n, 1 + 4 + 12);
        assert_eq!(t.iter().count(), 10);
        // drop the odd ones
        t.retain(|_, v| matches!(v, Value::Table(h) if h.index() % 2 == 0));
        assert!(same(&keys(t.view()), &[int(2), int(4), s(0), s(2), s(4)]));
        // dropped keys are still valid positions for next
        assert!(t.next(s(1)).unwrap().is_some());
        let mut n = 0;
        t.view().for_each_ref(|_| n += 1);
        assert_eq!(n, 1 + 2 + 6);
    }

    #[test]
    fn resize_array_grow_and_shrink() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.set(s(0), int(0)).unwrap();
        t.set_int(3, int(3));
        t.set_int(2, int(2));
        t.resize_array(4);
        assert_eq!(t.array_len_raw(), 4);
        assert!(same(&keys(t.view()), &[int(2), int(3), s(0)]));
        t.set_int(4, int(4));
        t.resize_array(1);
        assert!(same(&keys(t.view()), &[s(0), int(2), int(3), int(4)]));
        t.resize_array(0);
        assert_eq!(t.array_len_raw(), 0);
        assert!(same(&keys(t.view()), &[s(0), int(2), int(3), int(4)]));
    }

    #[test]
    fn array_accessors() {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        for i in 1..=5 {
            t.set_int(i, int(6 - i));
        }
        t.array_mut().sort_by_key(|v| match v {
            Value::Int(i) => *i,
            _ => 0,
        });
        assert!(t.get_int(1).raw_eq(int(1)));
        assert_eq!(t.array().len(), 5);
    }

    /// Ops applied identically twice give identical traversals.
    #[test]
    fn deterministic_order() {
        let run = || {
            let mut owned = OwnedTable::new(0, 0);
            let mut t = owned.view_mut();
            let mut rng = Rng(42);
            for _ in 0..20_000 {
                let k = random_key(&mut rng);
                let v = if rng.below(4) == 0 { Value::Nil } else { int(rng.below(100) as i64) };
                t.set(k, v).unwrap();
            }
            keys(t.view())
        };
        let a = run();
        let b = run();
        assert!(!a.is_empty());
        assert!(same(&a, &b));
    }

    /// splitmix64.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn random_key(rng: &mut Rng) -> Value {
        match rng.below(10) {
            0..=3 => int(rng.below(80) as i64 + 1),
            4 => int(rng.below(40) as i64 - 20),
            5..=6 => s(rng.below(60) as u32),
            7 => Value::Float(rng.below(20) as f64 + 0.25),
            8 => tbl(rng.below(10) as u32),
            _ => Value::Bool(rng.below(2) == 0),
        }
    }

    /// The reference model: live keys with their insertion epoch.
    #[derive(Default)]
    struct Model {
        /// (key, value, epoch) for every live key.
        live: Vec<(Value, Value, u64)>,
        epoch: u64,
    }

    impl Model {
        fn pos(&self, k: Value) -> Option<usize> {
            self.live.iter().position(|(x, _, _)| key_eq(*x, k))
        }
        fn get(&self, k: Value) -> Value {
            self.pos(k).map_or(Value::Nil, |p| self.live[p].1)
        }
        /// Keys that left the array part get fresh epochs, ascending.
        fn spill(&mut self, old_alen: usize, new_alen: usize) {
            if new_alen < old_alen {
                let mut spilled: Vec<usize> = (0..self.live.len())
                    .filter(|&p| {
                        matches!(self.live[p].0, Value::Int(i)
                        if i as u64 > new_alen as u64 && i as u64 <= old_alen as u64)
                    })
                    .collect();
                spilled.sort_by_key(|&p| match self.live[p].0 {
                    Value::Int(i) => i,
                    _ => 0,
                });
                for p in spilled {
                    self.epoch += 1;
                    self.live[p].2 = self.epoch;
                }
            }
        }
        fn set(&mut self, k: Value, v: Value) {
            match (self.pos(k), v.is_nil()) {
                (Some(p), true) => {
                    self.live.remove(p);
                }
                (Some(p), false) => self.live[p].1 = v,
                (None, true) => {}
                (None, false) => {
                    self.epoch += 1;
                    self.live.push((k, v, self.epoch));
                }
            }
        }
        /// The expected traversal given the table's array size.
        fn order(&self, alen: usize) -> Vec<Value> {
            let in_array =
                |k: Value| matches!(k, Value::Int(i) if (i as u64).wrapping_sub(1) < alen as u64);
            let mut arr: Vec<i64> = self
                .live
                .iter()
                .filter_map(|(k, _, _)| match k {
                    Value::Int(i) if in_array(*k) => Some(*i),
                    _ => None,
                })
                .collect();
            arr.sort();
            let mut hash: Vec<&(Value, Value, u64)> =
                self.live.iter().filter(|(k, _, _)| !in_array(*k)).collect();
            hash.sort_by_key(|e| e.2);
            arr.into_iter().map(int).chain(hash.into_iter().map(|e| e.0)).collect()
        }
    }

    fn normalized(k: Value) -> Value {
        match normalize(k) {
            Norm::Int(i) => int(i),
            _ => k,
        }
    }

    #[test]
    fn randomized_against_model() {
        let mut rng = Rng(0x1234_5678);
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        let mut m = Model::default();
        for step in 0..100_000 {
            let k = normalized(random_key(&mut rng));
            let op = rng.below(10);
            let old_alen = t.array_len_raw();
            if op < 6 {
                let v = int(rng.below(1000) as i64);
                t.set(k, v).unwrap();
                // The inserted key's epoch comes after any spilled keys.
                let new_alen = t.array_len_raw();
                let was_absent = m.pos(k).is_none();
                if was_absent {
                    m.spill(old_alen, new_alen);
                    m.set(k, v);
                } else {
                    m.set(k, v);
                    m.spill(old_alen, new_alen);
                }
            } else if op < 9 {
                t.set(k, Value::Nil).unwrap();
                m.set(k, Value::Nil);
                assert_eq!(t.array_len_raw(), old_alen);
            } else {
                assert!(t.get(k).raw_eq(m.get(k)), "step {step}: get {k:?}");
            }
            if step % 97 == 0 || step > 99_000 {
                let want = m.order(t.array_len_raw());
                let got = keys(t.view());
                assert!(same(&got, &want), "step {step}:\n got {got:?}\nwant {want:?}");
                for (k, v, _) in &m.live {
                    assert!(t.get(*k).raw_eq(*v));
                }
                let n = t.len();
                assert!(n == 0 || !t.get_int(n).is_nil(), "step {step}: len {n}");
                assert!(t.get_int(n + 1).is_nil(), "step {step}: len {n}");
                assert_eq!(t.iter().count(), m.live.len());
            }
        }
    }
}

// --------------------------------------------------------------------
// Raw layout, for writing a table to bytes (`persist.rs`)
// --------------------------------------------------------------------

/// A table's layout as plain data: everything that makes two tables behave
/// identically (contents, traversal order with tombstones and dead entries,
/// logical capacities), but not the probe index, which
/// [`TableStore::table_from_parts`] rebuilds from the entries.
#[derive(Clone, Debug, Default)]
pub struct TableParts {
    /// The metatable.
    pub meta: Option<TableRef>,
    /// The metamethod-absence cache.
    pub flags: u8,
    /// The array part (slot `i` holds key `i + 1`).
    pub array: Vec<Value>,
    /// The array part's logical capacity.
    pub array_cap: usize,
    /// The hash part's entries in order: `(key, nil)` is a tombstone,
    /// `(nil, nil)` a dead entry.
    pub entries: Vec<(Value, Value)>,
    /// The hash part's capacity in entries (0 or a power of two, at least 4).
    pub hash_cap: usize,
}

impl TableStore {
    /// Rebuilds a table from its layout, checking every invariant of the
    /// module docs that lookups and traversal rely on: capacities in range
    /// (the array's logical capacity at most twice its length, as growth
    /// leaves it), keys normalized (no NaN, no integral float), no key
    /// twice, no integer key of the array part's range in the hash part,
    /// dead entries without a value. The probe index is rebuilt from the
    /// entries, so a lookup finds exactly the keys listed. Handles are not
    /// checked here. Nothing is allocated unless the layout is valid.
    pub fn table_from_parts(&mut self, p: TableParts) -> Result<Table, String> {
        let n = p.array.len();
        if p.array_cap < n || p.array_cap > MAX_ARRAY || p.array_cap > (2 * n).max(1) {
            return Err(format!("array capacity {} for {} slots", p.array_cap, n));
        }
        let cap = p.hash_cap;
        let cap_ok = cap == 0 || (cap.is_power_of_two() && cap >= MIN_HASH);
        let cap_bound = (1 << 20usize).max(4 * (p.entries.len() + 1));
        if !cap_ok || cap > cap_bound || p.entries.len() > cap {
            return Err(format!("hash capacity {cap} for {} entries", p.entries.len()));
        }
        let mut seen = OwnedTable::new(0, 0);
        for &(key, val) in &p.entries {
            check_part_key(key, val, n)?;
            if !key.is_nil() {
                let mut s = seen.view_mut();
                if !s.get(key).is_nil() {
                    return Err("a key twice in the hash part".into());
                }
                s.set(key, Value::Bool(true)).map_err(|e| e.to_string())?;
            }
        }
        let index = build_index(&p.entries, cap);
        let mut t = Table {
            meta: p.meta,
            flags: p.flags,
            body: self.alloc_body(p.array_cap, cap),
            alen: n as u32,
            acap: p.array_cap as u32,
            hcap: cap as u32,
            shift: shift_for(cap),
            ..Table::default()
        };
        let mut m = self.view_mut(&mut t);
        m.write_hash(&p.entries, &index);
        if n > 0 {
            let base = 3 * cap;
            m.s.vals.slice_mut(m.t.body, base + n)[base..].copy_from_slice(&p.array);
        }
        drop(m);
        Ok(t)
    }
}

/// Checks one hash-part entry of a [`TableParts`] (array part of `n` slots).
fn check_part_key(key: Value, val: Value, n: usize) -> Result<(), String> {
    match normalize(key) {
        Norm::Nil if val.is_nil() => Ok(()),
        Norm::Nil => Err("a dead entry with a value".into()),
        Norm::NaN => Err("a NaN key".into()),
        Norm::Int(i) if !matches!(key, Value::Int(_)) => {
            Err(format!("float key {i} not normalized"))
        }
        Norm::Int(i) if (i as u64).wrapping_sub(1) < n as u64 => {
            Err(format!("key {i} in the hash part of a table with {n} array slots"))
        }
        _ => Ok(()),
    }
}
