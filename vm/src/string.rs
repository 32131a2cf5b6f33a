//! Byte strings: interned ones, and the loose long results of concatenations
//! and of the natives that make text.
//!
//! Strings are arbitrary bytes (not UTF-8) and immutable. Almost every
//! string in the heap is *registered* in the [`Interner`]: there is at most
//! one live registered [`LuaStr`] per byte sequence, so two registered
//! strings are equal exactly when their handles are, and a table hashes a
//! string key by its handle index without touching the heap.
//!
//! # Loose strings
//!
//! The exceptions are the result of a concatenation longer than
//! [`SHORT`] bytes and the long text natives make through
//! `State::new_loose_string` (`io.read`'s lines, the string library's
//! results, `table.concat`): such a string is *loose*: allocated, never
//! registered, freed without leaving the interner. `s = s .. x` in a loop
//! (a text built piece by piece) makes one long string per step that is
//! garbage at the next; registering each and taking it out at the sweep
//! cost more than the copy itself (RESULTS part 20). A file's 300,000
//! lines registered cost twice lua5.4's time with the same instruction
//! count: the insertions into a table that large, and the removals at
//! the sweep, miss the caches (part 32). Lua 5.4 does not intern its long
//! strings either. What that gives up is handle equality, so:
//!
//! * **Invariant: every string of at most [`SHORT`] bytes is registered**,
//!   and two strings with different handles of which neither is loose have
//!   different bytes. Equality ([`crate::heap::Heap::raw_eq`]) compares the
//!   bytes of two different handles only when one of them is loose, which
//!   only a long string can be.
//! * **Invariant: a table key is never a loose string.** Before a string
//!   is used as a key it is replaced by its *twin*, the registered string
//!   of the same bytes ([`Interner::twin`]): for a read, the twin if there
//!   is one (if there is none, no table holds the key); for a write, the
//!   twin made if needed ([`crate::heap::Heap::key_mut`]). So a table still
//!   compares string keys by handle. Every entry point that takes a key
//!   from outside does this: the loop's slow paths, `rawget` and the like,
//!   the `State` API.
//!
//! A loose string stays loose (its twin is another string), so a handle's
//! kind never changes and a snapshot, a rollback or a save sees nothing
//! new: the kind is part of the string object.
//!
//! # The hash
//!
//! [`hash_bytes`] is a fixed, seedless function in the wyhash family: the
//! input is consumed as 16-byte blocks of two little-endian `u64` words (short
//! strings as overlapping 4-byte words), each block folded into the state by
//! a 64x64->128-bit multiply whose halves are xored ("mum"). Words are always read little-endian, and the function uses
//! no CPU-specific instructions, so it returns the same value for the same
//! bytes on every machine, endianness and process. It is computed once, when
//! a string is first interned, and stored in the [`LuaStr`]; a loose
//! string's only when it is first asked for (to find its twin), as Lua 5.4
//! hashes a long string only when it is used as a key. Above 64 bytes the
//! input first goes through four lanes 64 bytes at a time (`Lanes`).
//!
//! # The interner
//!
//! [`Interner`] is two `hashbrown::HashTable`s, one for strings of at most
//! 40 bytes and one for longer ones, of 8-byte slots: the string's
//! handle index and the low 32 bits of its content hash. Because the slot
//! carries its own hash, the table can grow and rehash without reading the
//! arena, and a lookup rejects almost every non-matching slot without a
//! memory access to the string itself. Only a slot whose 32-bit hash matches
//! is confirmed by comparing bytes.
//!
//! The interner is a lookup structure only: it is never iterated, so its
//! internal layout has no influence on program behaviour. Handles come from
//! the string arena, whose allocation order is deterministic (see
//! `arena.rs`), so the heap is bit-identical across replays.
//!
//! # Invariants the collector must respect
//!
//! * Every live registered string is in the interner exactly once, and no
//!   loose one is; a freed string must be
//!   removed with [`Interner::remove`] **before the next call to
//!   [`Interner::intern`] or [`Interner::find`]**, since those may compare
//!   bytes of any slot whose hash matches and so read the arena.
//! * A rollback (`snapshot.rs`) removes the strings created since the
//!   snapshot and [`Interner::reinsert`]s those freed since (both ignore
//!   loose strings); the table's
//!   internal layout may then differ from the snapshot's, which is
//!   unobservable since it is never iterated.
//! * [`Interner::remove`] itself never reads the arena: it identifies the slot
//!   by handle and hash, so it may be called from inside `Arena::sweep`'s
//!   `on_free` callback, after the object has been taken out of its slot
//!   (pass `s.hash()` of the freed [`LuaStr`] handed to the callback).

use crate::arena::Arena;
use crate::value::StrRef;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::cell::Cell;

/// An immutable byte string with its content hash: registered in the
/// interner, or loose (see the module documentation).
#[derive(Clone, Debug)]
pub struct LuaStr {
    /// The content hash; for a loose string, computed when first asked
    /// for ([`LuaStr::hash`]), 0 until then. A cache: every reader gets
    /// [`hash_bytes`] of the bytes.
    hash: Cell<u64>,
    bytes: Bytes,
}

/// Longest string whose bytes are kept in its arena slot.
pub(crate) const INLINE: usize = 22;

/// A string's bytes: up to [`INLINE`] in place, in the string's arena
/// slot, longer ones in an allocation of their own. Most strings a program
/// makes (keys, pieces cut by `string.sub`, numbers turned to text) are
/// short: kept inline they cost no allocation (nor a free when collected),
/// and comparing them in a lookup reads the slot the lookup already
/// reached, not a second block (k-nucleotide's and revcomp's time went
/// mostly into these two misses, `benches/RESULTS.md` part 15). A slot is
/// 32 bytes either way.
#[derive(Clone, Debug)]
enum Bytes {
    Inline {
        len: u8,
        buf: [u8; INLINE],
    },
    Heap(Box<[u8]>),
    /// The bytes of a *loose* string: one the interner does not hold (see
    /// the module documentation).
    Loose(Box<[u8]>),
}

// A string's arena slot stays 32 bytes with the third kind of bytes.
const _: () = assert!(std::mem::size_of::<Option<LuaStr>>() == 32);

impl LuaStr {
    /// Builds a string object (not interned: use [`Interner::intern`] to
    /// obtain a heap string).
    fn new(bytes: &[u8], hash: u64) -> LuaStr {
        let bytes = if bytes.len() <= INLINE {
            Bytes::Inline { len: bytes.len() as u8, buf: padded(bytes) }
        } else {
            Bytes::Heap(bytes.into())
        };
        LuaStr { hash: Cell::new(hash), bytes }
    }

    /// [`LuaStr::new`] of bytes already in an allocation of their own,
    /// which a long string keeps.
    fn from_box(bytes: Box<[u8]>, hash: u64) -> LuaStr {
        if bytes.len() <= INLINE {
            return LuaStr::new(&bytes, hash);
        }
        LuaStr { hash: Cell::new(hash), bytes: Bytes::Heap(bytes) }
    }

    /// A loose string of `bytes` (more than [`SHORT`]), not hashed yet.
    fn loose(bytes: Box<[u8]>) -> LuaStr {
        debug_assert!(bytes.len() > SHORT);
        LuaStr { hash: Cell::new(0), bytes: Bytes::Loose(bytes) }
    }

    /// The string's bytes.
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Inline { len, buf } => &buf[..usize::from(*len).min(INLINE)],
            Bytes::Heap(b) | Bytes::Loose(b) => b,
        }
    }

    /// Length in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        match &self.bytes {
            Bytes::Inline { len, .. } => usize::from(*len),
            Bytes::Heap(b) | Bytes::Loose(b) => b.len(),
        }
    }

    /// Whether the bytes are in an allocation of their own (more than
    /// [`INLINE`]).
    #[inline(always)]
    pub fn is_long(&self) -> bool {
        !matches!(self.bytes, Bytes::Inline { .. })
    }

    /// Whether the string is registered in the interner: every string but
    /// a loose one (see the module documentation).
    #[inline(always)]
    pub fn is_registered(&self) -> bool {
        !matches!(self.bytes, Bytes::Loose(_))
    }

    /// True for the empty string.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The content hash ([`hash_bytes`] of the bytes): computed when the
    /// string is interned, or for a loose one the first time it is asked
    /// for (as Lua 5.4 hashes a long string only when it is used as a key).
    /// A hash that happens to be 0 is computed again each time, which
    /// gives the same answer.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        match self.hash.get() {
            0 => self.compute_hash(),
            h => h,
        }
    }

    #[cold]
    fn compute_hash(&self) -> u64 {
        let h = hash_bytes(self.as_bytes());
        self.hash.set(h);
        h
    }
}

/// Approximate number of heap bytes a string occupies, for GC accounting:
/// the object itself, its byte buffer and its interner slot.
pub fn interned_size(s: &LuaStr) -> usize {
    std::mem::size_of::<Option<LuaStr>>() + s.len() + std::mem::size_of::<Slot>()
}

const K0: u64 = 0xa076_1d64_78bd_642f;
const K1: u64 = 0xe703_7ed1_a0b4_28db;
const K2: u64 = 0x8ebc_6af0_9c88_c6e3;

/// Folded 64x64->128 multiply: the xor of the product's halves.
#[inline(always)]
fn mum(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Reads 8 bytes little-endian (`b.len() >= 8`).
#[inline(always)]
fn r8(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// Reads 4 bytes little-endian (`b.len() >= 4`).
#[inline(always)]
fn r4(b: &[u8]) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[..4]);
    u64::from(u32::from_le_bytes(w))
}

/// The fixed, portable content hash of a byte string (see the module
/// documentation). Equal bytes give equal hashes on every machine.
///
/// Strings of up to 16 bytes are read with (possibly overlapping) 4-byte
/// loads from both ends, or 3 single bytes below 4 bytes, as wyhash does;
/// longer ones as 16-byte blocks, the last block overlapping the previous;
/// above 64 bytes, 64-byte stretches first go to four lanes in parallel
/// (`Lanes`).
pub fn hash_bytes(b: &[u8]) -> u64 {
    if b.len() <= 64 {
        return hash_short(b);
    }
    let mut lanes = Lanes::START;
    lanes.absorb(b);
    lanes.finish(b)
}

/// [`hash_bytes`] of at most 64 bytes.
fn hash_short(b: &[u8]) -> u64 {
    let len = b.len();
    let h = K0 ^ mum(len as u64 ^ K1, K2);
    let (a, c) = if len <= 16 {
        if len >= 4 {
            let q = (len >> 3) << 2;
            ((r4(b) << 32) | r4(&b[q..]), (r4(&b[len - 4..]) << 32) | r4(&b[len - 4 - q..]))
        } else if len > 0 {
            let x = (u64::from(b[0]) << 16) | (u64::from(b[len >> 1]) << 8) | u64::from(b[len - 1]);
            (x, 0)
        } else {
            (0, 0)
        }
    } else {
        return blocks_and_last(h, b, b);
    };
    last(h, a, c, len)
}

/// The 16-byte blocks of `rest` (the end of `b`) but the last, folded into
/// `h`, then the last 16 bytes of `b` (`b.len() > 16`) and the length.
#[inline(always)]
fn blocks_and_last(mut h: u64, b: &[u8], mut rest: &[u8]) -> u64 {
    while rest.len() > 16 {
        h = mum(r8(rest) ^ K1, r8(&rest[8..]) ^ h);
        rest = &rest[16..];
    }
    let len = b.len();
    last(h, r8(&b[len - 16..]), r8(&b[len - 8..]), len)
}

#[inline(always)]
fn last(h: u64, a: u64, c: u64, len: usize) -> u64 {
    let h = mum(a ^ K1, c ^ h);
    mum(h ^ K2, len as u64 ^ K0)
}

/// The state of [`hash_bytes`] of a string of more than 64 bytes after its
/// first 64-byte stretches: four independent lanes, so that the multiplies
/// overlap instead of waiting on each other (one lane is bound by the
/// multiply's latency, about 3.5 bytes per cycle). A string of `len` bytes
/// runs [`Lanes::count`]`(len)` stretches through them (all but the last 1
/// to 64 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lanes([u64; 4]);

impl Lanes {
    const START: Lanes = Lanes([K0, K0 ^ K1, K0 ^ K2, K1 ^ K2]);

    /// The stretches a string of `len` bytes (more than 64) runs.
    fn count(len: usize) -> usize {
        (len - 1) / 64
    }

    /// Runs the stretches of `b`.
    fn absorb(&mut self, b: &[u8]) {
        let [mut h, mut h1, mut h2, mut h3] = self.0;
        for k in 0..Self::count(b.len()) {
            let s = &b[64 * k..64 * k + 64];
            h = mum(r8(s) ^ K1, r8(&s[8..]) ^ h);
            h1 = mum(r8(&s[16..]) ^ K2, r8(&s[24..]) ^ h1);
            h2 = mum(r8(&s[32..]) ^ K0, r8(&s[40..]) ^ h2);
            h3 = mum(r8(&s[48..]) ^ K1, r8(&s[56..]) ^ h3);
        }
        self.0 = [h, h1, h2, h3];
    }

    /// The hash of `b`, whose stretches the lanes hold.
    fn finish(self, b: &[u8]) -> u64 {
        let [h, h1, h2, h3] = self.0;
        let h = mum(h ^ h1 ^ K2, h2 ^ h3 ^ K0);
        blocks_and_last(h, b, &b[64 * Self::count(b.len())..])
    }
}

/// One interner slot: a string handle and the low half of its hash.
#[derive(Clone, Copy, Debug)]
struct Slot {
    idx: u32,
    hash: u32,
}

/// The hash hashbrown sees for a slot: derived from the stored 32 bits only,
/// so rehashing never needs the arena.
#[inline(always)]
fn table_hash(h32: u32) -> u64 {
    (u64::from(h32) << 32) | u64::from(h32)
}

/// Longest string registered in the interner's short table (Lua 5.4's
/// `LUAI_MAXSHORTLEN`).
pub(crate) const SHORT: usize = 40;

/// The set of live strings, keyed by content.
///
/// Short strings (at most [`SHORT`] bytes) and long ones are registered in
/// two tables, the length choosing the table. A program's short strings
/// (keys, pieces, names) are looked up all the time; its long ones (lines
/// read, texts built) are many but rarely looked up again: in one table the
/// long ones spread the short ones over memory the cache does not hold.
/// (Lua 5.4 does not intern its long strings at all; we intern every
/// string, so that equality stays handle equality.)
#[derive(Clone, Debug)]
pub struct Interner {
    short: HashTable<Slot>,
    long: HashTable<Slot>,
    /// A cache, not state: for each byte, the index of the one-byte
    /// string of it when last interned through [`Interner::intern_range`]
    /// (`u32::MAX`: none). Checked before use (the slot holds a live
    /// string of that one byte, which is then the registered one: short
    /// strings are never loose and registered contents are unique), so a
    /// slot freed or reused since is never taken for it.
    bytes1: [u32; 256],
}

impl Default for Interner {
    fn default() -> Self {
        Interner::new()
    }
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Interner {
        Interner { short: HashTable::new(), long: HashTable::new(), bytes1: [u32::MAX; 256] }
    }

    /// Number of interned (live) strings.
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// The table of strings of `len` bytes.
    #[inline(always)]
    fn table(&self, len: usize) -> &HashTable<Slot> {
        if len <= SHORT {
            &self.short
        } else {
            &self.long
        }
    }

    /// [`Interner::table`], mutable.
    #[inline(always)]
    fn table_mut(&mut self, len: usize) -> &mut HashTable<Slot> {
        if len <= SHORT {
            &mut self.short
        } else {
            &mut self.long
        }
    }

    /// The handle of the string with these bytes, if it is interned.
    pub fn find(&self, arena: &Arena<LuaStr>, bytes: &[u8]) -> Option<StrRef> {
        let h32 = hash_bytes(bytes) as u32;
        self.find_with(arena, bytes, h32)
    }

    fn find_with(&self, arena: &Arena<LuaStr>, bytes: &[u8], h32: u32) -> Option<StrRef> {
        let key = KeyBytes::of(bytes);
        let eq = |s: &Slot| s.hash == h32 && slot_bytes_eq(arena, s.idx, &key);
        self.table(bytes.len()).find(table_hash(h32), eq).map(|s| StrRef::from_index(s.idx))
    }

    /// Returns the handle of the string with these bytes, allocating and
    /// registering a new [`LuaStr`] in `arena` if there is none.
    pub fn intern(&mut self, arena: &mut Arena<LuaStr>, bytes: &[u8]) -> StrRef {
        self.find_or_register(arena, bytes, hash_bytes(bytes))
    }

    /// The string with `src`'s bytes (of [`hash_bytes`] `hash`) if it is
    /// interned; otherwise a new string of them, allocated and registered.
    /// One probe of the table serves both the lookup and the insertion
    /// (hashbrown's entry reserves room first, so the insertion never
    /// rehashes).
    #[inline(always)]
    fn find_or_register<S: StrSource>(
        &mut self,
        arena: &mut Arena<LuaStr>,
        src: S,
        hash: u64,
    ) -> StrRef {
        let h32 = hash as u32;
        let bytes = src.bytes();
        let key = KeyBytes::of(bytes);
        let table = self.table_mut(bytes.len());
        let eq = |s: &Slot| s.hash == h32 && slot_bytes_eq(arena, s.idx, &key);
        match table.entry(table_hash(h32), eq, |s| table_hash(s.hash)) {
            Entry::Occupied(e) => StrRef::from_index(e.get().idx),
            Entry::Vacant(e) => {
                let s = arena.alloc(src.into_str(hash));
                e.insert(Slot { idx: s.index(), hash: h32 });
                s
            }
        }
    }

    /// Adds `slot`, of a string of `len` bytes, to the table its length
    /// chooses.
    fn insert_slot(&mut self, slot: Slot, len: usize) {
        self.table_mut(len).insert_unique(table_hash(slot.hash), slot, |s| table_hash(s.hash));
    }

    /// [`Interner::intern`] of the bytes `range` of string `s`, looked up
    /// where they are: a hit copies nothing, a miss copies them once, into
    /// the new string. (`string.sub` copied every piece to the Rust stack
    /// first, the source being borrowed from the arena that interning
    /// writes.) Panics if `range` is not within `s`. It repeats
    /// `find_or_register`'s probe rather than call it: its bytes borrow the
    /// arena until the new string copies them (a shared helper cost
    /// `string.sub` 37 instructions, RESULTS part 26).
    pub fn intern_range(
        &mut self,
        arena: &mut Arena<LuaStr>,
        s: StrRef,
        range: std::ops::Range<usize>,
    ) -> StrRef {
        let bytes = &arena.get(s).as_bytes()[range];
        // One byte (`s:sub(i, i)`, `gmatch(s, ".")`): the cache first.
        if let [b] = *bytes {
            let idx = self.bytes1[usize::from(b)];
            if arena.try_get(idx).is_some_and(|c| c.as_bytes() == [b]) {
                return StrRef::from_index(idx);
            }
            let r = self.intern(arena, &[b]);
            self.bytes1[usize::from(b)] = r.index();
            return r;
        }
        let hash = hash_bytes(bytes);
        let h32 = hash as u32;
        let key = KeyBytes::of(bytes);
        let table = self.table_mut(bytes.len());
        let eq = |sl: &Slot| sl.hash == h32 && slot_bytes_eq(arena, sl.idx, &key);
        match table.entry(table_hash(h32), eq, |sl| table_hash(sl.hash)) {
            Entry::Occupied(e) => StrRef::from_index(e.get().idx),
            Entry::Vacant(e) => {
                let new = LuaStr::new(bytes, hash);
                let r = arena.alloc(new);
                e.insert(Slot { idx: r.index(), hash: h32 });
                r
            }
        }
    }

    /// The string of a concatenation, `bytes`: interned if it is short, a
    /// new loose string otherwise, not hashed until it must be.
    pub fn concat(&mut self, arena: &mut Arena<LuaStr>, bytes: &[u8]) -> StrRef {
        if bytes.len() <= SHORT {
            return self.intern(arena, bytes);
        }
        arena.alloc(LuaStr::loose(bytes.into()))
    }

    /// [`Interner::concat`] of bytes in an allocation of their own, which a
    /// new string keeps: a long concatenation's bytes are copied once, as
    /// in the reference, not into a buffer and then out of it.
    pub fn concat_owned(&mut self, arena: &mut Arena<LuaStr>, bytes: Box<[u8]>) -> StrRef {
        if bytes.len() <= SHORT {
            let hash = hash_bytes(&bytes);
            return self.find_or_register(arena, bytes, hash);
        }
        arena.alloc(LuaStr::loose(bytes))
    }

    /// A new loose string of `bytes` (more than [`SHORT`]), for a loader
    /// that rebuilds an arena slot by slot.
    pub(crate) fn add_loose(arena: &mut Arena<LuaStr>, bytes: &[u8]) -> StrRef {
        arena.alloc(LuaStr::loose(bytes.into()))
    }

    /// The registered string with the bytes of `s`, if there is one: `s`
    /// itself unless it is loose.
    #[inline]
    pub fn twin(&self, arena: &Arena<LuaStr>, s: StrRef) -> Option<StrRef> {
        let obj = arena.get(s);
        if obj.is_registered() {
            return Some(s);
        }
        self.find_with(arena, obj.as_bytes(), obj.hash() as u32)
    }

    /// Registers string `s`, whose object is `obj`, again, without reading
    /// the arena: a rollback puts back a string that a collection had
    /// freed. The caller vouches that no other live string has the same
    /// bytes.
    pub fn reinsert(&mut self, s: StrRef, obj: &LuaStr) {
        if !obj.is_registered() {
            return;
        }
        self.insert_slot(Slot { idx: s.index(), hash: obj.hash() as u32 }, obj.len());
    }

    /// Unregisters string `s`, whose object is `obj` (its hash and length
    /// find the slot). Does not read the arena, so it may be called before
    /// or after the string's slot is freed (see the module invariants), with
    /// the object the free handed back. Unknown strings are ignored.
    pub fn remove(&mut self, s: StrRef, obj: &LuaStr) {
        if !obj.is_registered() {
            return;
        }
        let h32 = obj.hash() as u32;
        let idx = s.index();
        let table = self.table_mut(obj.len());
        if let Ok(e) = table.find_entry(table_hash(h32), |x| x.idx == idx) {
            e.remove();
        }
    }
}

/// The bytes of a string about to be interned: borrowed (copied into the
/// new string if there is none) or owned (kept by it).
trait StrSource {
    fn bytes(&self) -> &[u8];
    fn into_str(self, hash: u64) -> LuaStr;
}

impl StrSource for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_str(self, hash: u64) -> LuaStr {
        LuaStr::new(self, hash)
    }
}

impl StrSource for Box<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_str(self, hash: u64) -> LuaStr {
        LuaStr::from_box(self, hash)
    }
}

/// The bytes a lookup compares interned strings with, in the form a
/// string of their length keeps them: at most [`INLINE`] bytes as three
/// little-endian words, zero past their end (a string's inline buffer is
/// zero past its length, see [`LuaStr::new`]), compared whole, in three
/// word compares and without a call to `bcmp` (whose call cost a lookup a
/// dozen spills and reloads around it); longer ones as a slice.
///
/// The words are read from the bytes with loads alone ([`le_word`]): a
/// padded copy built on the Rust stack by `memcpy` and then copied whole
/// into the key waited for `memcpy`'s narrower stores (store forwarding:
/// half of `intern`'s time in `tostring(t)`).
enum KeyBytes<'a> {
    Inline(u8, [u64; 3]),
    Heap(&'a [u8]),
}

impl<'a> KeyBytes<'a> {
    #[inline(always)]
    fn of(bytes: &'a [u8]) -> KeyBytes<'a> {
        let n = bytes.len();
        if n <= INLINE {
            let (a, rest) = bytes.split_at(n.min(8));
            let (b, c) = rest.split_at(rest.len().min(8));
            KeyBytes::Inline(n as u8, [le_word(a), le_word(b), le_word(c)])
        } else {
            KeyBytes::Heap(bytes)
        }
    }
}

/// The at most 8 bytes `b` as a little-endian word, zero above them, read
/// with two overlapping loads (the bytes they share are the same, so
/// their union is the word).
#[inline(always)]
fn le_word(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 8);
    if n >= 4 {
        let lo = u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let hi = u64::from(u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]));
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        u64::from(b[0])
            | u64::from(b[n / 2]) << (8 * (n / 2))
            | u64::from(b[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

/// A string's inline buffer as [`KeyBytes`]' three words (the last holds
/// bytes 16 to 21, read as the top six bytes of the word at 14).
#[inline(always)]
fn buf_words(buf: &[u8; INLINE]) -> [u64; 3] {
    const _: () = assert!(INLINE == 22);
    let w = |i: usize| {
        u64::from_le_bytes([
            buf[i],
            buf[i + 1],
            buf[i + 2],
            buf[i + 3],
            buf[i + 4],
            buf[i + 5],
            buf[i + 6],
            buf[i + 7],
        ])
    };
    [w(0), w(8), w(14) >> 16]
}

/// `bytes` (at most [`INLINE`]) in an inline buffer, zero past their end:
/// the form an inline string keeps.
#[inline(always)]
fn padded(bytes: &[u8]) -> [u8; INLINE] {
    let mut buf = [0u8; INLINE];
    buf[..bytes.len()].copy_from_slice(bytes);
    buf
}

/// Whether the string at arena index `idx` has exactly the bytes of `key`
/// (a freed slot compares unequal).
#[inline(always)]
fn slot_bytes_eq(arena: &Arena<LuaStr>, idx: u32, key: &KeyBytes<'_>) -> bool {
    arena.try_get(idx).is_some_and(|s| match (&s.bytes, key) {
        (Bytes::Inline { len, buf }, KeyBytes::Inline(klen, kw)) => {
            let w = buf_words(buf);
            len == klen && (w[0] ^ kw[0]) | (w[1] ^ kw[1]) | (w[2] ^ kw[2]) == 0
        }
        (Bytes::Heap(b), KeyBytes::Heap(k)) => **b == **k,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_are_the_padded_buffer() {
        // Every length an inline string can have, bytes with every bit
        // pattern in every position: the key read from the bytes is the
        // stored string's buffer read as words.
        for n in 0..=INLINE {
            for seed in 0..64u32 {
                let bytes: Vec<u8> = (0..n as u32)
                    .map(|i| (i.wrapping_mul(97) ^ seed.wrapping_mul(131)).wrapping_add(seed) as u8)
                    .collect();
                let KeyBytes::Inline(len, words) = KeyBytes::of(&bytes) else {
                    panic!("{n} bytes are inline");
                };
                assert_eq!(usize::from(len), n);
                assert_eq!(words, buf_words(&padded(&bytes)), "{bytes:?}");
            }
        }
    }

    #[test]
    fn hash_is_fixed_and_portable() {
        // Pinned values: any change to the function changes heap layouts.
        let pinned = [
            hash_bytes(b""),
            hash_bytes(b"a"),
            hash_bytes(b"hello"),
            hash_bytes(b"0123456789abcdef"),
            hash_bytes(b"0123456789abcdefXYZ"),
        ];
        let again = [
            hash_bytes(b""),
            hash_bytes(b"a"),
            hash_bytes(b"hello"),
            hash_bytes(b"0123456789abcdef"),
            hash_bytes(b"0123456789abcdefXYZ"),
        ];
        assert_eq!(pinned, again);
        assert_eq!(hash_bytes(b"hello"), 0x2391_dded_4689_df82, "{:#x}", hash_bytes(b"hello"));
    }

    #[test]
    fn hash_reads_every_byte() {
        // Flipping any single byte of strings of every length up to 70
        // changes the hash.
        for len in 1..70 {
            let base: Vec<u8> = (0..len as u8).collect();
            let h0 = hash_bytes(&base);
            for i in 0..len {
                let mut m = base.clone();
                m[i] ^= 0x80;
                assert_ne!(hash_bytes(&m), h0, "len {len} byte {i}");
            }
        }
    }

    #[test]
    fn hash_distinguishes_lengths_and_zero_padding() {
        let mut seen = std::collections::HashSet::new();
        let mut buf = Vec::new();
        for n in 0..64 {
            assert!(seen.insert(hash_bytes(&buf)), "collision at zero-length {n}");
            buf.push(0);
        }
        assert_ne!(hash_bytes(b"ab"), hash_bytes(b"ba"));
    }

    #[test]
    fn hash_has_few_collisions() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..200_000u32 {
            let s = format!("k{i}");
            seen.insert(hash_bytes(s.as_bytes()) as u32);
        }
        assert!(seen.len() > 199_980, "{}", seen.len());
    }

    #[test]
    fn intern_dedups_and_finds() {
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let a = it.intern(&mut arena, b"abc");
        let b = it.intern(&mut arena, b"abd");
        let a2 = it.intern(&mut arena, b"abc");
        assert_eq!(a, a2);
        assert_ne!(a, b);
        assert_eq!(it.len(), 2);
        assert_eq!(it.find(&arena, b"abd"), Some(b));
        assert_eq!(it.find(&arena, b"zzz"), None);
        assert_eq!(arena.get(a).as_bytes(), b"abc");
        assert_eq!(arena.get(a).len(), 3);
        assert_eq!(arena.get(a).hash(), hash_bytes(b"abc"));
        let e = it.intern(&mut arena, b"");
        assert!(arena.get(e).is_empty());
        let bin = it.intern(&mut arena, &[0, 255, 0, 10]);
        assert_eq!(it.find(&arena, &[0, 255, 0, 10]), Some(bin));
    }

    #[test]
    fn remove_after_free_and_reintern() {
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let hs: Vec<_> =
            (0..1000).map(|i| it.intern(&mut arena, format!("s{i}").as_bytes())).collect();
        // Free every other string through a sweep, removing after the free.
        for h in hs.iter().step_by(2) {
            arena.mark(*h);
        }
        let mut freed = Vec::new();
        arena.sweep(|h, s| {
            it.remove(h, s);
            freed.push(h);
        });
        assert_eq!(freed.len(), 500);
        assert_eq!(it.len(), 500);
        assert_eq!(it.find(&arena, b"s1"), None);
        assert_eq!(it.find(&arena, b"s2"), Some(hs[2]));
        // Re-interning reuses freed slots, deterministically (LIFO).
        let n = it.intern(&mut arena, b"s1");
        assert_eq!(n, *freed.last().unwrap());
        assert_eq!(it.intern(&mut arena, b"s1"), n);
        // Removing an unknown string is a no-op.
        it.remove(StrRef::from_index(99_999), &LuaStr::new(b"s1", hash_bytes(b"s1")));
        assert_eq!(it.len(), 501);
    }

    /// A one-byte range is the registered string of that byte, through
    /// the cache or not: after the cached string is freed and its slot
    /// reused by another string, the cache is not taken for it.
    #[test]
    fn one_byte_ranges_stay_interned_across_slot_reuse() {
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let src = it.intern(&mut arena, b"xyz");
        let y = it.intern_range(&mut arena, src, 1..2);
        assert_eq!(arena.get(y).as_bytes(), b"y");
        assert_eq!(it.intern_range(&mut arena, src, 1..2), y, "the cache");
        assert_eq!(it.intern(&mut arena, b"y"), y, "the registered one");
        // Free "y"; its slot goes to "w", then "y" is interned anew.
        arena.mark(src);
        arena.sweep(|h, s| it.remove(h, s));
        let w = it.intern(&mut arena, b"w");
        assert_eq!(w, y, "the freed slot, reused");
        let y2 = it.intern_range(&mut arena, src, 1..2);
        assert_ne!(y2, w);
        assert_eq!(arena.get(y2).as_bytes(), b"y");
        assert_eq!(it.find(&arena, b"y"), Some(y2));
        assert_eq!(it.intern_range(&mut arena, src, 1..2), y2);
    }

    #[test]
    fn inline_and_heap_bytes_and_both_tables() {
        // Lengths around the inline limit (22) and the short table's (40):
        // each string keeps its bytes, is found again, and is removed from
        // the table its length chose.
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let b = noise(100);
        let hs: Vec<_> = (0..100).map(|n| it.intern(&mut arena, &b[..n])).collect();
        for (n, &h) in hs.iter().enumerate() {
            assert_eq!(arena.get(h).as_bytes(), &b[..n]);
            assert_eq!(arena.get(h).len(), n);
            assert_eq!(it.find(&arena, &b[..n]), Some(h));
        }
        assert_eq!((it.short.len(), it.long.len()), (41, 59));
        for (n, &h) in hs.iter().enumerate().filter(|(n, _)| n % 3 == 0) {
            let obj = arena.get(h).clone();
            it.remove(h, &obj);
            assert_eq!(it.find(&arena, &b[..n]), None, "length {n}");
        }
        assert_eq!(it.len(), 66);
    }

    #[test]
    fn concatenations_are_short_strings_or_loose_ones() {
        // `concat_owned` keeps the box it is given: a short result is the
        // interned string of its bytes, a longer one a new loose string,
        // outside the interner, whose twin is the interned string of the
        // same bytes once there is one.
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let b = noise(300);
        for n in 1..=300 {
            let s = it.concat_owned(&mut arena, b[..n].into());
            assert_eq!(arena.get(s).as_bytes(), &b[..n]);
            assert_eq!(arena.get(s).hash(), hash_bytes(&b[..n]), "length {n}");
            assert_eq!(arena.get(s).is_registered(), n <= SHORT, "length {n}");
            let twin = it.twin(&arena, s);
            let whole = it.intern(&mut arena, &b[..n]);
            if n <= SHORT {
                assert_eq!((twin, whole), (Some(s), s), "length {n}");
            } else {
                assert_eq!(twin, None, "length {n}");
                assert_ne!(whole, s);
                assert_eq!(it.twin(&arena, s), Some(whole), "length {n}");
            }
        }
        assert_eq!(it.len(), 300);
        let again = it.concat(&mut arena, &b[..150]);
        let loose = arena.get(again).clone();
        it.remove(again, &loose);
        it.reinsert(again, &loose);
        assert_eq!(it.len(), 300, "a loose string never enters the interner");
        assert_eq!(it.twin(&arena, again), it.find(&arena, &b[..150]));
    }

    #[test]
    fn intern_range_is_intern_of_the_bytes() {
        // Every range of a registered string and of a loose one: the string
        // `intern` gives for the same bytes, new or found, with its hash;
        // the source unchanged.
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let b = noise(90);
        let short = it.intern(&mut arena, &b[..30]);
        let loose = it.concat_owned(&mut arena, b.clone().into_boxed_slice());
        assert!(!arena.get(loose).is_registered());
        for (src, len) in [(short, 30), (loose, 90)] {
            for a in 0..=len {
                for e in (a..=len).step_by(7) {
                    let r = it.intern_range(&mut arena, src, a..e);
                    assert_eq!(arena.get(r).as_bytes(), &b[a..e], "{a}..{e}");
                    assert_eq!(arena.get(r).hash(), hash_bytes(&b[a..e]));
                    assert!(arena.get(r).is_registered());
                    assert_eq!(it.intern(&mut arena, &b[a..e]), r, "{a}..{e}");
                    assert_eq!(it.intern_range(&mut arena, src, a..e), r);
                }
            }
        }
        assert_eq!(arena.get(short).as_bytes(), &b[..30]);
        assert_eq!(arena.get(loose).as_bytes(), &b[..]);
        assert_eq!(it.intern_range(&mut arena, short, 0..30), short);
    }

    /// Bytes `0..n` of a fixed pseudo-random sequence.
    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn loose_strings_hash_when_asked() {
        // A loose string is not hashed when made; asked for, its hash is
        // `hash_bytes` of its bytes, and finds the twin `intern` made.
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let b = noise(1000);
        for n in [41, 64, 65, 200, 999] {
            let s = it.concat(&mut arena, &b[..n]);
            assert_eq!(arena.get(s).hash.get(), 0, "length {n}: not hashed yet");
            assert_eq!(it.twin(&arena, s), None);
            let whole = it.intern(&mut arena, &b[..n]);
            assert_eq!(it.twin(&arena, s), Some(whole), "length {n}");
            assert_eq!(arena.get(s).hash.get(), hash_bytes(&b[..n]), "length {n}: cached");
        }
    }

    #[test]
    fn interned_size_counts_bytes() {
        let mut arena = Arena::new();
        let mut it = Interner::new();
        let a = it.intern(&mut arena, b"x");
        let b = it.intern(&mut arena, &[7u8; 100]);
        assert_eq!(interned_size(arena.get(b)) - interned_size(arena.get(a)), 99);
    }
}
