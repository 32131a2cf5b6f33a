//! Lua tables: an array part and an insertion-ordered hash part.
//!
//! # Layout
//!
//! A [`Table`] has two parts, as in PUC Lua's `ltable.c`:
//!
//! * the **array part**, a `Vec<Value>` whose slot `i` holds key `i + 1`.
//!   Every integer key `k` with `1 <= k <= array.len()` lives here (possibly
//!   as a nil slot), and nowhere else;
//! * the **hash part**, every other key. It is an *ordered* map: an
//!   `entries` vector of `(key, value)` pairs in insertion order, plus
//!   `index`, an open-addressing table (linear probing, power-of-two size,
//!   load factor at most 1/2) of `u32` positions into `entries` (0 = empty
//!   slot, otherwise position + 1).
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
//! during a traversal anyway), or on [`Table::resize_array`].
//!
//! A rehash sizes the hash part to the next power of two (at least 4) that
//! holds the surviving keys plus the new one; when it dropped tombstones and
//! that would leave less than a quarter free, it doubles once more, so
//! insert/delete churn costs amortized O(1).
//!
//! # Iteration order (a hard rule)
//!
//! [`Table::next`] visits first the array part, keys `1..=array.len()` in
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
//! [`Table::len`] returns a border as `luaH_getn` finds it: if the array
//! part's last slot is nil, the border is in the array part (the slot
//! before it if non-nil, else by binary search); otherwise, if key
//! `array.len() + 1` is absent, it is `array.len()`; otherwise an unbound
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
//! [`Table::for_each_ref`] and [`Table::iter`] report only live entries.
//! Tombstone and dead keys are weak: they may name freed objects (the
//! handle may even be reused), but they are only ever compared, never
//! dereferenced, so that is harmless. [`Table::retain`] turns dropped hash
//! entries into tombstones, so survivors keep their order and a traversal
//! in progress can continue.

use crate::number::{float_to_int, F2I};
use crate::value::{StrRef, TableRef, Value};
use std::fmt;

/// Largest array part (2^27 slots, 2 GiB); larger integer keys live in the
/// hash part.
const MAX_ARRAY_BITS: usize = 27;
const MAX_ARRAY: usize = 1 << MAX_ARRAY_BITS;
/// Smallest nonempty hash part.
const MIN_HASH: usize = 4;

/// Error from [`Table::set`]: the key cannot be a table key.
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

/// Error from [`Table::next`]: the key is not in the table
/// ("invalid key to 'next'").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextError;

impl fmt::Display for NextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid key to 'next'")
    }
}

impl std::error::Error for NextError {}

/// One hash-part entry. `val` nil: tombstone; `key` nil: dead.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: Value,
    val: Value,
}

/// A Lua table.
#[derive(Debug, Default)]
pub struct Table {
    /// The metatable.
    pub meta: Option<TableRef>,
    /// Metamethod-absence cache owned by the runtime; reset to 0 by every
    /// assignment to a string key.
    pub flags: u8,
    array: Vec<Value>,
    /// Logical capacity of the array part for appends (`>= array.len()`).
    array_cap: usize,
    entries: Vec<Entry>,
    /// Maximum number of entries before a rehash (`index.len() / 2`).
    hash_cap: usize,
    index: Vec<u32>,
    /// `64 - log2(index.len())`.
    shift: u32,
}

impl Clone for Table {
    fn clone(&self) -> Table {
        let mut t = Table::default();
        t.clone_from(self);
        t
    }

    /// Copies `src` into `self` reusing `self`'s allocations (the snapshot
    /// journal copies into retired tables this way).
    fn clone_from(&mut self, src: &Table) {
        self.meta = src.meta;
        self.flags = src.flags;
        self.array.clone_from(&src.array);
        self.array_cap = src.array_cap;
        self.entries.clone_from(&src.entries);
        self.hash_cap = src.hash_cap;
        self.index.clone_from(&src.index);
        self.shift = src.shift;
    }
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

impl Table {
    /// A table with an array part of `narray` nil slots and room for
    /// `nhash` hash keys (both are hints: the array is capped at 2^27
    /// slots, the preallocated hash part at 2^20 keys).
    pub fn new(narray: usize, nhash: usize) -> Table {
        let narray = narray.min(MAX_ARRAY);
        let mut t =
            Table { array: vec![Value::Nil; narray], array_cap: narray, ..Table::default() };
        if nhash > 0 {
            t.alloc_hash(nhash.min(1 << 20).next_power_of_two().max(MIN_HASH));
        }
        t
    }

    // ----------------------------------------------------------------
    // Reads
    // ----------------------------------------------------------------

    /// Raw `t[key]` (no metamethods): nil when absent; float keys with an
    /// integral value are looked up as integers; nil and NaN give nil.
    #[inline]
    pub fn get(&self, key: Value) -> Value {
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
    pub fn get_int(&self, i: i64) -> Value {
        let idx = (i as u64).wrapping_sub(1);
        if idx < self.array.len() as u64 {
            return self.array[idx as usize];
        }
        self.get_int_hash(i)
    }

    /// Raw `t[s]` for a string key.
    #[inline]
    pub fn get_str(&self, s: StrRef) -> Value {
        if self.index.is_empty() {
            return Value::Nil;
        }
        let mask = self.index.len() - 1;
        let mut pos = (str_hash(s) >> self.shift) as usize & mask;
        loop {
            let e = self.index[pos];
            if e == 0 {
                return Value::Nil;
            }
            let ent = &self.entries[(e - 1) as usize];
            if matches!(ent.key, Value::Str(k) if k == s) {
                return ent.val;
            }
            pos = (pos + 1) & mask;
        }
    }

    #[inline(never)]
    fn get_int_hash(&self, i: i64) -> Value {
        if self.index.is_empty() {
            return Value::Nil;
        }
        let mask = self.index.len() - 1;
        let mut pos = (int_hash(i) >> self.shift) as usize & mask;
        loop {
            let e = self.index[pos];
            if e == 0 {
                return Value::Nil;
            }
            let ent = &self.entries[(e - 1) as usize];
            if matches!(ent.key, Value::Int(k) if k == i) {
                return ent.val;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Lookup of a normalized non-integer key in the hash part.
    fn get_hash(&self, key: Value) -> Value {
        match self.probe(key, key_hash(key)) {
            Probe::Found(_, e) => self.entries[e].val,
            Probe::Absent => Value::Nil,
        }
    }

    /// Finds a normalized key in the hash part (live, tombstone).
    #[inline]
    fn probe(&self, key: Value, h: u64) -> Probe {
        if self.index.is_empty() {
            return Probe::Absent;
        }
        let mask = self.index.len() - 1;
        let mut pos = (h >> self.shift) as usize & mask;
        loop {
            let e = self.index[pos];
            if e == 0 {
                return Probe::Absent;
            }
            if key_eq(self.entries[(e - 1) as usize].key, key) {
                return Probe::Found(pos, (e - 1) as usize);
            }
            pos = (pos + 1) & mask;
        }
    }

    // ----------------------------------------------------------------
    // Writes
    // ----------------------------------------------------------------

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
        if idx < self.array.len() as u64 {
            if let Some(slot) = self.array.get_mut(idx as usize) {
                *slot = v;
                return;
            }
        }
        self.set_int_slow(i, v);
    }

    /// Raw `t[s] = v` for a string key (resets `flags`).
    #[inline]
    pub fn set_str(&mut self, s: StrRef, v: Value) {
        self.flags = 0;
        if !self.index.is_empty() {
            let mask = self.index.len() - 1;
            let mut pos = (str_hash(s) >> self.shift) as usize & mask;
            loop {
                let e = self.index[pos];
                if e == 0 {
                    break;
                }
                let ent = &mut self.entries[(e - 1) as usize];
                if matches!(ent.key, Value::Str(k) if k == s) {
                    if !ent.val.is_nil() {
                        ent.val = v;
                    } else {
                        self.revive(pos, (e - 1) as usize, v);
                    }
                    return;
                }
                pos = (pos + 1) & mask;
            }
        }
        if !v.is_nil() {
            self.insert_new(Value::Str(s), str_hash(s), v);
        }
    }

    /// Raw `t[s] = v` only if `s` is present with a non-nil value (an
    /// update, which never inserts, so a `__newindex` need not be looked
    /// for). True if done. Resets `flags`, as every string-key assignment.
    #[inline]
    pub fn set_str_existing(&mut self, s: StrRef, v: Value) -> bool {
        self.flags = 0;
        if self.index.is_empty() {
            return false;
        }
        let mask = self.index.len() - 1;
        let mut pos = (str_hash(s) >> self.shift) as usize & mask;
        loop {
            let e = self.index[pos];
            if e == 0 {
                return false;
            }
            let ent = &mut self.entries[(e - 1) as usize];
            if matches!(ent.key, Value::Str(k) if k == s) {
                if ent.val.is_nil() {
                    return false;
                }
                ent.val = v;
                return true;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Raw `t[i] = v` if it is an append to the array part within its
    /// capacity (`i` is `array.len() + 1`, `v` is not nil, the hash part is
    /// empty so it cannot hold key `i`): exactly what [`Table::set_int`]
    /// would do, without the hash probe. True if done.
    #[inline(always)]
    pub fn try_append(&mut self, i: i64, v: Value) -> bool {
        let n = self.array.len();
        if i as u64 == n as u64 + 1 && n < self.array_cap && self.entries.is_empty() && !v.is_nil()
        {
            self.array.push(v);
            return true;
        }
        false
    }

    #[inline(never)]
    fn set_int_slow(&mut self, i: i64, v: Value) {
        let key = Value::Int(i);
        let h = int_hash(i);
        if let Probe::Found(pos, e) = self.probe(key, h) {
            self.update(pos, e, v);
            return;
        }
        if v.is_nil() {
            return;
        }
        if i as u64 == self.array.len() as u64 + 1 && self.array_room_for_one() {
            self.array.push(v);
            return;
        }
        self.insert_new(key, h, v);
    }

    /// Assignment to a normalized non-integer key.
    fn set_hash(&mut self, key: Value, h: u64, v: Value) {
        if let Value::Str(_) = key {
            self.flags = 0;
        }
        match self.probe(key, h) {
            Probe::Found(pos, e) => self.update(pos, e, v),
            Probe::Absent if v.is_nil() => {}
            Probe::Absent => self.insert_new(key, h, v),
        }
    }

    /// Assigns to an existing entry (live or tombstone).
    #[inline]
    fn update(&mut self, pos: usize, e: usize, v: Value) {
        if !self.entries[e].val.is_nil() {
            self.entries[e].val = v;
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
        if e + 1 == self.entries.len() {
            // Already last: reviving in place is the same order.
            self.entries[e].val = v;
            return;
        }
        let key = self.entries[e].key;
        self.entries[e].key = Value::Nil;
        if self.entries.len() < self.hash_cap {
            self.index[pos] = self.entries.len() as u32 + 1;
            self.entries.push(Entry { key, val: v });
        } else {
            self.rehash_and_set(key, v);
        }
    }

    /// Inserts a key known to be absent (not even a tombstone).
    fn insert_new(&mut self, key: Value, h: u64, v: Value) {
        if self.entries.len() >= self.hash_cap {
            self.rehash_and_set(key, v);
            return;
        }
        let mask = self.index.len() - 1;
        let mut pos = (h >> self.shift) as usize & mask;
        while self.index[pos] != 0 {
            pos = (pos + 1) & mask;
        }
        self.index[pos] = self.entries.len() as u32 + 1;
        self.entries.push(Entry { key, val: v });
    }

    /// Whether key `array.len() + 1` may be appended to the array part,
    /// growing its logical capacity if it pays (see the module docs).
    fn array_room_for_one(&mut self) -> bool {
        let n = self.array.len();
        if n < self.array_cap {
            return true;
        }
        let new_cap = (n * 2).clamp(1, MAX_ARRAY);
        if new_cap <= n {
            return false;
        }
        let used = self.array.iter().filter(|v| !v.is_nil()).count();
        if (used + 1) * 2 > new_cap {
            self.array_cap = new_cap;
            self.array.reserve(new_cap - n);
            true
        } else {
            false
        }
    }

    // ----------------------------------------------------------------
    // Rehash
    // ----------------------------------------------------------------

    /// Rehash for the insertion of absent key `key` (value `v`), then
    /// inserts it.
    #[cold]
    fn rehash_and_set(&mut self, key: Value, v: Value) {
        let extra_int = match key {
            Value::Int(i) if i >= 1 => Some(i as u64),
            _ => None,
        };
        let na = self.optimal_array_size(extra_int);
        let extra_in_hash = !matches!(extra_int, Some(k) if k <= na as u64);
        self.rebuild(na, usize::from(extra_in_hash));
        match key {
            Value::Int(i) => self.set_int(i, v),
            _ => self.insert_new(key, key_hash(key), v),
        }
    }

    /// `computesizes` over the array part, the hash part's positive integer
    /// keys and `extra`; the current size if no positive integer key is
    /// involved.
    fn optimal_array_size(&self, extra: Option<u64>) -> usize {
        let mut nums = [0usize; MAX_ARRAY_BITS + 1];
        let mut total = 0usize;
        for ent in self.live_entries() {
            if let Value::Int(k) = ent.key {
                total += count_key(&mut nums, k as u64);
            }
        }
        if let Some(k) = extra {
            total += count_key(&mut nums, k);
        }
        if total == 0 {
            return self.array.len();
        }
        for (i, v) in self.array.iter().enumerate() {
            if !v.is_nil() {
                total += count_key(&mut nums, i as u64 + 1);
            }
        }
        computesizes(&nums, total)
    }

    /// Rebuilds both parts: the array part gets size `na` (absorbing hash
    /// keys in range, or spilling its keys above `na` to the end of the hash
    /// order), tombstones and dead entries are dropped, and the hash part
    /// gets room for its live keys plus `reserve` more.
    fn rebuild(&mut self, na: usize, reserve: usize) {
        let mut entries = std::mem::take(&mut self.entries);
        let before = entries.len();
        entries.retain(|e| !e.val.is_nil());
        let had_garbage = entries.len() != before;
        let old_len = self.array.len();
        if na < old_len {
            for (i, v) in self.array.iter().enumerate().skip(na) {
                if !v.is_nil() {
                    entries.push(Entry { key: Value::Int(i as i64 + 1), val: *v });
                }
            }
            self.array.truncate(na);
            self.array.shrink_to(na);
            self.array_cap = na;
        } else if na > old_len {
            self.array.resize(na, Value::Nil);
            self.array_cap = na;
            let array = &mut self.array;
            entries.retain(|e| match e.key {
                Value::Int(k) if (k as u64).wrapping_sub(1) < na as u64 => {
                    array[(k - 1) as usize] = e.val;
                    false
                }
                _ => true,
            });
        }
        let need = entries.len() + reserve;
        let mut cap = if need == 0 { 0 } else { need.next_power_of_two().max(MIN_HASH) };
        if had_garbage && need * 4 > cap * 3 {
            // Churn: keep a quarter free so rehashes stay amortized O(1).
            cap *= 2;
        }
        self.alloc_index(cap);
        entries.reserve_exact(cap.saturating_sub(entries.len()));
        if entries.capacity() > 2 * cap.max(1) {
            entries.shrink_to(cap);
        }
        for (e, ent) in entries.iter().enumerate() {
            let mask = self.index.len() - 1;
            let mut pos = (key_hash(ent.key) >> self.shift) as usize & mask;
            while self.index[pos] != 0 {
                pos = (pos + 1) & mask;
            }
            self.index[pos] = e as u32 + 1;
        }
        self.entries = entries;
    }

    /// Empty hash part with room for `cap` entries (a power of two or 0).
    fn alloc_hash(&mut self, cap: usize) {
        self.alloc_index(cap);
        self.entries = Vec::with_capacity(cap);
    }

    /// An empty index for `cap` entries (a power of two or 0).
    fn alloc_index(&mut self, cap: usize) {
        self.hash_cap = cap;
        if cap == 0 {
            self.index = Vec::new();
            self.shift = 64;
        } else {
            let n = cap * 2;
            self.index = vec![0; n];
            self.shift = 64 - n.trailing_zeros();
        }
    }

    /// Live hash entries in order.
    fn live_entries(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.entries.iter().filter(|e| !e.val.is_nil())
    }

    /// Sets the array part's size to `n` (clamped to 2^27): growing absorbs
    /// hash keys in `1..=n`, shrinking moves the array's keys above `n` to
    /// the end of the hash order (ascending). Rebuilds the hash part, so it
    /// drops tombstones: do not call it during a traversal that deletes keys.
    pub fn resize_array(&mut self, n: usize) {
        self.rebuild(n.min(MAX_ARRAY), 0);
    }

    // ----------------------------------------------------------------
    // Length and traversal
    // ----------------------------------------------------------------

    /// The length operator `#t` (raw): a border, found as `luaH_getn` does
    /// (see the module documentation).
    pub fn len(&self) -> i64 {
        let n = self.array.len();
        if n > 0 && self.array[n - 1].is_nil() {
            if n >= 2 && !self.array[n - 2].is_nil() {
                return (n - 1) as i64;
            }
            return binsearch(&self.array, 0, n) as i64;
        }
        if self.entries.is_empty() || self.get_int_hash(n as i64 + 1).is_nil() {
            return n as i64;
        }
        self.hash_search(n as u64)
    }

    /// `hash_search`: `t[j]` present (or `j == 0`), `t[j + 1]` present.
    fn hash_search(&self, mut j: u64) -> i64 {
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
    pub fn next(&self, key: Value) -> Result<Option<(Value, Value)>, NextError> {
        let pos = match self.position_after(key) {
            Some(p) => p,
            None => return Err(NextError),
        };
        Ok(self.next_at(pos).map(|(_, k, v)| (k, v)))
    }

    /// The traversal position just after `key` (0 for nil), or `None` if
    /// the key is not in the table.
    pub fn position_after(&self, key: Value) -> Option<usize> {
        let n = self.array.len();
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
    /// until the next rehash (an insertion, or [`Table::resize_array`]);
    /// this avoids the key lookup that [`Table::next`] does at each step.
    #[inline]
    pub fn next_at(&self, pos: usize) -> Option<(usize, Value, Value)> {
        let n = self.array.len();
        if pos < n {
            if let Some(i) = self.array[pos..].iter().position(|v| !v.is_nil()) {
                let p = pos + i;
                return Some((p + 1, Value::Int(p as i64 + 1), self.array[p]));
            }
        }
        let start = pos.saturating_sub(n);
        let tail = self.entries.get(start..)?;
        let i = tail.iter().position(|e| !e.val.is_nil())?;
        let ent = tail[i];
        Some((n + start + i + 1, ent.key, ent.val))
    }

    /// True when the table has no non-nil value.
    pub fn is_empty(&self) -> bool {
        self.next_at(0).is_none()
    }

    // ----------------------------------------------------------------
    // Collector support and introspection
    // ----------------------------------------------------------------

    /// Every live key and value (array values with their integer keys),
    /// in traversal order.
    pub fn iter(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        let arr = self
            .array
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_nil())
            .map(|(i, v)| (Value::Int(i as i64 + 1), *v));
        arr.chain(self.live_entries().map(|e| (e.key, e.val)))
    }

    /// Calls `f` on every live key and value, and on the metatable (the
    /// strong references of a non-weak table).
    pub fn for_each_ref(&self, mut f: impl FnMut(Value)) {
        if let Some(m) = self.meta {
            f(Value::Table(m));
        }
        self.array.iter().filter(|v| !v.is_nil()).for_each(|v| f(*v));
        for e in self.live_entries() {
            f(e.key);
            f(e.val);
        }
    }

    /// Keeps only the live pairs for which `f(key, value)` is true (for weak
    /// tables). Dropped array slots become nil and dropped hash entries
    /// tombstones, so survivors keep their order and `next` still accepts
    /// dropped keys until the next rehash.
    pub fn retain(&mut self, mut f: impl FnMut(Value, Value) -> bool) {
        for (i, v) in self.array.iter_mut().enumerate() {
            if !v.is_nil() && !f(Value::Int(i as i64 + 1), *v) {
                *v = Value::Nil;
            }
        }
        for e in self.entries.iter_mut() {
            if !e.val.is_nil() && !f(e.key, e.val) {
                e.val = Value::Nil;
            }
        }
    }

    /// Size of the array part (slots, nil or not).
    pub fn array_len_raw(&self) -> usize {
        self.array.len()
    }

    /// Hints the CPU to fetch the first cache lines of the array part and
    /// of the hash part's entries (for traversals that know which table
    /// they will read next; see `prefetch.rs`).
    #[inline]
    pub(crate) fn prefetch_parts(&self) {
        use crate::prefetch::prefetch_read;
        prefetch_read(self.array.as_ptr());
        let e = self.entries.as_ptr();
        prefetch_read(e);
        prefetch_read(e.wrapping_add(2));
        prefetch_read(e.wrapping_add(4));
    }

    /// The array part: slot `i` holds key `i + 1`.
    pub fn array(&self) -> &[Value] {
        &self.array
    }

    /// The array part, mutable (for `table.sort`, `table.insert`, ...):
    /// writing through it is the same as [`Table::set_int`] in range.
    pub fn array_mut(&mut self) -> &mut [Value] {
        &mut self.array
    }

    /// Approximate heap bytes, from logical sizes only (deterministic).
    pub fn estimated_bytes(&self) -> usize {
        std::mem::size_of::<Table>()
            + self.array_cap * std::mem::size_of::<Value>()
            + self.hash_cap * std::mem::size_of::<Entry>()
            + self.index.len() * std::mem::size_of::<u32>()
    }
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
    fn keys(t: &Table) -> Vec<Value> {
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
        let mut t = Table::new(0, 0);
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
            &keys(&t),
            &[int(1), int(-5), int(0), tbl(3), Value::Bool(true), Value::Float(0.5)]
        ));
    }

    #[test]
    fn nil_and_nan_keys() {
        let mut t = Table::new(0, 0);
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
        let mut t = Table::new(0, 0);
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
        let ks = keys(&t);
        assert!(ks.iter().any(|k| matches!(k, Value::Int(i) if *i == 1 << 53)));
        assert!(ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two63)));
        assert!(!ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two53)));
        // next accepts the float spelling of an integer key
        assert!(t.next(Value::Float(1.0)).is_ok());
    }

    #[test]
    fn order_mixed_types_is_insertion_order() {
        let mut t = Table::new(0, 0);
        let ks = [s(9), int(100), tbl(1), s(2), Value::Bool(false), int(-1), Value::Float(2.5)];
        for k in ks {
            t.set(k, int(1)).unwrap();
        }
        assert!(same(&keys(&t), &ks));
        // updates do not move keys
        t.set(s(9), int(2)).unwrap();
        t.set(int(100), int(2)).unwrap();
        assert!(same(&keys(&t), &ks));
    }

    #[test]
    fn array_part_first_then_hash() {
        let mut t = Table::new(0, 0);
        t.set(s(1), int(1)).unwrap();
        for i in 1..=5 {
            t.set_int(i, int(i));
        }
        t.set(s(2), int(1)).unwrap();
        assert_eq!(t.array_len_raw(), 5);
        assert!(same(&keys(&t), &[int(1), int(2), int(3), int(4), int(5), s(1), s(2)]));
    }

    #[test]
    fn deletion_during_traversal() {
        let mut t = Table::new(0, 0);
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
        assert!(keys(&t).is_empty());
    }

    #[test]
    fn next_after_deleted_key_continues() {
        let mut t = Table::new(0, 0);
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
        let mut t = Table::new(0, 0);
        for i in 0..4 {
            t.set(s(i), int(1)).unwrap();
        }
        t.set(s(1), Value::Nil).unwrap();
        assert!(same(&keys(&t), &[s(0), s(2), s(3)]));
        t.set(s(1), int(5)).unwrap();
        assert!(same(&keys(&t), &[s(0), s(2), s(3), s(1)]));
        assert!(t.get(s(1)).raw_eq(int(5)));
        // reinserting the last key keeps it last
        t.set(s(1), Value::Nil).unwrap();
        t.set(s(1), int(6)).unwrap();
        assert!(same(&keys(&t), &[s(0), s(2), s(3), s(1)]));
        // deleting and reinserting many times stays correct through rehashes
        for round in 0..100 {
            let k = s(round % 4);
            t.set(k, Value::Nil).unwrap();
            t.set(k, int(round as i64)).unwrap();
            let ks = keys(&t);
            assert!(key_eq(*ks.last().unwrap(), k));
            assert_eq!(ks.len(), 4);
        }
        assert!(t.estimated_bytes() < 1024, "{}", t.estimated_bytes());
    }

    #[test]
    fn array_migration_on_rehash() {
        let mut t = Table::new(0, 0);
        // 3, 2 go to the hash part first (not appendable)
        t.set_int(3, int(3));
        t.set(s(0), int(0)).unwrap();
        t.set_int(2, int(2));
        assert_eq!(t.array_len_raw(), 0);
        assert!(same(&keys(&t), &[int(3), s(0), int(2)]));
        // key 1 is appended; then a new key rehashes and absorbs 2 and 3
        t.set_int(1, int(1));
        t.set(s(1), int(1)).unwrap();
        t.set_int(4, int(4));
        assert!(t.array_len_raw() >= 4, "{}", t.array_len_raw());
        assert!(same(&keys(&t), &[int(1), int(2), int(3), int(4), s(0), s(1)]));
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn array_shrinks_when_sparse() {
        let mut t = Table::new(0, 0);
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
        assert!(same(&keys(&t), &[int(63), int(64), int(1000)]));
    }

    #[test]
    fn queue_pattern_stays_small() {
        let mut t = Table::new(0, 0);
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
        assert_eq!(keys(&t).len(), 10);
    }

    #[test]
    fn sequence_building_uses_array() {
        let mut t = Table::new(0, 0);
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
        let mut t = Table::new(3, 0);
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
        let mut t = Table::new(2, 0);
        t.set_int(1, int(1));
        t.set_int(2, int(2));
        t.set(s(0), int(0)).unwrap();
        t.set_int(3, int(3));
        t.set_int(4, int(4));
        t.set_int(5, int(5));
        assert_eq!(t.len(), 5);
        // only hash keys
        let mut t = Table::new(0, 4);
        t.set_int(2, int(2));
        assert_eq!(t.len(), 0);
        t.set_int(1, int(1));
        assert_eq!(t.len(), 2);
        // a border is always returned
        let mut t = Table::new(0, 0);
        for i in [1, 2, 3, 5, 8, 9, 10, 20] {
            t.set_int(i, int(i));
        }
        let n = t.len();
        assert!(n == 0 || !t.get_int(n).is_nil());
        assert!(t.get_int(n + 1).is_nil());
        // max integer border
        let mut t = Table::new(0, 0);
        t.set_int(1, int(1));
        t.set_int(2, int(1));
        t.set_int(i64::MAX, int(1));
        let n = t.len();
        assert!(t.get_int(n + 1).is_nil() && !t.get_int(n).is_nil());
    }

    #[test]
    fn flags_reset_on_string_assignment() {
        let mut t = Table::new(0, 0);
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
        let mut t = Table::new(0, 0);
        for i in 1..=4 {
            t.set_int(i, tbl(i as u32));
        }
        for i in 0..6 {
            t.set(s(i), tbl(10 + i)).unwrap();
        }
        t.meta = Some(TableRef::from_index(99));
        let mut n = 0;
        t.for_each_ref(|_| n += 1);
        assert_eq!(n, 1 + 4 + 12);
        assert_eq!(t.iter().count(), 10);
        // drop the odd ones
        t.retain(|_, v| matches!(v, Value::Table(h) if h.index() % 2 == 0));
        assert!(same(&keys(&t), &[int(2), int(4), s(0), s(2), s(4)]));
        // dropped keys are still valid positions for next
        assert!(t.next(s(1)).unwrap().is_some());
        let mut n = 0;
        t.for_each_ref(|_| n += 1);
        assert_eq!(n, 1 + 2 + 6);
    }

    #[test]
    fn resize_array_grow_and_shrink() {
        let mut t = Table::new(0, 0);
        t.set(s(0), int(0)).unwrap();
        t.set_int(3, int(3));
        t.set_int(2, int(2));
        t.resize_array(4);
        assert_eq!(t.array_len_raw(), 4);
        assert!(same(&keys(&t), &[int(2), int(3), s(0)]));
        t.set_int(4, int(4));
        t.resize_array(1);
        assert!(same(&keys(&t), &[s(0), int(2), int(3), int(4)]));
        t.resize_array(0);
        assert_eq!(t.array_len_raw(), 0);
        assert!(same(&keys(&t), &[s(0), int(2), int(3), int(4)]));
    }

    #[test]
    fn array_accessors() {
        let mut t = Table::new(0, 0);
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
            let mut t = Table::new(0, 0);
            let mut rng = Rng(42);
            for _ in 0..20_000 {
                let k = random_key(&mut rng);
                let v = if rng.below(4) == 0 { Value::Nil } else { int(rng.below(100) as i64) };
                t.set(k, v).unwrap();
            }
            keys(&t)
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
        let mut t = Table::new(0, 0);
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
                let got = keys(&t);
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
/// [`Table::from_parts`] rebuilds from the entries.
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

impl Table {
    /// The table's layout (see [`TableParts`]).
    pub fn to_parts(&self) -> TableParts {
        TableParts {
            meta: self.meta,
            flags: self.flags,
            array: self.array.clone(),
            array_cap: self.array_cap,
            entries: self.entries.iter().map(|e| (e.key, e.val)).collect(),
            hash_cap: self.hash_cap,
        }
    }

    /// Rebuilds a table from its layout, checking every invariant of the
    /// module docs that lookups and traversal rely on: capacities in range,
    /// keys normalized (no NaN, no integral float), no key twice, no
    /// integer key of the array part's range in the hash part, dead entries
    /// without a value. The probe index is rebuilt from the entries, so a
    /// lookup finds exactly the keys listed. Handles are not checked here.
    pub fn from_parts(p: TableParts) -> Result<Table, String> {
        let n = p.array.len();
        if p.array_cap < n || p.array_cap > MAX_ARRAY {
            return Err(format!("array capacity {} for {} slots", p.array_cap, n));
        }
        let cap = p.hash_cap;
        let cap_ok = cap == 0 || (cap.is_power_of_two() && cap >= MIN_HASH);
        let cap_bound = (1 << 20usize).max(4 * (p.entries.len() + 1));
        if !cap_ok || cap > cap_bound || p.entries.len() > cap {
            return Err(format!("hash capacity {cap} for {} entries", p.entries.len()));
        }
        let mut t = Table {
            meta: p.meta,
            flags: p.flags,
            array: p.array,
            array_cap: p.array_cap,
            ..Table::default()
        };
        t.alloc_hash(cap);
        for (key, val) in p.entries {
            check_part_key(key, val, n)?;
            if !key.is_nil() {
                if let Probe::Found(..) = t.probe(key, key_hash(key)) {
                    return Err("a key twice in the hash part".into());
                }
                let mask = t.index.len() - 1;
                let mut pos = (key_hash(key) >> t.shift) as usize & mask;
                while t.index[pos] != 0 {
                    pos = (pos + 1) & mask;
                }
                t.index[pos] = t.entries.len() as u32 + 1;
            }
            t.entries.push(Entry { key, val });
        }
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
