//! Typed arenas: where every collectable object lives.
//!
//! Each object kind (strings, tables, closures, ...) has its own
//! [`Arena<T>`], a vector of slots addressed by a 32-bit index wrapped in a
//! typed [`Handle<T>`]. A handle is not a pointer: it stays valid when the
//! arena's storage is reallocated, it can be serialized as is, and it means
//! the same object in any process that replays the same program. This is
//! what makes snapshot, rollback and graph traversal plain data operations.
//!
//! Freed slots go onto a LIFO free list and are reused before the arena
//! grows, so allocation is a pure function of the sequence of allocations
//! and frees, which the collector makes deterministic by sweeping in index
//! order.
//!
//! # The undo journal
//!
//! Snapshot and rollback (`snapshot.rs`) do not copy the heap: each arena
//! keeps an undo journal organised in *levels*, one per open snapshot
//! (nested snapshots are savepoints). A level records, at the snapshot, the
//! number of slots (slots at or above it are new: a rollback truncates
//! them), the live count, and the free list's length. From then on:
//!
//! * the first [`Arena::get_mut`] of an old slot since the innermost
//!   snapshot saves a copy of the object ([`SnapClone`]) in the journal;
//!   a dirty bitmap (one bit per old slot) makes later accesses free;
//! * [`Arena::free`] and [`Arena::sweep`] *move* the object into the journal
//!   (no copy) if the slot was not saved yet;
//! * an allocation into a reused old slot saves "was free";
//! * the free list is a LIFO stack, so it only ever loses entries from the
//!   top: the level keeps the lowest length reached (its low-water mark) and
//!   the entries popped below it, which is enough to rebuild it exactly.
//!
//! A rollback of the innermost level puts every saved slot back, truncates
//! the new slots and the free list, re-pushes the popped entries and resets
//! the live count: its cost is proportional to what changed. Committing a
//! level folds its entries into the enclosing level, keeping the older
//! saved content of a slot saved by both, or drops them at the outermost
//! level. An object that cannot be copied is recorded as *poisoned*; the
//! caller refuses to roll back over it ([`Arena::journal_poison`]).
//!
//! With no snapshot open the journal costs one predictable branch per
//! `get_mut`, `alloc` and `free`. The collector's state of the arena (mark
//! bits, barrier, sweep cursor: `arena/marks.rs`) is saved whole when a
//! level opens, a few words when no cycle runs.
//!
//! **Invariants:**
//! * a live handle always names an occupied slot (the collector frees only
//!   unreachable objects, and nothing outside the heap holds a handle that is
//!   not rooted);
//! * mutation goes through [`Arena::get_mut`] (the hook for snapshot dirty
//!   tracking); there is no interior mutability;
//! * while journaling, a slot below the innermost level's slot count has its
//!   dirty bit set exactly when the innermost level holds an entry for it,
//!   and each level holds at most one entry per slot.

mod marks;

pub(crate) use marks::Marks;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// A typed index into an arena of `T`s (one arena per object kind).
pub struct Handle<T> {
    idx: u32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// Wraps a raw index. The caller vouches that it names a live object.
    #[inline(always)]
    pub const fn from_index(idx: u32) -> Self {
        Handle { idx, _marker: PhantomData }
    }
    /// The raw slot index.
    #[inline(always)]
    pub const fn index(self) -> u32 {
        self.idx
    }
}

impl<T> Clone for Handle<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.idx == other.idx
    }
}
impl<T> Eq for Handle<T> {}
impl<T> Hash for Handle<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.idx.hash(state)
    }
}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.idx.cmp(&other.idx)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.idx)
    }
}

/// A copy of an object for the snapshot journal (see [`Arena::get_mut`]).
///
/// The copy must be indistinguishable from the original for everything the
/// VM does next, including what depends on allocation capacities (a
/// thread's stack capacity enters the collector's accounting), so it is
/// not always `Clone::clone`. A type whose values cannot always be copied
/// (a userdata with an opaque payload) returns the name of what could not
/// be copied. The heap's types implement it in `snapshot.rs`; plain `Clone`
/// types can use `snap_clone_by_clone!`.
pub trait SnapClone: Sized {
    /// A copy of `self`, or the name of the type that cannot be copied.
    fn snap_clone(&self) -> Result<Self, &'static str>;
}

/// Implements [`SnapClone`] as `Clone::clone` for the listed types (for
/// types whose observable behaviour does not depend on capacities).
macro_rules! snap_clone_by_clone {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::arena::SnapClone for $t {
            #[inline]
            fn snap_clone(&self) -> Result<Self, &'static str> {
                Ok(::std::clone::Clone::clone(self))
            }
        })*
    };
}
pub(crate) use snap_clone_by_clone;

/// What the journal saved of a slot: its content at the snapshot.
#[derive(Clone, Debug)]
enum Saved<T> {
    /// The slot was free.
    Free,
    /// The slot held this object.
    Obj(T),
    /// The slot held an object that could not be copied (its type name).
    Poison(&'static str),
}

/// One journal level (one snapshot), as seen by one arena.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// Number of slots at the snapshot: slots at or above are new.
    slots: u32,
    /// Low-water mark of the free list since the snapshot: the entries
    /// below it were never popped.
    low: usize,
    /// Where this level's popped free-list entries start in `popped`.
    popped_start: usize,
    /// Where this level's saved slots start in `entries`.
    start: usize,
    /// Live count at the snapshot.
    live: usize,
}

/// The undo journal of an arena (see the module docs).
#[derive(Clone, Debug)]
struct Jr<T> {
    /// Open levels, outermost first.
    levels: Vec<Level>,
    /// Saved slots of every level, level after level.
    entries: Vec<(u32, Saved<T>)>,
    /// Free-list entries popped below a level's low-water mark, in pop order.
    popped: Vec<u32>,
    /// One bit per slot below `limit`: saved since the innermost snapshot.
    dirty: Vec<u64>,
    /// `slots` of the innermost level.
    limit: u32,
    /// The collector's state at each level's opening (`arena/marks.rs`).
    marks: Vec<Marks>,
}

impl<T> Default for Jr<T> {
    fn default() -> Self {
        Jr {
            levels: Vec::new(),
            entries: Vec::new(),
            popped: Vec::new(),
            dirty: Vec::new(),
            limit: 0,
            marks: Vec::new(),
        }
    }
}

impl<T> Jr<T> {
    /// Whether slot `idx` (below `limit`) still needs saving at the
    /// innermost level; marks it saved.
    #[inline]
    fn first_touch(&mut self, idx: u32) -> bool {
        if idx >= self.limit {
            return false;
        }
        let (w, b) = (idx as usize / 64, idx % 64);
        let word = &mut self.dirty[w];
        let fresh = *word & (1 << b) == 0;
        *word |= 1 << b;
        fresh
    }

    fn set_bit(&mut self, idx: u32, on: bool) {
        let (w, b) = (idx as usize / 64, idx % 64);
        if on {
            self.dirty[w] |= 1 << b;
        } else {
            self.dirty[w] &= !(1 << b);
        }
    }

    /// Sets or clears the dirty bits of the entries from `from` on.
    fn mark_entries(&mut self, from: usize, on: bool) {
        for i in from..self.entries.len() {
            let idx = self.entries[i].0;
            self.set_bit(idx, on);
        }
    }

    /// Records a free-list pop that left `len_after` entries.
    #[inline]
    fn on_pop(&mut self, idx: u32, len_after: usize) {
        if let Some(top) = self.levels.last_mut() {
            if len_after < top.low {
                top.low = len_after;
                self.popped.push(idx);
            }
        }
    }
}

/// Sweep work for a slot passed (a bit and a slot read in sequence).
pub const SWEEP_PASS: usize = 8;

/// Sweep work for an object freed, beyond [`SWEEP_PASS`] (its memory is
/// touched at random: a cache miss or two).
pub const SWEEP_FREE: usize = 504;

/// A vector of slots with a free list, a mark bitmap and an undo journal.
#[derive(Clone)]
pub struct Arena<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    marks: Marks,
    live: usize,
    /// Whether a snapshot is open.
    on: bool,
    /// `on` or the collector's barrier: the one branch of `get_mut`.
    hook: bool,
    /// The journal; kept when the last level closes, to reuse its buffers.
    jr: Box<Jr<T>>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            free: Vec::new(),
            marks: Marks::default(),
            live: 0,
            on: false,
            hook: false,
            jr: Box::default(),
        }
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value` and returns its handle, reusing the most recently
    /// freed slot if there is one. Always inlined, so that the object is
    /// written from where its maker built it: passed out of line, it was
    /// built on the Rust stack in pieces and copied with 16-byte loads
    /// that waited for those stores (three fifths of `alloc`'s time for
    /// closures and new strings).
    #[inline(always)]
    pub fn alloc(&mut self, value: T) -> Handle<T> {
        self.live += 1;
        if let Some(idx) = self.free.pop() {
            if self.on {
                self.journal_reuse(idx);
            }
            self.slots[idx as usize] = Some(value);
            self.born(idx);
            return Handle::from_index(idx);
        }
        let idx = self.slots.len() as u32;
        self.slots.push(Some(value));
        if self.slots.len() > self.marks.bits.len() * 64 {
            self.marks.bits.push(0);
        }
        self.born(idx);
        Handle::from_index(idx)
    }

    /// An object born where the sweep has not passed yet is marked, so
    /// that the sweep spares it (`arena/marks.rs`).
    /// In generational mode, every birth is listed young.
    #[inline(always)]
    fn born(&mut self, idx: u32) {
        if let Some(from) = self.marks.sweep_from {
            if idx >= from {
                self.marks.set(idx);
            }
        }
        if self.marks.gen {
            self.marks.young.push(idx);
        }
    }

    /// The object behind `h`. Panics if the slot is free, which would be a
    /// collector bug (see the module invariants).
    #[inline(always)]
    pub fn get(&self, h: Handle<T>) -> &T {
        match self.slots.get(h.idx as usize) {
            Some(Some(v)) => v,
            _ => dangling(h.idx),
        }
    }

    /// The object behind `h`, without checking the slot.
    ///
    /// # Safety
    ///
    /// `h` names an occupied slot: it was read from a value reachable by
    /// the collector (a register of the running frame, say), and the
    /// collector frees only unreachable objects (the module invariants).
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, h: Handle<T>) -> &T {
        debug_assert!(matches!(self.slots.get(h.idx as usize), Some(Some(_))));
        // SAFETY: the caller's contract: the slot exists and is occupied.
        unsafe { self.slots.get_unchecked(h.idx as usize).as_ref().unwrap_unchecked() }
    }

    /// The object behind a raw index, if the slot is occupied.
    pub fn try_get(&self, idx: u32) -> Option<&T> {
        self.slots.get(idx as usize).and_then(|s| s.as_ref())
    }

    /// Saves "was free" for an old slot reused by an allocation.
    #[inline(never)]
    fn journal_reuse(&mut self, idx: u32) {
        let jr = &mut *self.jr;
        jr.on_pop(idx, self.free.len());
        if jr.first_touch(idx) {
            jr.entries.push((idx, Saved::Free));
        }
    }

    /// Moves a freed object into the journal if its slot needs saving,
    /// else drops it.
    #[inline]
    fn journal_freed(&mut self, idx: u32, v: T) {
        if self.on && self.jr.first_touch(idx) {
            self.jr.entries.push((idx, Saved::Obj(v)));
        }
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Number of slots (live or free); the exclusive upper bound of indices.
    pub fn capacity_slots(&self) -> usize {
        self.slots.len()
    }

    /// The free list, bottom to top (the last index is reused first).
    pub fn free_list(&self) -> &[u32] {
        &self.free
    }

    /// Every slot, in index order (`None` for a free one): the arena's
    /// layout, for writing a snapshot to bytes.
    pub fn raw_slots(&self) -> &[Option<T>] {
        &self.slots
    }

    /// Rebuilds an arena from its layout ([`Arena::raw_slots`] and
    /// [`Arena::free_list`]). Fails unless every free slot is on the free
    /// list exactly once and nothing else is.
    pub fn from_raw_parts(slots: Vec<Option<T>>, free: Vec<u32>) -> Result<Self, String> {
        let mut seen = vec![false; slots.len()];
        for &i in &free {
            match slots.get(i as usize) {
                Some(None) if !seen[i as usize] => seen[i as usize] = true,
                Some(None) => return Err(format!("slot {i} twice on the free list")),
                Some(Some(_)) => return Err(format!("occupied slot {i} on the free list")),
                None => return Err(format!("free-list index {i} out of range")),
            }
        }
        let empty = slots.iter().filter(|s| s.is_none()).count();
        if empty != free.len() {
            return Err("a free slot is missing from the free list".into());
        }
        let live = slots.len() - empty;
        let marks = Marks { bits: vec![0; slots.len().div_ceil(64)], ..Marks::default() };
        Ok(Arena { slots, free, marks, live, on: false, hook: false, jr: Box::default() })
    }

    /// Iterates over live objects in index order.
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|v| (Handle::from_index(i as u32), v)))
    }

    /// Sets the mark bit of `h`; returns true if it was not set before.
    #[inline]
    pub fn mark(&mut self, h: Handle<T>) -> bool {
        self.marks.set(h.idx)
    }

    /// Whether `h` is marked.
    #[inline]
    pub fn is_marked(&self, h: Handle<T>) -> bool {
        self.marks.get(h.idx)
    }

    /// The collector's state of this arena (`arena/marks.rs`).
    pub(crate) fn marks(&self) -> &Marks {
        &self.marks
    }

    /// Replaces the collector's state (loading a saved state); fails if it
    /// does not fit the arena.
    pub(crate) fn set_marks(&mut self, mut m: Marks) -> Result<(), String> {
        if m.clear && m.bits.is_empty() {
            m.bits = vec![0; self.slots.len().div_ceil(64)];
        }
        if m.bits.len() != self.slots.len().div_ceil(64) {
            return Err("a mark bitmap of the wrong size".into());
        }
        let occupied = |i: u32| matches!(self.slots.get(i as usize), Some(Some(_)));
        let marked_free = (0..self.slots.len() as u32).any(|i| m.get(i) && !occupied(i));
        let young_ok = m.young.iter().chain(&m.survival).all(|&i| occupied(i) && !m.get(i))
            && m.old1.iter().all(|&i| occupied(i));
        if marked_free || !young_ok || !m.again.iter().all(|&i| occupied(i)) {
            return Err("a mark on a free slot".into());
        }
        if m.sweep_from.is_some_and(|c| c as usize > self.slots.len()) {
            return Err("a sweep cursor beyond the arena".into());
        }
        if m.clear && m.bits.iter().any(|&w| w != 0) {
            return Err("marks said clear are not".into());
        }
        self.marks = m;
        self.hook = self.on || self.marks.watch;
        Ok(())
    }

    /// Turns the barrier on or off.
    pub(crate) fn set_watch(&mut self, on: bool) {
        self.marks.watch = on;
        self.hook = self.on || on;
    }

    /// Takes the objects the barrier unmarked since the last call.
    pub(crate) fn take_again(&mut self, into: &mut Vec<u32>) {
        into.append(&mut self.marks.again);
    }

    /// The backward barrier for a change of `h` that does not go through
    /// [`Arena::get_mut`]: unmarks it and lists it to be traversed again.
    #[inline]
    pub(crate) fn barrier(&mut self, h: Handle<T>) {
        self.marks.barrier(h.idx);
    }

    /// Clears every mark and the barrier's list (a cycle abandoned).
    pub(crate) fn reset_marks(&mut self) {
        self.marks.clear_all();
        self.marks.again.clear();
        self.marks.sweep_from = None;
        self.set_watch(false);
    }

    /// Starts the sweep: every slot is ahead of the cursor.
    pub(crate) fn begin_sweep(&mut self) {
        self.marks.sweep_from = Some(0);
    }

    /// Sweeps from the cursor until `budget` units of work are done, a
    /// slot passed costing [`SWEEP_PASS`] and an object freed
    /// [`SWEEP_FREE`] more: frees the unmarked objects (calling `on_free`
    /// first) and clears the marks of the others. Returns the work done and
    /// whether the sweep reached the end (then every mark is clear).
    pub fn sweep_step(
        &mut self,
        budget: usize,
        mut on_free: impl FnMut(Handle<T>, &T),
    ) -> (usize, bool) {
        let Some(from) = self.marks.sweep_from else { return (0, true) };
        let mut i = from as usize;
        let mut work = 0;
        while i < self.slots.len() && work < budget {
            work += SWEEP_PASS;
            if !self.marks.unset(i as u32) && self.free_slot(i as u32, &mut on_free) {
                work += SWEEP_FREE;
            }
            i += 1;
        }
        if i >= self.slots.len() {
            self.marks.sweep_from = None;
            self.marks.clear = true;
            return (work, true);
        }
        self.marks.sweep_from = Some(i as u32);
        (work, false)
    }

    /// Enters (`true`) or leaves generational mode: the young list starts
    /// empty either way (`arena/marks.rs`).
    pub(crate) fn set_gen(&mut self, on: bool) {
        self.marks.gen = on;
        self.clear_ages();
    }

    /// Generational mode, at a minor collection's start: takes the objects
    /// listed `old1` by the last one (each passed to `f`, in list order),
    /// and lists instead those the barrier unmarked since, which this
    /// collection traverses again.
    pub(crate) fn take_old1(&mut self, f: impl FnMut(u32)) {
        if self.marks.old1.is_empty() && self.marks.again.is_empty() {
            return;
        }
        self.marks.old1.drain(..).for_each(f);
        self.marks.old1.extend_from_slice(&self.marks.again);
    }

    /// Empties the generational lists (every object is old or free).
    fn clear_ages(&mut self) {
        self.marks.young.clear();
        self.marks.survival.clear();
        self.marks.old1.clear();
    }

    /// A minor collection's sweep (generational mode): frees the survival
    /// objects, then the young ones, left unmarked, in list order, calling
    /// `on_free` first; a marked survival object stays marked (old) and is
    /// listed in `old1`, a marked young one is unmarked and listed as
    /// survival. Returns the number freed.
    pub(crate) fn sweep_minor(&mut self, mut on_free: impl FnMut(Handle<T>, &T)) -> usize {
        if self.marks.survival.is_empty() && self.marks.young.is_empty() {
            return 0;
        }
        let survival = std::mem::take(&mut self.marks.survival);
        let young = std::mem::take(&mut self.marks.young);
        let mut freed = 0;
        for &i in &survival {
            if self.marks.get(i) {
                self.marks.old1.push(i);
            } else {
                freed += usize::from(self.free_slot(i, &mut on_free));
            }
        }
        let mut next = survival;
        next.clear();
        for &i in &young {
            if self.marks.unset(i) {
                next.push(i);
            } else {
                freed += usize::from(self.free_slot(i, &mut on_free));
            }
        }
        self.marks.survival = next;
        self.marks.young = young;
        self.marks.young.clear();
        freed
    }

    /// A major collection's sweep (generational mode): frees every
    /// unmarked live object, in index order, calling `on_free` first; the
    /// survivors stay marked (old). Returns the number freed.
    pub(crate) fn sweep_keep_marks(&mut self, mut on_free: impl FnMut(Handle<T>, &T)) -> usize {
        let mut freed = 0;
        for w in 0..self.marks.bits.len() {
            let word = self.marks.bits[w];
            if word == u64::MAX {
                continue;
            }
            let end = ((w + 1) * 64).min(self.slots.len());
            for i in w * 64..end {
                if word & (1 << (i % 64)) == 0 {
                    freed += usize::from(self.free_slot(i as u32, &mut on_free));
                }
            }
        }
        self.clear_ages();
        freed
    }

    /// Frees slot `i` if it is occupied; true if it was.
    #[inline]
    fn free_slot(&mut self, i: u32, on_free: &mut impl FnMut(Handle<T>, &T)) -> bool {
        let Some(v) = self.slots[i as usize].take() else { return false };
        self.live -= 1;
        self.free.push(i);
        on_free(Handle::from_index(i), &v);
        self.journal_freed(i, v);
        true
    }

    /// Frees every unmarked live object, in index order, calling `on_free`
    /// for each (before it is dropped or moved into the journal), then
    /// clears all marks. Returns the number freed.
    #[cfg(test)]
    pub fn sweep(&mut self, mut on_free: impl FnMut(Handle<T>, &T)) -> usize {
        let mut freed = 0;
        self.begin_sweep();
        self.sweep_step(usize::MAX, |h, v| {
            freed += 1;
            on_free(h, v)
        });
        freed
    }
}

impl<T: SnapClone> Arena<T> {
    /// Mutable access to the object behind `h`. While a snapshot is open,
    /// the first access to an old slot saves a copy of the object (see the
    /// module docs); otherwise this costs one predictable branch.
    #[inline(always)]
    pub fn get_mut(&mut self, h: Handle<T>) -> &mut T {
        if self.hook {
            self.on_mut(h.idx);
        }
        self.live_mut(h.idx)
    }

    /// [`Arena::get_mut`] for a write that stores one value, `obj` telling
    /// whether that value is an object: storing nil, a boolean or a number
    /// into an old object cannot make it point at a young one, so the
    /// barrier is skipped then (Lua's `luaC_barrier` tests `iscollectable`
    /// first). The journal still sees every write. Either way the mark test
    /// is inline: in generational mode the barrier is on between
    /// collections, and only the first write to an old object since the
    /// last collection calls out of line (hot paths: upvalue writes, a
    /// coroutine's resume and yield).
    #[inline(always)]
    pub(crate) fn get_mut_storing(&mut self, h: Handle<T>, obj: bool) -> &mut T {
        self.before_store(h.idx, obj);
        self.live_mut(h.idx)
    }

    /// The journal's and the barrier's part of [`Arena::get_mut_storing`]
    /// for slot `idx`: inline tests, the call out of line only when owed.
    #[inline(always)]
    fn before_store(&mut self, idx: u32, obj: bool) {
        if self.hook && (self.on || (obj && self.marks.test(idx))) {
            self.on_mut(idx);
        }
    }

    /// [`Arena::get_mut_storing`] of two distinct objects at once, each
    /// told to the journal and to the barrier as a write of an object (a
    /// coroutine's resume moves execution states between two threads).
    /// Panics if `a` and `b` are the same handle.
    #[inline(always)]
    pub(crate) fn pair_mut_storing(&mut self, a: Handle<T>, b: Handle<T>) -> (&mut T, &mut T) {
        assert_ne!(a.idx, b.idx, "pair_mut_storing of one object");
        self.before_store(a.idx, true);
        self.before_store(b.idx, true);
        let (i, j) = (a.idx as usize, b.idx as usize);
        let (lo, hi) = (i.min(j), i.max(j));
        if hi >= self.slots.len() {
            dangling(hi as u32)
        }
        let (low, high) = self.slots.split_at_mut(hi);
        let (x, y) = match (&mut low[lo], &mut high[0]) {
            (Some(x), Some(y)) => (x, y),
            (None, _) => dangling(lo as u32),
            (_, None) => dangling(hi as u32),
        };
        if i < j {
            (x, y)
        } else {
            (y, x)
        }
    }

    /// The live object at slot `idx`, mutable for its *cache fields* only
    /// (fields outside the state: not compared, hashed or saved, such as a
    /// table's body pointer): neither the journal nor the collector's
    /// barrier is told, so any other write through it would escape both.
    pub(crate) fn cache_mut(&mut self, idx: u32) -> Option<&mut T> {
        self.slots.get_mut(idx as usize)?.as_mut()
    }

    /// [`Arena::cache_mut`] of every live object.
    pub(crate) fn for_each_cache_mut(&mut self, f: impl FnMut(&mut T)) {
        self.slots.iter_mut().flatten().for_each(f);
    }

    /// [`Arena::get_mut`] without checking the slot.
    ///
    /// # Safety
    ///
    /// As for [`Arena::get_unchecked`].
    #[inline(always)]
    pub unsafe fn get_mut_unchecked(&mut self, h: Handle<T>) -> &mut T {
        if self.hook {
            self.on_mut(h.idx);
        }
        debug_assert!(matches!(self.slots.get(h.idx as usize), Some(Some(_))));
        // SAFETY: the caller's contract: the slot exists and is occupied.
        unsafe { self.slots.get_unchecked_mut(h.idx as usize).as_mut().unwrap_unchecked() }
    }

    /// Frees the slot and returns the object. While a snapshot needs the
    /// slot's content, a copy of it is saved in the journal (the collector's
    /// [`Arena::sweep`] moves objects into the journal instead).
    pub fn free(&mut self, h: Handle<T>) -> Option<T> {
        if self.on {
            self.touch(h.idx);
        }
        let v = self.slots.get_mut(h.idx as usize)?.take()?;
        self.live -= 1;
        self.free.push(h.idx);
        Some(v)
    }

    /// The live object at slot `idx`, mutable, its hooks already called.
    #[inline(always)]
    fn live_mut(&mut self, idx: u32) -> &mut T {
        match self.slots.get_mut(idx as usize) {
            Some(Some(v)) => v,
            _ => dangling(idx),
        }
    }

    /// A mutation while a snapshot is open or the barrier is on.
    #[inline(never)]
    fn on_mut(&mut self, idx: u32) {
        if self.on {
            self.touch(idx);
        }
        if self.marks.watch {
            self.marks.barrier(idx);
        }
    }

    /// Saves slot `idx` in the innermost level if it is old and not saved.
    fn touch(&mut self, idx: u32) {
        let Some(Some(v)) = self.slots.get(idx as usize) else {
            return;
        };
        let jr = &mut *self.jr;
        if jr.first_touch(idx) {
            let saved = match v.snap_clone() {
                Ok(c) => Saved::Obj(c),
                Err(name) => Saved::Poison(name),
            };
            jr.entries.push((idx, saved));
        }
    }
}

impl<T> Arena<T> {
    #[cfg(test)]
    /// Number of open journal levels (snapshots).
    pub fn journal_depth(&self) -> usize {
        self.jr.levels.len()
    }

    /// Number of slots saved by the open levels.
    pub fn journal_len(&self) -> usize {
        self.jr.entries.len()
    }

    /// Opens a journal level: from now on, changes can be undone back to
    /// this point by [`Arena::journal_rollback_to`].
    pub fn journal_begin(&mut self) {
        let jr = &mut *self.jr;
        if let Some(top) = jr.levels.last() {
            jr.mark_entries(top.start, false);
        }
        jr.levels.push(Level {
            slots: self.slots.len() as u32,
            low: self.free.len(),
            popped_start: jr.popped.len(),
            start: jr.entries.len(),
            live: self.live,
        });
        jr.limit = self.slots.len() as u32;
        let words = self.slots.len().div_ceil(64);
        if jr.dirty.len() < words {
            jr.dirty.resize(words, 0);
        }
        jr.marks.push(self.marks.saved());
        self.on = true;
        self.hook = true;
    }

    /// The type name of an object that could not be copied for a level at
    /// or above `level` and was changed since, if any: such a level cannot
    /// be rolled back.
    pub fn journal_poison(&self, level: usize) -> Option<&'static str> {
        let start = self.jr.levels.get(level)?.start;
        self.jr.entries[start..].iter().find_map(|(_, s)| match s {
            Saved::Poison(name) => Some(*name),
            _ => None,
        })
    }

    /// Undoes every change since level `level` was opened and closes the
    /// levels above it; `level` stays open (and empty). `on_restore(idx,
    /// current, restored)` is called for every slot whose content changes
    /// (new slots included, with `restored` `None`) before it changes. The
    /// caller must have checked [`Arena::journal_poison`]: a poisoned slot is
    /// left as it is.
    pub fn journal_rollback_to(
        &mut self,
        level: usize,
        mut on_restore: impl FnMut(u32, Option<&T>, Option<&T>),
    ) {
        while self.jr.levels.len() > level {
            self.rollback_top(&mut on_restore);
            if self.jr.levels.len() == level + 1 {
                break;
            }
            self.jr.levels.pop();
            self.jr.marks.pop();
        }
        if let Some(top) = self.jr.levels.last() {
            self.jr.limit = top.slots;
        }
    }

    /// Undoes the innermost level's changes; the level stays open.
    fn rollback_top(&mut self, on_restore: &mut impl FnMut(u32, Option<&T>, Option<&T>)) {
        let Some(&top) = self.jr.levels.last() else {
            return;
        };
        let keep = top.slots as usize;
        let jr = &mut *self.jr;
        for (i, s) in self.slots.iter().enumerate().skip(keep) {
            if let Some(v) = s {
                on_restore(i as u32, Some(v), None);
            }
        }
        self.slots.truncate(keep);
        if let Some(saved) = jr.marks.last() {
            self.marks.restore(saved, keep);
        }
        for (idx, saved) in jr.entries.drain(top.start..) {
            let (w, b) = (idx as usize / 64, idx % 64);
            jr.dirty[w] &= !(1 << b);
            let slot = &mut self.slots[idx as usize];
            match saved {
                Saved::Free => {
                    on_restore(idx, slot.as_ref(), None);
                    *slot = None;
                }
                Saved::Obj(v) => {
                    on_restore(idx, slot.as_ref(), Some(&v));
                    *slot = Some(v);
                }
                Saved::Poison(_) => {}
            }
        }
        self.free.truncate(top.low);
        self.free.extend(jr.popped[top.popped_start..].iter().rev());
        jr.popped.truncate(top.popped_start);
        self.live = top.live;
        self.hook = true;
        if let Some(t) = jr.levels.last_mut() {
            t.low = self.free.len();
        }
    }

    /// Closes level `level` and the levels above it, keeping the current
    /// state: their saved slots fold into the enclosing level (which keeps
    /// its own, older copy of a slot saved by both), or are dropped when
    /// `level` is the outermost. Journaling stops with the last level.
    pub fn journal_commit_to(&mut self, level: usize) {
        while self.jr.levels.len() > level {
            self.commit_top();
        }
    }

    /// Folds the innermost level into its parent (or drops it).
    fn commit_top(&mut self) {
        let jr = &mut *self.jr;
        let Some(top) = jr.levels.pop() else {
            return;
        };
        jr.mark_entries(top.start, false);
        jr.marks.pop();
        let moved = jr.entries.split_off(top.start);
        let tail = jr.popped.split_off(top.popped_start);
        let Some(parent) = jr.levels.last_mut() else {
            jr.entries.clear();
            jr.popped.clear();
            self.on = false;
            self.hook = self.marks.watch;
            return;
        };
        if top.low < parent.low {
            let k = parent.low - top.low;
            jr.popped.extend_from_slice(&tail[tail.len() - k..]);
            parent.low = top.low;
        }
        let (pstart, plimit) = (parent.start, parent.slots);
        jr.limit = plimit;
        jr.mark_entries(pstart, true);
        for (idx, saved) in moved {
            if idx < plimit && jr.first_touch(idx) {
                jr.entries.push((idx, saved));
            }
        }
    }
}

#[cold]
#[inline(never)]
fn dangling(idx: u32) -> ! {
    panic!("luprex-vm: dangling heap handle #{idx} (collector invariant broken)")
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::arena::snap_clone_by_clone!(String, u32);

    #[test]
    fn alloc_free_reuse_is_lifo_and_deterministic() {
        let mut a: Arena<String> = Arena::new();
        let h0 = a.alloc("a".into());
        let h1 = a.alloc("b".into());
        let h2 = a.alloc("c".into());
        assert_eq!(a.free(h0).as_deref(), Some("a"));
        assert!(a.free(h2).is_some());
        assert_eq!(a.alloc("d".into()), h2);
        assert_eq!(a.alloc("e".into()), h0);
        assert_eq!(a.get(h1), "b");
        assert_eq!(a.len(), 3);
    }

    type Layout = (Vec<Option<u32>>, Vec<u32>, usize);

    fn layout(a: &Arena<u32>) -> Layout {
        (a.raw_slots().to_vec(), a.free_list().to_vec(), a.len())
    }

    /// Random allocations, frees, sweeps and writes under nested journal
    /// levels, with random rollbacks and commits: every rollback restores
    /// the exact layout (slots, free list order, live count) of its level.
    #[test]
    fn journal_restores_exact_layouts() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut a: Arena<u32> = Arena::new();
        let mut levels: Vec<Layout> = Vec::new();
        let mut checks = 0;
        for step in 0..20_000u32 {
            let live: Vec<u32> = a.iter().map(|(h, _)| h.index()).collect();
            match rnd(20) {
                0..=6 => {
                    a.alloc(step);
                }
                7..=9 if !live.is_empty() => {
                    a.free(Handle::from_index(live[rnd(live.len() as u64) as usize]));
                }
                10..=13 if !live.is_empty() => {
                    *a.get_mut(Handle::from_index(live[rnd(live.len() as u64) as usize])) += 1;
                }
                14 if !live.is_empty() => {
                    for &i in &live {
                        if rnd(2) == 0 {
                            a.mark(Handle::from_index(i));
                        }
                    }
                    a.sweep(|_, _| {});
                }
                15 if levels.len() < 6 => {
                    levels.push(layout(&a));
                    a.journal_begin();
                }
                16 | 17 if !levels.is_empty() => {
                    let l = rnd(levels.len() as u64) as usize;
                    a.journal_rollback_to(l, |_, _, _| {});
                    levels.truncate(l + 1);
                    assert_eq!(layout(&a), levels[l], "step {step}");
                    checks += 1;
                }
                18 if !levels.is_empty() => {
                    let l = rnd(levels.len() as u64) as usize;
                    a.journal_commit_to(l);
                    levels.truncate(l);
                }
                _ => {}
            }
            assert_eq!(a.journal_depth(), levels.len());
        }
        assert!(checks > 500, "{checks}");
    }

    #[test]
    fn sweep_frees_unmarked_in_index_order() {
        let mut a: Arena<u32> = Arena::new();
        let hs: Vec<_> = (0..100).map(|i| a.alloc(i)).collect();
        for h in hs.iter().step_by(3) {
            assert!(a.mark(*h));
            assert!(!a.mark(*h));
        }
        let mut order = vec![];
        let freed = a.sweep(|h, _| order.push(h.index()));
        assert_eq!(freed, 66);
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a.len(), 34);
        assert!(!a.is_marked(hs[0]));
    }
}
