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
//! **Invariants:**
//! * a live handle always names an occupied slot (the collector frees only
//!   unreachable objects, and nothing outside the heap holds a handle that is
//!   not rooted);
//! * mutation goes through [`Arena::get_mut`] (the hook for snapshot dirty
//!   tracking); there is no interior mutability.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// A typed index into an [`Arena<T>`].
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

/// A vector of slots with a free list and a mark bitmap.
#[derive(Clone)]
pub struct Arena<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    marks: Vec<u64>,
    live: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { slots: Vec::new(), free: Vec::new(), marks: Vec::new(), live: 0 }
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value` and returns its handle, reusing the most recently
    /// freed slot if there is one.
    #[inline]
    pub fn alloc(&mut self, value: T) -> Handle<T> {
        self.live += 1;
        if let Some(idx) = self.free.pop() {
            self.slots[idx as usize] = Some(value);
            return Handle::from_index(idx);
        }
        let idx = self.slots.len() as u32;
        self.slots.push(Some(value));
        if self.slots.len() > self.marks.len() * 64 {
            self.marks.push(0);
        }
        Handle::from_index(idx)
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

    /// Mutable access to the object behind `h`.
    #[inline(always)]
    pub fn get_mut(&mut self, h: Handle<T>) -> &mut T {
        match self.slots.get_mut(h.idx as usize) {
            Some(Some(v)) => v,
            _ => dangling(h.idx),
        }
    }

    /// The object behind a raw index, if the slot is occupied.
    pub fn try_get(&self, idx: u32) -> Option<&T> {
        self.slots.get(idx as usize).and_then(|s| s.as_ref())
    }

    /// Frees the slot (the object is dropped).
    pub fn free(&mut self, h: Handle<T>) -> Option<T> {
        let v = self.slots.get_mut(h.idx as usize)?.take();
        if v.is_some() {
            self.live -= 1;
            self.free.push(h.idx);
        }
        v
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
        let marks = vec![0; slots.len().div_ceil(64)];
        Ok(Arena { slots, free, marks, live })
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
        let (w, b) = (h.idx as usize / 64, h.idx % 64);
        let word = &mut self.marks[w];
        let was = *word & (1 << b) != 0;
        *word |= 1 << b;
        !was
    }

    /// Whether `h` is marked.
    #[inline]
    pub fn is_marked(&self, h: Handle<T>) -> bool {
        let (w, b) = (h.idx as usize / 64, h.idx % 64);
        self.marks[w] & (1 << b) != 0
    }

    /// Frees every unmarked live object, in index order, calling `on_free`
    /// for each, then clears all marks. Returns the number freed.
    pub fn sweep(&mut self, mut on_free: impl FnMut(Handle<T>, T)) -> usize {
        let mut freed = 0;
        for i in 0..self.slots.len() {
            let marked = self.marks[i / 64] & (1 << (i % 64)) != 0;
            if !marked {
                if let Some(v) = self.slots[i].take() {
                    freed += 1;
                    self.live -= 1;
                    self.free.push(i as u32);
                    on_free(Handle::from_index(i as u32), v);
                }
            }
        }
        self.marks.iter_mut().for_each(|w| *w = 0);
        freed
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

    #[test]
    fn alloc_free_reuse_is_lifo_and_deterministic() {
        let mut a: Arena<String> = Arena::new();
        let h0 = a.alloc("a".into());
        let h1 = a.alloc("b".into());
        let h2 = a.alloc("c".into());
        a.free(h0);
        a.free(h2);
        assert_eq!(a.alloc("d".into()), h2);
        assert_eq!(a.alloc("e".into()), h0);
        assert_eq!(a.get(h1), "b");
        assert_eq!(a.len(), 3);
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
