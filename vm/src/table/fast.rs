//! The dispatch loop's in-place writes to tables: an array slot
//! (`array_slot_for_set`), an append (`try_append`), a run of array slots
//! for natives (`set_plain_run`) and an existing string key's value
//! (`set_str_existing`), each a store into the body with no header change
//! (or, for an append, the length alone).
//!
//! They write through the header's body pointer (`Table::body_ptr`, the
//! body pointer invariant of `table.rs`), skipping `TableMut`'s copy of
//! the header; what a write owes the hooks (the write log, the collector's
//! forward barrier, the journal's copy of the page) is paid out of line by
//! `fast_write_hooks`, and only when `Tables::hooks` says someone listens.
//! Every other case (a new key, a rehash, a metatable that may have
//! `__newindex`) is left to `TableMut`, having changed nothing.

use std::cell::Cell;

use super::{TableView, Tables};
use crate::store::Addr;
use crate::value::{StrRef, TableRef, Value};

impl Tables {
    /// What the fast paths' writes owe the hooks, when `hooks` is set:
    /// the write log's stamp, the collector's forward barrier for `v`
    /// stored into `h`, and the journal's copy of the page of body cell
    /// `cell` (before the cell is written).
    #[cold]
    #[inline(never)]
    fn fast_write_hooks(&mut self, h: TableRef, v: Value, body: Addr, cell: usize) {
        self.writes.touch_fast(h.index());
        self.forward(h, v);
        self.store.vals.journal_at(body, cell);
    }

    /// The dispatch loop's `t[i] = v` for an existing array slot (key
    /// `idx + 1`): the slot, mutable, if it is in the array part and the
    /// assignment is raw (no metatable, or the slot holds a value, so no
    /// `__newindex` applies). Touches no header.
    ///
    /// # Safety
    ///
    /// `h` names a live table (see [`Tables::get_live`]).
    #[inline(always)]
    pub unsafe fn array_slot_for_set<const FRESH: bool>(
        &mut self,
        h: TableRef,
        idx: u64,
        v: Value,
    ) -> Option<&mut Value> {
        // SAFETY: the caller's contract.
        let t = unsafe { self.arena.get_unchecked(h) };
        if idx < u64::from(t.alen) {
            let (body, bp, plain) = (t.body, t.body_ptr_in::<FRESH>(&self.store), t.meta.is_none());
            let i = 3 * t.hcap as usize + idx as usize;
            // SAFETY (both): the layout invariant: a header of the arena
            // names a live block of `store` of capacity
            // `body_cap(acap, hcap)`, and `i < 3 * hcap + alen <= cap`;
            // `bp` points at that block (the body pointer invariant), and
            // `&mut self` excludes every other access to the store. The
            // hooks journal the page without moving it.
            if plain || !unsafe { *bp.add(i) }.is_nil() {
                if self.owes_hooks(h, v) {
                    self.fast_write_hooks(h, v, body, i);
                }
                // SAFETY: as above; a block exists (`alen > 0`), so `bp` is
                // not null, which lets the compiler drop the test of the
                // `Option`'s null niche.
                unsafe { std::hint::assert_unchecked(!bp.is_null()) };
                return Some(unsafe { &mut *bp.add(i) });
            }
        }
        None
    }

    /// Raw stores of `vals`, none of them an object, to the array slots
    /// from `start` (keys `start + 1..`) of table `h`, if all are in the
    /// array part and, on a table with a metatable, all hold a value (no
    /// `__newindex` can apply); false, storing nothing, otherwise. The
    /// write log and the journal see each cell as a fast path's write; the
    /// barrier needs nothing, no object being stored.
    #[inline]
    pub fn set_plain_run<const FRESH: bool>(
        &mut self,
        h: TableRef,
        start: usize,
        vals: &[Value],
    ) -> bool {
        debug_assert!(vals.iter().all(|&v| crate::schema::ObjRef::of(v).is_none()));
        let t = self.arena.get(h);
        let (body, alen, plain) = (t.body, t.alen as usize, t.meta.is_none());
        if start >= alen || alen - start < vals.len() {
            return false;
        }
        let first = 3 * t.hcap as usize + start;
        let bp = t.body_ptr_in::<FRESH>(&self.store);
        // Through the body pointer, not the chunk table (`math.random`'s
        // state, four values: 12 instructions fewer a call).
        // SAFETY: the layout invariant and the body pointer (see
        // `array_slot_for_set`): `first + vals.len() <= 3 * hcap + alen <=
        // cap`, inside the block `bp` points at (`alen > 0`, so there is
        // one), and `&mut self` excludes every other access to the store.
        if !plain && (0..vals.len()).any(|k| unsafe { &*bp.add(first + k) }.is_nil()) {
            return false;
        }
        if self.hooks_all {
            self.writes.touch_fast(h.index());
        }
        if self.store.vals.journaling() {
            for k in 0..vals.len() {
                self.store.vals.journal_at(body, first + k);
            }
        }
        // SAFETY: the same cells as above; the journal saved their pages
        // without moving them.
        unsafe { std::slice::from_raw_parts_mut(bp.add(first), vals.len()) }.copy_from_slice(vals);
        true
    }

    /// The dispatch loop's append: raw `t[i] = v` on a table without a
    /// metatable if it is an append to the array part within its capacity
    /// (`i` is `alen + 1`, `v` is not nil, the hash part is empty so it
    /// cannot hold key `i`): exactly what [`TableMut::set_int`] would do,
    /// without the hash probe and without building a `TableMut` (the
    /// header changes, so it is written, hence journaled). True if done.
    ///
    /// # Safety
    ///
    /// `h` names a live table (see [`Tables::get_live`]).
    #[inline(always)]
    pub unsafe fn try_append<const FRESH: bool>(&mut self, h: TableRef, i: i64, v: Value) -> bool {
        // SAFETY: the caller's contract.
        let t = unsafe { self.arena.get_unchecked(h) };
        let n = t.alen;
        if t.meta.is_none()
            && i as u64 == u64::from(n) + 1
            && n < t.acap
            && !t.hash_ints()
            && !v.is_nil()
        {
            let (body, bp, cell) =
                (t.body, t.body_ptr_in::<FRESH>(&self.store), 3 * t.hcap as usize + n as usize);
            if self.owes_hooks(h, v) {
                self.fast_write_hooks(h, v, body, cell);
            }
            // SAFETY: the layout invariant and the body pointer (see
            // `array_slot_for_set`), and `cell < 3 * hcap + acap <= cap`;
            // `h` by the caller's contract.
            unsafe {
                *bp.add(cell) = v;
                self.arena.get_mut_unchecked(h).alen = n + 1;
            }
            return true;
        }
        false
    }

    /// The dispatch loop's `t[s] = v` when `s` is present with a non-nil
    /// value (an update: raw whatever the metatable). True if done. The
    /// header is written (to reset the metamethod cache, as every
    /// string-key assignment does) only if the cache is not already clear.
    /// Any other case is [`Tables::set_str_simple`]'s, out of the loop.
    /// SETFIELD and SETTABUP pass their lookup `hint`, as GETFIELD reads
    /// ([`TableView::get_str_hinted`]): the entry it names is checked to
    /// hold `s` before it is written, so it saves the search and never
    /// changes where the value goes (a constant `None` folds away).
    ///
    /// # Safety
    ///
    /// `h` names a live table (see [`Tables::get_live`]).
    #[inline(always)]
    pub unsafe fn set_str_existing<const FRESH: bool>(
        &mut self,
        h: TableRef,
        s: StrRef,
        v: Value,
        hint: Option<&Cell<u32>>,
    ) -> bool {
        // SAFETY: the caller's contract.
        let t = unsafe { self.arena.get_unchecked(h) };
        let (body, bp, flags) = (t.body, t.body_ptr_in::<FRESH>(&self.store), t.flags);
        let view = TableView::<'_, FRESH> { t, s: &self.store };
        let found = match hint {
            // SAFETY: `bp` was just taken from `t`, the store untouched.
            Some(hint) => unsafe { view.find_str_hinted_at(bp, s, hint) },
            None => view.find_str_entry(s),
        };
        match found {
            Some((e, old)) if !old.is_nil() => {
                let cell = 2 * e + 1;
                if self.owes_hooks(h, v) {
                    self.fast_write_hooks(h, v, body, cell);
                }
                // SAFETY: the layout invariant and the body pointer (see
                // `array_slot_for_set`), and `cell < 2 * elen <= 2 * hcap
                // <= cap`; `h` by the caller's contract.
                unsafe {
                    *bp.add(cell) = v;
                    if flags != 0 {
                        self.arena.get_mut_unchecked(h).flags = 0;
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// `t[i] = v` for an integer key in the hash part with a non-nil
    /// value (an update: raw whatever the metatable), as
    /// [`Tables::set_str_existing`] does for strings. True if done. For
    /// SETTABLE and SETI out of the loop (`settable_op`): a counter kept
    /// at `t[0]`, or any integer key outside the array part, went through
    /// a `TableMut` and its rehash checks (1.75x lua5.4's time).
    ///
    /// # Safety
    ///
    /// `h` names a live table (see [`Tables::get_live`]).
    #[inline]
    pub unsafe fn set_int_existing(&mut self, h: TableRef, i: i64, v: Value) -> bool {
        // SAFETY: the caller's contract.
        let t = unsafe { self.arena.get_unchecked(h) };
        let (body, bp) = (t.body, t.body_ptr_in::<false>(&self.store));
        let view = TableView::<'_, false> { t, s: &self.store };
        match view.find_int_entry(i) {
            Some((e, old)) if !old.is_nil() => {
                let cell = 2 * e + 1;
                if self.owes_hooks(h, v) {
                    self.fast_write_hooks(h, v, body, cell);
                }
                // SAFETY: the layout invariant and the body pointer (see
                // `array_slot_for_set`), and `cell < 2 * elen <= 2 * hcap
                // <= cap`. Word by word: `settable_op` holds `v` spilled as
                // two words, and a 16-byte copy of them waited for both
                // stores (half of its time on `t[0] = t[0] + 1`).
                crate::execute::store(unsafe { &mut *bp.add(cell) }, v);
                true
            }
            _ => false,
        }
    }
}
