//! Lua tables: an array part and an insertion-ordered hash part.
//!
//! This file holds the layout, the store of contents and every read; the
//! writes ([`TableMut`]) are in `table/write.rs`, the dispatch loop's
//! in-place writes in `table/fast.rs`, the raw layout for persistence
//! ([`TableParts`]) in `table/parts.rs`, the unit tests in
//! `table/tests.rs`.
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
//! A [`Table`] is only the *header* (40 bytes of plain data: metatable,
//! metamethod cache, sizes, the [`Addr`]ess of the body and, as a cache of
//! that address, the body's pointer: see "The body pointer"). The contents
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
//! capacity is `acap + 3 * hcap` rounded up to a power of two, or exactly
//! `3 * hcap` for a table without an array part (a record, a map: the
//! store has size classes of three times a power of two for them); the array is
//! last, so it grows into the slack without moving, and one table's
//! contents are one contiguous run of memory (one cache-miss chain per
//! access: header, body). A rehash that changes a capacity moves the
//! body to a new block (the array too: a table with a large array and a
//! growing hash part pays an array copy per hash doubling). Appends fill
//! the block's slack before it doubles (so that a power-of-two array beside
//! a small hash part does not round the block up to twice its size), and a
//! large block doubles where it is when no snapshot is open
//! (`Store::grow_in_place`, the pages remapped rather than copied: a table
//! grown to 16 M slots beside two fields took 266 MB, as in lua5.4, where
//! it took 1 GB).
//!
//! **The body pointer.** The body's [`Addr`] names a chunk of the store
//! and an offset in it; reaching the body through it reads the store's
//! chunk table first, a load that depends on the header's and on which the
//! body's depends. The header therefore also keeps the body's address in
//! memory (`bp`), with the store's *buffer epoch* it was taken in (`ep`),
//! both set with `body` by every assignment ([`Table::set_body`]). The
//! **body pointer invariant**: while the store is in epoch `ep`, `bp` is
//! `store.block_ptr(body)`. The reads of [`TableView`] and the dispatch
//! loop's in-place writes go through `bp` when its epoch is current
//! (header, then body, as `ltable.c`'s `t->array`) and through the chunk
//! table otherwise. A chunk's buffer moves when a large body grows in place,
//! and its table takes its pointer again at once; otherwise only when a
//! rollback swaps a saved page back in or drops chunks, and such a rollback
//! starts a new epoch (`store.rs`); the headers it puts back take their pointers again,
//! so that no pointer of an older epoch becomes live, and the rollback
//! that brings the 15-bit epoch round past 0 refreshes every header. The
//! other headers read through the store until their body next moves (a
//! world that rolls back all the time reads as before the pointer). A
//! loaded state builds its headers afresh.
//!
//! **The fresh instance.** The epoch test costs two loads and a branch per
//! access. When a rollback that moved a buffer finds at most
//! `EAGER_REFRESH` header slots, it takes every header's pointer again
//! (about 1.2 ns a header: 5 µs at the limit); otherwise it marks the store *stale*
//! ([`Store::stale`]) until a later such rollback in a small heap. While
//! the store is not stale every pointer is current, and the dispatch loop
//! runs an instance (`execute_loop::<_, true>`) whose views
//! ([`TableView`]'s `FRESH` parameter, [`Tables::get_live_in`]) and
//! in-place writes take the body pointer with no test: 0.3–6 % fewer
//! instructions and 5–36 % fewer stack accesses on table-heavy programs
//! (`benches/RESULTS.md`, part 29). A program that never rolls back, and a
//! small world that does, run it; a big world after a rollback runs the
//! tested instance, as fast as before. `bp` and `ep` are a cache:
//! left out of equality, the state hash and the saved state, written
//! without the journal or the collector's barrier (`Arena::cache_mut`).
//! Debug builds check the invariant at every use.
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
//! collectable objects by their handle index (a key's string is always a
//! registered one, `string.rs`, so the handle is the content), integers by value, floats by bits, booleans by
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
//! A rehash sizes the hash part to the next power of two (at least 1, as
//! in Lua: an object of one or two fields takes a body of 4 or 8 cells,
//! not 16) that holds the surviving keys plus the new one; when it dropped
//! tombstones and that would leave less than a quarter free, it doubles
//! once more, so insert/delete churn costs amortized O(1).
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
use crate::store::{Addr, Elem, Store, EMPTY, EPOCH_MASK, HASH_INTS};
use crate::value::{StrRef, TableRef, Value, Words};
use crate::writes::WriteLog;
use std::cell::Cell;
use std::fmt;

/// Largest array part (2^27 slots, 2 GiB); larger integer keys: hash part.
const MAX_ARRAY_BITS: usize = 27;
const MAX_ARRAY: usize = 1 << MAX_ARRAY_BITS;
/// Smallest nonempty hash part.
const MIN_HASH: usize = 1;
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
/// [`TableStore`] that holds both parts, with that block's address (the
/// module docs' body pointer). Plain data (`Copy`, 40 bytes): the
/// snapshot journal copies it without allocating. Contents are read and
/// written through a [`TableView`] or a [`TableMut`] ([`Tables::get`],
/// [`Tables::get_mut`]).
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// The metatable.
    pub meta: Option<TableRef>,
    /// Metamethod-absence cache owned by the runtime; reset to 0 by every
    /// assignment to a string key.
    pub flags: u8,
    /// `64 - log2(index slots)` (64 when there is no hash part).
    shift: u8,
    /// Two fields in 16 bits (the header stays 40 bytes). The low 15 bits
    /// ([`EPOCH_MASK`]): the store's buffer epoch when `bp` was taken: `bp`
    /// may be used only while the store is still in it (see "The body
    /// pointer"). The top bit ([`HASH_INTS`], [`Table::hash_ints`]):
    /// whether the hash part may hold a positive integer key.
    ep: u16,
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
    /// Where the body is: [`Store::block_ptr`] of `body` in epoch `ep`,
    /// kept beside it by every assignment of `body` (the *body pointer
    /// invariant*). The loop's reads and in-place writes go through it
    /// while its epoch is current, one dependent load fewer than through
    /// the store's chunk table.
    bp: BodyPtr,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            meta: None,
            flags: 0,
            shift: 64,
            ep: 0,
            body: EMPTY,
            alen: 0,
            acap: 0,
            elen: 0,
            hcap: 0,
            bp: BodyPtr(std::ptr::null_mut()),
        }
    }
}

/// Equality of the table's state: the body pointer and its epoch are left
/// out, a cache of `body` whose value depends on where the store's chunks
/// were allocated (a saved state loaded again has other addresses).
impl PartialEq for Table {
    fn eq(&self, o: &Table) -> bool {
        (self.meta, self.flags, self.shift, self.body, self.alen, self.acap, self.elen, self.hcap)
            == (o.meta, o.flags, o.shift, o.body, o.alen, o.acap, o.elen, o.hcap)
    }
}

/// Capacity of the body block of a table with array capacity `acap` and
/// hash capacity `hcap` (0: no block): a power of two, so that an array
/// grows into the slack, but exactly `3 * hcap` without an array part
/// (the store's classes of three times a power of two): a record's or a
/// map's body is then three quarters of the power of two it took.
#[inline]
fn body_cap(acap: usize, hcap: usize) -> usize {
    match (acap, 3 * hcap) {
        (0, h) => h,
        (a, h) => (a + h).next_power_of_two(),
    }
}

/// Reads index slot `p` from the index cells `index` (two `u32` slots per
/// cell, as the low and high halves of an integer; a nil cell is two empty
/// slots).
#[inline(always)]
fn islot(index: &[Value], p: usize) -> u32 {
    islot_of(index[p >> 1], p)
}

/// Index slot `p` from its cell (`index[p >> 1]`).
#[inline(always)]
fn islot_of(cell: Value, p: usize) -> u32 {
    match cell {
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
        let mut t = Table {
            alen: narray as u32,
            acap: narray as u32,
            hcap: hcap as u32,
            shift: shift_for(hcap),
            ..Table::default()
        };
        let body = self.alloc_body(narray, hcap);
        t.set_body(self, body);
        t
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
        TableMut { t: h, orig: h, dst: HeaderDst::Plain(t), s: self, fwd: None, moved: false }
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
///
/// **The collector's barrier** (on while it marks, see `gc.rs`): every key
/// and value stored into a marked table, and a new metatable, is listed to
/// be marked (`fwd`, Lua's forward barrier), by [`TableMut`]'s writes and
/// by the dispatch loop's fast paths. A table is never unmarked to be
/// traversed again (the backward barrier other objects get): a big table
/// written all the time would be traversed again and again. No write
/// stores a reference but through these, so a marked table never holds an
/// unmarked object that nothing will mark.
///
/// **The fast paths' one test.** The dispatch loop's writes
/// ([`Tables::array_slot_for_set`], [`Tables::try_append`],
/// [`Tables::set_str_existing`]) owe three hooks: the write log's stamp,
/// the forward barrier, the store's page journal. One flag, `hooks`, says
/// whether any of them is on (recomputed wherever one of them changes:
/// marks, the barrier, journal levels), so the common write tests one byte
/// and the three run out of line when it is set; when the barrier alone is
/// on (a whole marking phase, or always in generational mode), only a value
/// that is an object stored into a marked table goes out of line
/// (`owes_hooks`). Those paths, and the
/// reads of [`Tables::get_live`], also skip the bounds and occupancy
/// checks of the header's slot and of the body's cells: the handle comes
/// from a live value, the cell index from the header (the layout
/// invariant, see [`TableView`]); debug builds check both.
#[derive(Default)]
pub struct Tables {
    arena: Arena<Table>,
    store: TableStore,
    writes: WriteLog,
    /// The collector's barrier is on.
    watch: bool,
    /// Values stored into marked tables by the fast paths, to mark.
    fwd: Vec<Value>,
    /// `watch` and `fwd` at each journal level's opening.
    gc_saved: Vec<(bool, Vec<Value>)>,
    /// Some hook wants to see the fast paths' writes: write tracking is on
    /// (`writes`), the barrier is on (`watch`), or a snapshot is open (the
    /// store journals its pages). The one test of the dispatch loop's
    /// writes; kept by [`Tables::sync_hooks`] after each change of the
    /// three.
    hooks: bool,
    /// The write log or the journal is on (`hooks` without the barrier).
    hooks_all: bool,
}

impl Tables {
    /// Allocates a table (see [`TableStore::new_table`]).
    #[inline]
    pub fn alloc(&mut self, narray: usize, nhash: usize) -> TableRef {
        let t = self.store.new_table(narray, nhash);
        let h = self.arena.alloc(t);
        self.writes.touch_life(h.index());
        h
    }

    /// Whether some header may hold a body pointer of an older buffer
    /// epoch (see "The body pointer"): the dispatch loop runs its fresh
    /// instance, which takes body pointers untested, only while not.
    #[inline(always)]
    pub fn stale(&self) -> bool {
        self.store.vals.stale()
    }

    /// Read access to table `h`.
    #[inline(always)]
    pub fn get(&self, h: TableRef) -> TableView<'_> {
        TableView { t: self.arena.get(h), s: &self.store }
    }

    /// [`Tables::get`] without checking the header's slot (loop reads).
    ///
    /// # Safety
    ///
    /// `h` names a live table: it was read from a value the collector
    /// reaches (a register of the running frame, an upvalue of the running
    /// closure), and the collector frees only unreachable tables
    /// (`arena.rs`'s invariants; loaded states are checked to hold only
    /// handles of occupied slots).
    #[inline(always)]
    pub unsafe fn get_live(&self, h: TableRef) -> TableView<'_> {
        // SAFETY: the caller's contract.
        unsafe { self.get_live_in::<false>(h) }
    }

    /// [`Tables::get_live`] for the dispatch loop's instance `FRESH` (see
    /// [`Table::body_ptr_in`]).
    ///
    /// # Safety
    ///
    /// As [`Tables::get_live`]; and if `FRESH`, the store holds no stale
    /// body pointer ([`Store::stale`] is clear).
    #[inline(always)]
    pub unsafe fn get_live_in<const FRESH: bool>(&self, h: TableRef) -> TableView<'_, FRESH> {
        // SAFETY: the caller's contract.
        TableView { t: unsafe { self.arena.get_unchecked(h) }, s: &self.store }
    }

    /// Write access to table `h` (journals its header while a snapshot is
    /// open; the store journals the pages written). Counts as a write of
    /// `h` for the write log, whether or not anything changes.
    #[inline(always)]
    pub fn get_mut(&mut self, h: TableRef) -> TableMut<'_> {
        self.writes.touch(h.index());
        let t = *self.arena.get(h);
        let fwd = if self.watch && self.arena.is_marked(h) {
            barrier_for(&mut self.arena, &mut self.fwd, h)
        } else {
            None
        };
        TableMut {
            t,
            orig: t,
            dst: HeaderDst::Slot(&mut self.arena, h),
            s: &mut self.store,
            fwd,
            moved: false,
        }
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

    /// Sweeps `budget` units of work (see [`Arena::sweep_step`]),
    /// freeing the unmarked tables' blocks too.
    pub fn sweep_step(&mut self, budget: usize) -> (usize, bool) {
        let store = &mut self.store;
        let writes = &mut self.writes;
        self.arena.sweep_step(budget, |h, t| {
            writes.touch_life(h.index());
            store.free_table(t);
        })
    }

    /// A minor collection's sweep of the tables (`Arena::sweep_minor`);
    /// returns the estimated bytes freed.
    pub(crate) fn sweep_minor(&mut self) -> usize {
        let (store, writes) = (&mut self.store, &mut self.writes);
        let mut bytes = 0;
        self.arena.sweep_minor(|h, t| {
            bytes += store.view(t).estimated_bytes();
            writes.touch_life(h.index());
            store.free_table(t);
        });
        bytes
    }

    /// A major collection's sweep of the tables (`Arena::sweep_keep_marks`).
    pub(crate) fn sweep_keep_marks(&mut self) {
        let (store, writes) = (&mut self.store, &mut self.writes);
        self.arena.sweep_keep_marks(|h, t| {
            writes.touch_life(h.index());
            store.free_table(t);
        });
    }

    /// The collector's state of the header arena.
    pub(crate) fn arena_mut(&mut self) -> &mut Arena<Table> {
        &mut self.arena
    }

    /// Turns the barrier on or off.
    pub(crate) fn set_watch(&mut self, on: bool) {
        self.watch = on;
        self.sync_hooks();
    }

    /// Recomputes `hooks` from the three hooks it stands for.
    fn sync_hooks(&mut self) {
        self.hooks_all = self.writes.is_tracking() || self.store.vals.journaling();
        self.hooks = self.watch || self.hooks_all;
    }

    /// Whether a fast path's write of `v` into `h` owes
    /// [`Tables::fast_write_hooks`] anything: the write log and the journal
    /// want every write, the barrier (on for a whole marking phase, or
    /// always in generational mode) only values that are objects stored
    /// into a marked table. `hooks_all` first, then the value's tag: in
    /// generational mode a number stored costs two tests, not three
    /// (`instrratio.py` mean 1.072 -> 1.069, sieve 1.272 -> 1.257; an
    /// object stored in incremental mode pays one test more: AWFY richards
    /// +0.35 %).
    #[inline(always)]
    fn owes_hooks(&self, h: TableRef, v: Value) -> bool {
        self.hooks_all
            || (crate::schema::ObjRef::of(v).is_some() && self.hooks && self.arena.is_marked(h))
    }

    /// The barrier's state: whether it is on, and the values listed.
    pub(crate) fn barrier_state(&self) -> (bool, &[Value]) {
        (self.watch, &self.fwd)
    }

    /// Sets the barrier's state (loading a saved state).
    pub(crate) fn set_barrier_state(&mut self, watch: bool, fwd: Vec<Value>) {
        self.watch = watch;
        self.fwd = fwd;
        self.sync_hooks();
    }

    /// The values the forward barrier listed.
    pub(crate) fn fwd_mut(&mut self) -> &mut Vec<Value> {
        &mut self.fwd
    }

    /// The barrier of the fast paths: `v` stored into `h`.
    #[inline(always)]
    fn forward(&mut self, h: TableRef, v: Value) {
        if self.watch && crate::schema::ObjRef::of(v).is_some() && self.arena.is_marked(h) {
            if let Some(fwd) = barrier_for(&mut self.arena, &mut self.fwd, h) {
                fwd.push(v);
            }
        }
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
        Ok(Tables { arena: Arena::from_raw_parts(headers, free)?, store, ..Tables::default() })
    }

    /// Whether assigning an absent key of `h` is a raw set: `h` has no
    /// metatable, or its metatable is known by the absence cache to lack
    /// `__newindex` (the cache is cleared by any string-key assignment to
    /// the metatable, so it never claims an absence that is not).
    #[inline]
    pub fn sets_raw(&self, h: TableRef) -> bool {
        match self.get(h).meta {
            None => true,
            Some(mt) => self.get(mt).flags & (1 << crate::meta::TM_NEWINDEX) != 0,
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

    /// Takes a write mark (`WriteLog::mark`): tracking is on from now on.
    pub(crate) fn write_mark(&mut self) -> crate::writes::WriteMark {
        let m = self.writes.mark();
        self.sync_hooks();
        m
    }

    /// Stops write tracking (`WriteLog::end`).
    pub(crate) fn end_write_tracking(&mut self) {
        self.writes.end();
        self.sync_hooks();
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
///
/// **Invariant** (the layout invariant, which the hot reads' unchecked
/// accesses rest on): the header is consistent and its body is a live
/// block of this store of capacity `body_cap(acap, hcap)`, with
/// `alen <= acap` and `elen <= hcap`, and every nonzero index slot names an
/// entry below `elen`. Every view is made from a header and the store that
/// holds its body (`Tables`' own pair, a `TableMut`'s header copy, which it
/// keeps consistent between its writes, `OwnedTable`, or a header of the
/// heap's arena with the heap's store for writing it out), and every header
/// is either built by `TableMut` (which keeps it) or checked when a state
/// is loaded (`TableStore::table_from_parts`, which rebuilds the index).
/// Debug builds check each unchecked access.
///
/// `FRESH`: the view was made by the dispatch loop's fresh instance
/// (`Tables::get_live_in`), run only while the store holds no stale body
/// pointer, and takes the body pointer untested. A type parameter, not a
/// field: the view stays two words, passed in registers.
#[derive(Clone, Copy)]
pub struct TableView<'a, const FRESH: bool = false> {
    t: &'a Table,
    s: &'a TableStore,
}

impl<const F: bool> std::ops::Deref for TableView<'_, F> {
    type Target = Table;
    #[inline(always)]
    fn deref(&self) -> &Table {
        self.t
    }
}

impl<'a, const F: bool> TableView<'a, F> {
    /// The header.
    #[inline(always)]
    pub fn header(self) -> &'a Table {
        self.t
    }

    /// The body's address (the body pointer, tested unless the view is
    /// fresh).
    #[inline(always)]
    fn ptr(self) -> *mut Value {
        if F {
            self.t.body_ptr_in::<true>(self.s)
        } else {
            self.t.body_ptr(self.s)
        }
    }

    /// The used part of the body: entries, index, array slots.
    #[inline(always)]
    fn body(self) -> &'a [Value] {
        let t = self.t;
        let n = 3 * t.hcap as usize + t.alen as usize;
        if n == 0 {
            return &[];
        }
        debug_assert!(n <= body_cap(t.acap as usize, t.hcap as usize));
        // SAFETY: the layout invariant (see `TableView`) puts the `n` cells
        // inside the body block, where `body_ptr` points (the body pointer
        // invariant); `self.s` is borrowed, so no write is under way.
        unsafe { std::slice::from_raw_parts(self.ptr(), n) }
    }

    /// The array part: slot `i` holds key `i + 1`.
    #[inline(always)]
    pub fn array(self) -> &'a [Value] {
        &self.body()[3 * self.t.hcap as usize..]
    }

    /// The entries, as `key, value` cell pairs.
    #[inline(always)]
    pub(crate) fn ents(self) -> &'a [Value] {
        &self.body()[..2 * self.t.elen as usize]
    }

    /// Raw `t[key]` (no metamethods): nil when absent; float keys with an
    /// integral value are looked up as integers; nil and NaN give nil.
    #[inline(always)]
    pub fn get(self, key: Value) -> Value {
        self.get_words(key.words()).value()
    }

    /// [`TableView::get`] out of line, key and answer in registers (see
    /// [`Words`]).
    #[inline(never)]
    fn get_words(self, key: Words) -> Words {
        // Every path returns words, a nil as `Words::NIL`: a `Value::Nil`
        // built here is a lone tag store, and the 16-byte copy of it that
        // follows cannot be forwarded from that store (a stall per miss).
        let key = key.value();
        match key {
            Value::Int(i) => self.get_int_words(i),
            Value::Str(s) => match self.find_str_entry(s) {
                Some((_, v)) => v.words(),
                None => Words::NIL,
            },
            _ => match normalize(key) {
                Norm::Int(i) => self.get_int_words(i),
                Norm::Other(k) => self.get_hash(k),
                Norm::Nil | Norm::NaN => Words::NIL,
            },
        }
    }

    /// [`TableView::get_int`] as words.
    #[inline(always)]
    fn get_int_words(self, i: i64) -> Words {
        match self.array_cell((i as u64).wrapping_sub(1)) {
            Some(v) => v.words(),
            None => self.get_int_hash(i),
        }
    }

    /// Raw `t[i]`, array part first.
    #[inline(always)]
    pub fn get_int(self, i: i64) -> Value {
        self.get_int_words(i).value()
    }

    /// Array slot `idx` (key `idx + 1`) if it is in the array part.
    #[inline(always)]
    pub fn array_cell(self, idx: u64) -> Option<&'a Value> {
        let t = self.t;
        if idx < u64::from(t.alen) {
            let p = self.ptr();
            // SAFETY: the layout invariant (see `TableView`):
            // `3 * hcap + idx < 3 * hcap + alen <= cap`, inside the body
            // block, where `p` points (the body pointer invariant); a block
            // exists (`alen > 0`), so `p` is not null, which lets the
            // compiler drop the test of the `Option`'s null niche.
            unsafe {
                std::hint::assert_unchecked(!p.is_null());
                return Some(&*p.add(3 * t.hcap as usize + idx as usize));
            }
        }
        None
    }

    /// Raw `t[s]` for a string key.
    #[inline(always)]
    pub fn get_str(self, s: StrRef) -> Value {
        self.find_str_entry(s).map_or(Value::Nil, |(_, v)| v)
    }

    /// `get_str` as two words ([`Words`]) for `State::fast_tm`: a small hash
    /// part scanned inline (as `find_str_entry`), a big one probed out of
    /// line, so that the caller saves few registers (`o + o` 474 -> 450
    /// instructions against `find_str_entry` out of line, `opcost.py`).
    #[inline(always)]
    pub(crate) fn get_str_words(self, s: StrRef) -> Words {
        let n = 2 * self.t.elen as usize;
        if self.t.hcap as usize > SCAN_HASH || n == 0 {
            return self.get_str_probed(s);
        }
        let p = self.ptr();
        // SAFETY (both): as in `find_str_entry`, `k + 1 < 2 * elen <= cap`.
        (0..n)
            .step_by(2)
            .find(|&k| matches!(unsafe { *p.add(k) }, Value::Str(x) if x == s))
            .map_or(Words::NIL, |k| crate::execute::load(unsafe { &*p.add(k + 1) }).words())
    }

    /// [`TableView::get_str_words`] with a lookup hint for a hash part too
    /// big to scan (`fast_tm`'s metamethods in a class's metatable): the
    /// entry `hint` names, checked to hold `s`, before the probe, which
    /// sets the hint where it finds `s`. The same answer whatever the hint.
    #[inline(always)]
    pub(crate) fn get_str_words_hinted(self, s: StrRef, hint: &Cell<u32>) -> Words {
        if self.t.hcap as usize <= SCAN_HASH {
            return self.get_str_words(s);
        }
        // SAFETY: `ptr` is the body's address, the store borrowed.
        match unsafe { self.hinted_value(self.ptr(), s, hint.get() as usize) } {
            // SAFETY: a value cell of the body (`hinted_value`).
            Some(cell) => crate::execute::load(unsafe { &*cell }).words(),
            None => self.get_str_probed_hint(s, hint),
        }
    }

    /// The probe of [`TableView::get_str_words_hinted`], out of line.
    #[inline(never)]
    fn get_str_probed_hint(self, s: StrRef, hint: &Cell<u32>) -> Words {
        self.find_str_noting(s, hint).map_or(Words::NIL, |(_, v)| v.words())
    }

    /// The value cell of entry `e` if `e` is an entry holding key `s` (a
    /// lookup hint's check).
    ///
    /// # Safety
    ///
    /// `p` is this table's `body_ptr`, taken since the store last moved.
    #[inline(always)]
    unsafe fn hinted_value(self, p: *mut Value, s: StrRef, e: usize) -> Option<*const Value> {
        if e < self.t.elen as usize {
            // SAFETY (both): the layout invariant (see `TableView`):
            // `2 * e + 1 < 2 * elen <= 2 * hcap <= cap`, inside the body
            // block, where `p` points (the caller's contract).
            if matches!(unsafe { *p.add(2 * e) }, Value::Str(x) if x == s) {
                return Some(unsafe { p.add(2 * e + 1) });
            }
        }
        None
    }

    /// `find_str_entry`, recording in `hint` the entry where it found `s`.
    #[inline(always)]
    fn find_str_noting(self, s: StrRef, hint: &Cell<u32>) -> Option<(usize, Value)> {
        let found = self.find_str_entry(s);
        if let Some((e, _)) = found {
            hint.set(e as u32);
        }
        found
    }

    /// [`TableView::get_str_words`] for a hash part too big to scan.
    #[inline(never)]
    fn get_str_probed(self, s: StrRef) -> Words {
        self.find_str_entry(s).map_or(Words::NIL, |(_, v)| v.words())
    }

    /// `get_str` with a lookup hint (see [`TableView::find_str_hinted`]).
    #[inline(always)]
    pub fn get_str_hinted(self, s: StrRef, hint: &Cell<u32>) -> Value {
        self.find_str_hinted(s, hint).map_or(Value::Nil, |(_, v)| v)
    }

    /// `find_str_entry`, trying first the entry `hint` names (where the
    /// same instruction last found a key) and recording where a miss found
    /// `s`. The entry is checked to hold `s` (keys are unique among the
    /// entries, dead ones have a nil key), so the answer is
    /// `find_str_entry`'s whatever the hint says: a hint only saves the
    /// hashing and the index probe, a dependent load on the path of every
    /// field access.
    #[inline(always)]
    fn find_str_hinted(self, s: StrRef, hint: &Cell<u32>) -> Option<(usize, Value)> {
        // SAFETY: `body_ptr` is the body's address (the body pointer
        // invariant), and `self.s` is borrowed: no write moves it.
        unsafe { self.find_str_hinted_at(self.ptr(), s, hint) }
    }

    /// [`TableView::find_str_hinted`] given the body's address `p` (the
    /// caller's `body_ptr`, taken once: each cell read through `body_ptr`
    /// would test the body pointer's epoch again).
    ///
    /// # Safety
    ///
    /// `p` is this table's `body_ptr`, taken since the store last moved.
    #[inline(always)]
    pub(crate) unsafe fn find_str_hinted_at(
        self,
        p: *mut Value,
        s: StrRef,
        hint: &Cell<u32>,
    ) -> Option<(usize, Value)> {
        let e = hint.get() as usize;
        // SAFETY (both): the caller's contract; a value cell of the body.
        if let Some(cell) = unsafe { self.hinted_value(p, s, e) } {
            return Some((e, unsafe { *cell }));
        }
        self.find_str_noting(s, hint)
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
        let n = 2 * self.t.elen as usize;
        if n == 0 {
            return None;
        }
        // The body's address once, not per cell: `body_ptr` tests the
        // body pointer's epoch, and the scan would repeat the test (and
        // the store's epoch load) at every entry.
        let p = self.ptr();
        let mut k = 0;
        while k < n {
            debug_assert!(k + 1 < body_cap(self.t.acap as usize, self.t.hcap as usize));
            // SAFETY (both): the layout invariant (see `TableView`):
            // `k + 1 < 2 * elen <= 2 * hcap <= cap`, inside the body block
            // (there is one: `elen > 0`), where `p` points (the body pointer
            // invariant); `self.s` is borrowed, so no write is under way.
            if matches!(unsafe { *p.add(k) }, Value::Str(x) if x == s) {
                return Some((k / 2, unsafe { *p.add(k + 1) }));
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
        let mask = 2 * h - 1;
        let mut pos = (str_hash(s) >> self.t.shift) as usize & mask;
        // The body's address once, not per cell (as `find_str_entry`).
        let p = self.ptr();
        loop {
            // SAFETY: the layout invariant (see `TableView`): index slot
            // `pos < 2 * hcap` is in cell `2 * hcap + pos / 2 < 3 * hcap <=
            // cap`, inside the body block, where `p` points.
            let e = islot_of(unsafe { *p.add(2 * h + (pos >> 1)) }, pos);
            if e == 0 {
                return None;
            }
            let k = 2 * (e - 1) as usize;
            debug_assert!(k < 2 * self.t.elen as usize);
            // SAFETY (both): the layout invariant: an index slot names an
            // entry below `elen`, so `k + 1 < 2 * elen <= cap`.
            if matches!(unsafe { *p.add(k) }, Value::Str(x) if x == s) {
                return Some((pos, (e - 1) as usize, unsafe { *p.add(k + 1) }));
            }
            pos = (pos + 1) & mask;
        }
    }

    /// An integer key outside the array part; out of line, the answer
    /// in registers (see [`Words`]).
    /// Its own probe, as `find_str`'s for strings: through `get_hash`
    /// and `probe`, two more calls and a dispatch on the key's type, a
    /// miss in an empty hash part cost about 55 instructions (the
    /// `__newindex` and `__index` paths look there for every key).
    /// Cold: the loop's array reads call it on a miss, and without the
    /// hint LLVM kept an operand alive across the call on their fast path
    /// (pal-centroid +0.8 % instructions, +2-6 % time; with it, the table
    /// programs' counts at or below a185f8c's, `loopcost.py`).
    #[cold]
    #[inline(never)]
    fn get_int_hash(self, i: i64) -> Words {
        match self.find_int_entry(i) {
            Some((_, v)) => v.words(),
            None => Words::NIL,
        }
    }

    /// The entry and value of integer key `i` in the hash part (live or
    /// tombstone), probed as `find_str` probes strings. A copy of that
    /// probe, not a shared generic one: the loop inlines `find_str`, and
    /// sharing it (a closure for the key test) moved the loop's code
    /// (`loopdiff.py`: 9,607 lines).
    #[inline(always)]
    pub(crate) fn find_int_entry(self, i: i64) -> Option<(usize, Value)> {
        let h = self.t.hcap as usize;
        if h == 0 || (i >= 1 && !self.t.hash_ints()) {
            return None;
        }
        let mask = 2 * h - 1;
        let mut pos = (int_hash(i) >> self.t.shift) as usize & mask;
        let p = self.ptr();
        loop {
            // SAFETY: as in `find_str`: index slot `pos < 2 * hcap` is in
            // cell `2 * hcap + pos / 2 < 3 * hcap <= cap`, inside the body
            // block, where `p` points.
            let e = islot_of(unsafe { *p.add(2 * h + (pos >> 1)) }, pos);
            if e == 0 {
                return None;
            }
            let k = 2 * (e - 1) as usize;
            debug_assert!(k < 2 * self.t.elen as usize);
            // SAFETY (both): as in `find_str`: an index slot names an entry
            // below `elen`, so `k + 1 < 2 * elen <= cap`.
            if matches!(unsafe { *p.add(k) }, Value::Int(x) if x == i) {
                return Some(((e - 1) as usize, unsafe { *p.add(k + 1) }));
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Lookup of a normalized key in the hash part, as words (a nil as
    /// `Words::NIL`, see `get_words`).
    fn get_hash(self, key: Value) -> Words {
        match self.probe(key, key_hash(key)) {
            Probe::Found(_, e) => self.ents()[2 * e + 1].words(),
            Probe::Absent => Words::NIL,
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
        if !self.t.hash_ints() || self.get_int_hash(n as i64 + 1).value().is_nil() {
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

mod bodyptr;
mod fast;
mod journal;
mod keys;
use bodyptr::BodyPtr;
#[cfg(test)]
use journal::EAGER_REFRESH;
use keys::*;
mod write;

mod next;
pub use write::TableMut;
use write::{barrier_for, build_index, HeaderDst, Index};

mod parts;
pub use parts::TableParts;

#[cfg(test)]
mod tests;
