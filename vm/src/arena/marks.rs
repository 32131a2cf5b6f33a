//! The collector's part of an arena: mark bits, the write barrier, the
//! sweep cursor, and how a snapshot keeps them.
//!
//! The collector is incremental (`gc.rs`): marking and sweeping are spread
//! over many steps while the program runs, so an arena's marks are no
//! longer clear between two calls, and the arena takes part in keeping the
//! collector's invariant.
//!
//! * **Marks** are one bit per slot. They are all clear outside a cycle
//!   (`clear` says so without scanning); marking sets them, the sweep clears
//!   the survivors' bits as it passes them.
//! * **The barrier** (`watch`, on while the collector marks): every
//!   mutation of an object goes through `Arena::get_mut` (the arena
//!   invariant), so the arena sees it. A mutated object that is marked (it
//!   may already have been traversed, "black") is unmarked and listed in
//!   `again`; the collector marks and traverses it again later (Lua's
//!   backward barrier, `luaC_barrierback`). A black object can thus never
//!   point at an unmarked one that nothing else will mark. Tables have a
//!   cheaper barrier of their own (`table.rs`) and leave `watch` off.
//! * **The sweep cursor** (`sweep_from`): between the end of marking and
//!   the sweep's passage, an unmarked object is garbage. An object allocated
//!   at or above the cursor is marked at birth so that the sweep spares it
//!   (Lua's "allocate black"); below the cursor the sweep has passed.
//! * **Generational mode** (`gen`, `gc/generational.rs`): between
//!   collections a mark means *old*, and the barrier stays on, so that an
//!   old object changed since is listed in `again`. Every object born is
//!   listed in `young`; one that survives a minor collection moves to
//!   `survival` (still unmarked), one that survives the next one is marked
//!   (old) and listed in `old1`, to be traversed once more by the minor
//!   collection after. A minor collection sweeps only `young` and
//!   `survival`: its cost follows the young objects, not the heap.
//!
//! **Snapshots.** All of this is world state: a rollback must give back the
//! marks, the barrier's list and the cursor as they were, or a rolled-back
//! heap would hold black objects pointing at white ones. Each journal level
//! saves a copy ([`Marks::saved`]) when it opens: a few words when the marks
//! are clear (the common case), the bitmap otherwise (one bit per slot,
//! 256 KB for two million objects).

/// The collector's state of one arena (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Marks {
    /// One bit per slot.
    pub(crate) bits: Vec<u64>,
    /// No bit is set.
    pub(crate) clear: bool,
    /// The barrier is on.
    pub(crate) watch: bool,
    /// Objects unmarked by the barrier, to mark again.
    pub(crate) again: Vec<u32>,
    /// While a sweep is pending or running, the first slot not swept yet.
    pub(crate) sweep_from: Option<u32>,
    /// Generational mode: births are listed in `young`.
    pub(crate) gen: bool,
    /// Generational mode: the slots allocated since the last collection.
    pub(crate) young: Vec<u32>,
    /// Generational mode: the objects that survived one minor collection.
    pub(crate) survival: Vec<u32>,
    /// Generational mode: the objects that became old, or were traversed
    /// again for a barrier, at the last minor collection.
    pub(crate) old1: Vec<u32>,
}

impl Default for Marks {
    fn default() -> Self {
        Marks {
            bits: Vec::new(),
            clear: true,
            watch: false,
            again: Vec::new(),
            sweep_from: None,
            gen: false,
            young: Vec::new(),
            survival: Vec::new(),
            old1: Vec::new(),
        }
    }
}

impl Marks {
    /// Sets bit `idx`; true if it was clear.
    #[inline(always)]
    pub(crate) fn set(&mut self, idx: u32) -> bool {
        let (w, b) = (idx as usize / 64, idx % 64);
        let word = &mut self.bits[w];
        let was = *word & (1 << b) != 0;
        *word |= 1 << b;
        self.clear = false;
        !was
    }

    /// Clears bit `idx`; true if it was set.
    #[inline(always)]
    pub(crate) fn unset(&mut self, idx: u32) -> bool {
        let (w, b) = (idx as usize / 64, idx % 64);
        let word = &mut self.bits[w];
        let was = *word & (1 << b) != 0;
        *word &= !(1 << b);
        was
    }

    /// Whether bit `idx` is set.
    #[inline(always)]
    pub(crate) fn get(&self, idx: u32) -> bool {
        self.bits[idx as usize / 64] & (1 << (idx % 64)) != 0
    }

    /// Whether bit `idx` is set, false beyond the bitmap.
    #[inline(always)]
    pub(crate) fn test(&self, idx: u32) -> bool {
        self.bits.get(idx as usize / 64).is_some_and(|w| w & (1 << (idx % 64)) != 0)
    }

    /// Clears every bit (a cycle abandoned, or a fresh one).
    pub(crate) fn clear_all(&mut self) {
        if !self.clear {
            self.bits.iter_mut().for_each(|w| *w = 0);
            self.clear = true;
        }
    }

    /// The barrier: a mutated marked object is unmarked and listed again.
    #[inline]
    pub(crate) fn barrier(&mut self, idx: u32) {
        if (idx as usize) < self.bits.len() * 64 && self.unset(idx) {
            self.again.push(idx);
        }
    }

    /// Every word of this state, for the heap hash (layout).
    pub(crate) fn layout_words(&self, mut w: impl FnMut(u64)) {
        w(u64::from(self.clear) | u64::from(self.watch) << 1 | u64::from(self.gen) << 2);
        w(self.sweep_from.map_or(u64::MAX, u64::from));
        w(self.again.len() as u64);
        self.again.iter().for_each(|&i| w(u64::from(i)));
        for list in [&self.young, &self.survival, &self.old1] {
            w(list.len() as u64);
            list.iter().for_each(|&i| w(u64::from(i)));
        }
        if !self.clear {
            self.bits.iter().for_each(|&x| w(x));
        }
    }

    /// What a journal level keeps: everything but a clear bitmap.
    pub(crate) fn saved(&self) -> Marks {
        Marks {
            bits: if self.clear { Vec::new() } else { self.bits.clone() },
            clear: self.clear,
            watch: self.watch,
            again: self.again.clone(),
            sweep_from: self.sweep_from,
            gen: self.gen,
            young: self.young.clone(),
            survival: self.survival.clone(),
            old1: self.old1.clone(),
        }
    }

    /// Puts back what [`Marks::saved`] kept, for an arena of `slots` slots.
    pub(crate) fn restore(&mut self, saved: &Marks, slots: usize) {
        let words = slots.div_ceil(64);
        if saved.clear {
            if !self.clear {
                self.bits.iter_mut().for_each(|w| *w = 0);
            }
            self.bits.resize(words, 0);
        } else {
            self.bits.clear();
            self.bits.extend_from_slice(&saved.bits);
            self.bits.resize(words, 0);
        }
        self.clear = saved.clear;
        self.watch = saved.watch;
        self.again.clone_from(&saved.again);
        self.sweep_from = saved.sweep_from;
        self.gen = saved.gen;
        self.young.clone_from(&saved.young);
        self.survival.clone_from(&saved.survival);
        self.old1.clone_from(&saved.old1);
    }
}
