//! Writes to a table through [`TableMut`]: sets by key kind, insertion
//! into the hash part with tombstone reuse, rehash and array growth,
//! `#t`-preserving deletes. Every write goes through the store's journaled
//! accessors (page-granular undo for snapshots) and leaves the header copy
//! to be written back only if it changed.

use super::*;

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
///
/// While the collector marks and the table is marked, `fwd` is the
/// collector's list of values to mark: every key and value stored, and a
/// new metatable, go on it (the forward barrier, see [`Tables`]). A write
/// that moves the entries (a rehash, `moved`) sends the table back to be
/// traversed again instead: a traversal in chunks could skip entries
/// moved below its position. Moves cost as much as the table's size
/// already, so this adds a constant factor, not a new cost.
pub struct TableMut<'a> {
    pub(super) t: Table,
    pub(super) orig: Table,
    pub(super) dst: HeaderDst<'a>,
    pub(super) s: &'a mut TableStore,
    pub(super) fwd: Option<&'a mut Vec<Value>>,
    pub(super) moved: bool,
}

/// Where a [`TableMut`] writes its header back.
pub(super) enum HeaderDst<'a> {
    /// A header owned outside the heap.
    Plain(&'a mut Table),
    /// A header in the heap's arena (journaled by `Arena::get_mut`).
    Slot(&'a mut Arena<Table>, TableRef),
}

impl Drop for TableMut<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.fwd.is_some() {
            self.barrier_at_end();
        }
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

    /// The barrier's part at the end of the write: a new metatable is
    /// listed, moved entries send the table back to be traversed.
    #[cold]
    fn barrier_at_end(&mut self) {
        if let (Some(f), Some(m)) = (&mut self.fwd, self.t.meta) {
            if self.orig.meta != Some(m) {
                f.push(Value::Table(m));
            }
        }
        if let (true, HeaderDst::Slot(a, h)) = (self.moved, &mut self.dst) {
            a.barrier(*h);
        }
    }

    /// The forward barrier: `key` and `v` are stored (see the type's docs).
    #[inline(always)]
    fn barrier(&mut self, key: Value, v: Value) {
        if let Some(f) = &mut self.fwd {
            barrier_push(f, key, v);
        }
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
        self.note_key(key);
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

    /// Inserts `key → v` at the end of the hash part's order, whatever the
    /// key (an integer key `alen + 1` included, which [`TableMut::set`]
    /// would append to the array part), for [`crate::State::table_rebuild`].
    /// False, and nothing stored, if the key is nil, NaN, in the array
    /// part's range or already present (even as a tombstone), or `v` is
    /// nil. Rehashes (hence may resize the array part) only if the hash
    /// part is full: reserve room first.
    pub fn insert_in_hash(&mut self, key: Value, v: Value) -> bool {
        let key = match normalize(key) {
            Norm::Int(i) => Value::Int(i),
            Norm::Other(k) => k,
            Norm::Nil | Norm::NaN => return false,
        };
        if v.is_nil() {
            return false;
        }
        if let Value::Int(i) = key {
            if (i as u64).wrapping_sub(1) < u64::from(self.t.alen) {
                return false;
            }
        }
        if let Value::Str(_) = key {
            self.t.flags = 0;
        }
        let h = key_hash(key);
        if let Probe::Found(..) = self.view().probe(key, h) {
            return false;
        }
        self.barrier(key, v);
        self.insert_new(key, h, v);
        true
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
        self.barrier(Value::Nil, v);
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
        self.barrier(Value::Str(s), v);
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
        // A positive key is looked for only where the hash part may hold
        // one (`Table::hash_ints`).
        if i < 1 || self.t.hash_ints() {
            if let Probe::Found(pos, e) = self.view().probe(key, h) {
                self.update(pos, e, v);
                return;
            }
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
        self.barrier(key, v);
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
        // One journaled slice for the three cells written (the entry's key
        // and value, the index cell), not one journal check per cell.
        self.note_key(key);
        let (hc, e) = (self.t.hcap as usize, self.t.elen as usize);
        let body = self.s.vals.slice_mut(self.t.body, 3 * hc);
        let pos = free_slot(&body[2 * hc..], 2 * hc, self.t.shift, h);
        append_entry(body, hc, pos, e, key, v);
        self.t.elen += 1;
    }

    /// Whether key `alen + 1` may be appended to the array part, growing
    /// its logical capacity if it pays (see the module docs).
    fn array_room_for_one(&mut self) -> bool {
        let n = self.t.alen as usize;
        if n < self.t.acap as usize {
            return true;
        }
        let want = (n * 2).clamp(1, MAX_ARRAY);
        if want <= n {
            return false;
        }
        let used = self.array().iter().filter(|v| !v.is_nil()).count();
        if (used + 1) * 2 > want {
            // The array takes the body block's slack first: the block is
            // a power of two, and an array of `2n` slots beside a hash
            // part would round it up to `4n` (half of it never used, and
            // a table grown to 16 M slots with two fields took 1 GB).
            // So the array grows to fill its block, then the block
            // doubles; never past `2n` (a saved state's bound).
            let hc = self.t.hcap as usize;
            let fill = body_cap(n + 1, hc) - 3 * hc;
            self.grow_acap(fill.clamp(n + 1, want));
            true
        } else {
            false
        }
    }

    /// Raises the array's logical capacity to `acap`, moving the body to a
    /// larger block when the current one is too small (the array is last in
    /// the body, so it grows into the block's slack otherwise).
    fn grow_acap(&mut self, acap: usize) {
        self.moved = true;
        let hc = self.t.hcap as usize;
        let (old_cap, new_cap) = (body_cap(self.t.acap as usize, hc), body_cap(acap, hc));
        if new_cap != old_cap && self.s.vals.grow_in_place(self.t.body, old_cap, new_cap) {
            let body = self.t.body;
            self.t.set_body(self.s, body);
        } else if new_cap != old_cap {
            let used = 3 * hc + self.t.alen as usize;
            let b = self.s.alloc_body(acap, hc);
            self.s.vals.copy_block(self.t.body, b, used);
            let t = self.t;
            self.s.free_body(&t);
            self.t.set_body(self.s, b);
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
        self.rebuild(na, usize::from(extra_in_hash), true);
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
    /// block. With `trim` (a rehash, not a size asked for), a large array
    /// whose top cells would be nil is cut to the room its block class has
    /// beside the hash part ([`trimmed_array`]).
    fn rebuild(&mut self, na: usize, reserve: usize, trim: bool) {
        self.moved = true;
        if self.grow_hash(na, reserve, trim) || self.grow_array(na, reserve, trim) {
            return;
        }
        let view = self.view();
        // A small table's entries and index stay on the Rust stack, filled
        // in place (a `SmallVec` collected or returned is moved with a
        // `memcpy`): most rebuilds are of small tables growing by one key,
        // and two heap vectors per rebuild were a fifth of its cost
        // (`merkletrees`: 1.35 M rebuilds, 170 M instructions in malloc and
        // free).
        let mut entries = Entries::new();
        entries.extend(view.hash_pairs());
        let had_garbage = entries.len() != self.t.elen as usize;
        let old_len = self.t.alen as usize;
        let mut absorbed: Vec<(usize, Value)> = Vec::new();
        if na < old_len {
            for (i, v) in view.array().iter().enumerate().skip(na) {
                if !v.is_nil() {
                    entries.push((Value::Int(i as i64 + 1), *v));
                }
            }
        } else if na > old_len {
            entries.retain(|&mut (k, v)| match k {
                Value::Int(k) if (k as u64).wrapping_sub(1) < na as u64 => {
                    absorbed.push(((k - 1) as usize, v));
                    false
                }
                _ => true,
            });
        }
        let need = entries.len() + reserve;
        let mut cap = hash_cap(need);
        if had_garbage && need * 4 > cap * 3 {
            // Churn: keep a quarter free so rehashes stay amortized O(1).
            cap *= 2;
        }
        let na = if trim { trimmed_array(&view, na, cap, &absorbed) } else { na };
        let mut index = Index::new();
        build_index(&entries, cap, &mut index);
        if na == old_len && cap == self.t.hcap as usize {
            self.write_hash(&entries, &index);
            return;
        }
        // The array's kept cells go straight to their new place: within the
        // block when the capacity class stays (a rehash that moves keys
        // from a small hash part into the array usually does), else into a
        // new block (no intermediate vector either way: a large array is in
        // memory at most twice while it moves).
        let old = self.t;
        let acap = if na == old_len { kept_acap(&old, na, cap) } else { na };
        let (from, to, keep) = (3 * old.hcap as usize, 3 * cap, na.min(old_len));
        let body = if body_cap(acap, cap) == body_cap(old.acap as usize, old.hcap as usize) {
            self.s.vals.move_cells(old.body, from, to, keep);
            // Nil from the kept cells to the end of both the new array and
            // the old one: new slots, and old cells left behind.
            let end = (to + na).max(from + old_len);
            if to + keep < end {
                self.s.vals.slice_mut(old.body, end)[to + keep..].fill(Value::Nil);
            }
            old.body
        } else {
            self.new_body(acap, cap, 0, keep)
        };
        self.set_layout(acap, na, cap, body);
        self.write_hash(&entries, &index);
        for (i, v) in absorbed {
            *self.cell_mut(to + i) = v;
        }
    }

    /// The common rebuild of a table past [`GROW_MIN`] entries: its hash
    /// part, every entry live, grows to a new block and its array stays
    /// as it is. The entries are copied from the old block to the new one
    /// as they are, and the index is built in the new block from them:
    /// collected on the side first, as `rebuild` does, a table of 2^17
    /// keys held 8 MB of entries and index beside its old and new bodies
    /// (k-nucleotide's peak), and each entry was moved twice. False, with
    /// nothing done, for any other rebuild.
    fn grow_hash(&mut self, na: usize, reserve: usize, trim: bool) -> bool {
        let old = self.t;
        let (elen, alen) = (old.elen as usize, old.alen as usize);
        if na != alen || elen < GROW_MIN {
            return false;
        }
        let view = self.view();
        if view.hash_pairs().count() != elen {
            return false; // tombstones or dead entries: `rebuild` drops them
        }
        let cap = hash_cap(elen + reserve);
        if cap <= old.hcap as usize || (trim && trimmed_array(&view, na, cap, &[]) != na) {
            return false;
        }
        let acap = kept_acap(&old, na, cap);
        if body_cap(acap, cap) == body_cap(old.acap as usize, old.hcap as usize) {
            return false;
        }
        let body = self.new_body(acap, cap, 2 * elen, alen);
        self.set_layout(acap, na, cap, body);
        let (ents, index) = self.s.vals.slice_mut(body, 3 * cap).split_at_mut(2 * cap);
        fill_index(ents[..2 * elen].chunks_exact(2).map(|kv| kv[0]), cap, index);
        true
    }

    /// The rebuild of a table without a hash part whose array grows to a
    /// size asked for (`({f()})`, a SETLIST past its constructor's size):
    /// `rebuild`'s work without the entries and index it would collect
    /// and build, empty. The array's cells go to a new block, the new
    /// slots nil as the block comes. False, with nothing done, for any
    /// other rebuild, and when the new capacity is the old block's class
    /// (`rebuild` then moves the cells within it).
    fn grow_array(&mut self, na: usize, reserve: usize, trim: bool) -> bool {
        let old = self.t;
        let alen = old.alen as usize;
        if old.hcap != 0 || reserve != 0 || trim || na <= alen {
            return false;
        }
        if body_cap(na, 0) == body_cap(old.acap as usize, 0) {
            return false;
        }
        let body = self.new_body(na, 0, 0, alen);
        self.set_layout(na, na, 0, body);
        self.t.set_hash_ints(false);
        true
    }

    /// A new block for an array of capacity `acap` and a hash part of
    /// `cap`, holding the old body's first `ents` cells (entries) and its
    /// array's first `keep` cells, each at its place in the new layout;
    /// the old block is freed.
    fn new_body(&mut self, acap: usize, cap: usize, ents: usize, keep: usize) -> Addr {
        let old = self.t;
        let body = self.s.alloc_body(acap, cap);
        self.s.vals.copy_cells(old.body, 0, body, 0, ents);
        self.s.vals.copy_cells(old.body, 3 * old.hcap as usize, body, 3 * cap, keep);
        self.s.free_body(&old);
        body
    }

    /// Sets the header's capacities, the array's length and the body.
    fn set_layout(&mut self, acap: usize, na: usize, cap: usize, body: Addr) {
        let t = &mut self.t;
        (t.acap, t.alen, t.hcap, t.shift) = (acap as u32, na as u32, cap as u32, shift_for(cap));
        t.set_body(self.s, body);
    }

    /// Writes the entries and index cells of the hash part (capacity
    /// `hcap`, already set) and sets `elen`.
    pub(super) fn write_hash(&mut self, entries: &[(Value, Value)], index: &[Value]) {
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
        self.t.set_hash_ints(entries.iter().any(|&(k, _)| is_positive_int(k)));
    }

    /// Keeps `hash_ints` true of a key about to enter the hash part.
    #[inline(always)]
    fn note_key(&mut self, key: Value) {
        if is_positive_int(key) {
            self.t.set_hash_ints(true);
        }
    }

    /// Sets the array part's size to `n` (clamped to 2^27): growing absorbs
    /// hash keys in `1..=n`, shrinking moves the array's keys above `n` to
    /// the end of the hash order (ascending). Rebuilds the hash part, so it
    /// drops tombstones: do not call it during a traversal that deletes keys.
    pub fn resize_array(&mut self, n: usize) {
        self.rebuild(n.min(MAX_ARRAY), 0, false);
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

// --------------------------------------------------------------------
// Writes without a `TableMut`: a metatable, a constructor's list, a
// string key
// --------------------------------------------------------------------

impl Tables {
    /// `t.meta = mt` (`setmetatable`), exactly as a write through
    /// [`Tables::get_mut`] makes it: the write log's touch, the barrier
    /// (the new metatable listed to be marked, or in generational mode the
    /// table listed again), the header written (journaled) only if it
    /// changes; without copying the header into a [`TableMut`] and
    /// comparing the copies at its drop, which cost `setmetatable` about
    /// 60 of its 140 instructions (RESULTS part 25).
    pub fn set_meta(&mut self, h: TableRef, mt: Option<TableRef>) {
        self.writes.touch(h.index());
        let old = self.arena.get(h).meta;
        if self.watch && self.arena.is_marked(h) {
            if let Some(fwd) = barrier_for(&mut self.arena, &mut self.fwd, h) {
                if let Some(m) = mt.filter(|&m| old != Some(m)) {
                    fwd.push(Value::Table(m));
                }
            }
        }
        if old != mt {
            self.arena.get_mut(h).meta = mt;
        }
    }

    /// SETLIST's stores, `t[first + 1], t[first + 2], ... = vals`, when
    /// the array part holds them all and no hook is owed (as
    /// [`Tables::set_str_simple`]: no write log nor journal, and the
    /// barrier only for a marked table): the cells copied at once, as
    /// [`TableMut::set_int`] would write them one by one. False, nothing
    /// done, otherwise. A constructor `{x, y}` then costs no [`TableMut`]
    /// (its header copied in and out, compared at its drop).
    #[inline]
    pub fn set_list_simple(&mut self, h: TableRef, first: usize, vals: &[Value]) -> bool {
        if self.hooks && (self.hooks_all || self.arena.is_marked(h)) {
            return false;
        }
        let t = self.arena.get(h);
        let (base, end) = (3 * t.hcap as usize, first + vals.len());
        if end > t.alen as usize {
            return false;
        }
        let cells = self.store.vals.slice_mut_unjournaled(t.body, base + end);
        cells[base + first..].copy_from_slice(vals);
        true
    }

    /// Raw `t[to + k] = t[from + k]` for `k` in `0..n`, the values read
    /// before any is written (a `memmove` of array slots), when `h` has no
    /// metatable and every key involved is in the array part: the write
    /// log's touch and the journal's pages as the same stores one by one
    /// would make them; no barrier, the values moved being the table's own.
    /// False, nothing written, otherwise. (`table.insert` and
    /// `table.remove` at a position, `table.move` within one table.)
    pub fn move_in_array(&mut self, h: TableRef, from: usize, to: usize, n: usize) -> bool {
        let t = *self.arena.get(h);
        let alen = t.alen as usize;
        if t.meta.is_some() || from.max(to).checked_add(n).is_none_or(|end| end > alen) {
            return false;
        }
        if n == 0 || from == to {
            return true;
        }
        self.writes.touch(h.index());
        // The slots from the lower of the two runs to the end of the higher.
        let lo = from.min(to);
        let len = from.max(to) + n - lo;
        let cells = self.store.vals.slice_mut_range(t.body, 3 * t.hcap as usize + lo, len);
        cells.copy_within(from - lo..from - lo + n, to - lo);
        true
    }

    /// `t[s] = v` for a string key, exactly as [`TableMut::set_str`] would
    /// do it, when that is simple: no hook is set (no write log, barrier or
    /// journal to serve; the barrier only for a marked table), the assignment is raw ([`Tables::sets_raw`]) and
    /// no rehash is needed. That is every case but an insertion or a
    /// re-insertion (a tombstoned key getting a value, which moves it to the
    /// end of the order) into a full hash part. Writes the cells that change
    /// and the header's `elen` and metamethod cache, nothing else:
    /// capacities, hence the heap's byte count, do not change. True if
    /// done; false, nothing changed, otherwise.
    ///
    /// The dispatch loop's SETFIELD and SETTABUP call it (through
    /// `meta::set_str_new`, out of the loop) when [`Tables::set_str_existing`]
    /// did not apply: an absent key, or one that is a tombstone, as when a
    /// field toggles between nil and a value (`node.link = nil ...
    /// node.link = other`).
    #[inline]
    pub fn set_str_simple(&mut self, h: TableRef, s: StrRef, v: Value) -> bool {
        // The barrier alone (generational mode keeps it on) owes nothing
        // for a table not marked.
        if self.hooks && (self.hooks_all || self.arena.is_marked(h)) {
            return false;
        }
        if !self.sets_raw(h) {
            return false;
        }
        let t = *self.arena.get(h);
        let (hc, e_len) = (t.hcap as usize, t.elen as usize);
        let view: TableView<'_> = TableView { t: &t, s: &self.store };
        // The index slot, entry and value of `s`; for a small hash part,
        // which is scanned, the slot is found only if needed (usize::MAX).
        let found = if hc > SCAN_HASH {
            view.find_str(s)
        } else {
            view.find_str_entry(s).map(|(e, old)| (usize::MAX, e, old))
        };
        let elen = match found {
            // A live key (an update), or a tombstone that is the last
            // entry (reviving it in place is the same order): the value.
            Some((_, e, old)) if !old.is_nil() || e + 1 == e_len => {
                self.store.vals.slice_mut_unjournaled(t.body, 2 * e + 2)[2 * e + 1] = v;
                e_len
            }
            // Nil to an absent or tombstoned key: nothing is stored.
            _ if v.is_nil() => e_len,
            // A new entry is needed and the hash part is full: a rehash.
            _ if e_len >= hc => return false,
            // A re-insertion: the tombstone's entry becomes dead (its key
            // nil, its index slot still a probe-chain link, now naming the
            // new entry, appended).
            Some((pos, e, _)) => {
                let pos = if pos == usize::MAX { view.slot_of_entry(s, e) } else { pos };
                let cells = self.store.vals.slice_mut_unjournaled(t.body, 3 * hc);
                cells[2 * e] = Value::Nil;
                append_entry(cells, hc, pos, e_len, Value::Str(s), v);
                e_len + 1
            }
            // An absent key: appended, in the first free slot of its chain.
            None => {
                let cells = self.store.vals.slice_mut_unjournaled(t.body, 3 * hc);
                let pos = free_slot(&cells[2 * hc..], 2 * hc, t.shift, str_hash(s));
                append_entry(cells, hc, pos, e_len, Value::Str(s), v);
                e_len + 1
            }
        };
        if elen != e_len || t.flags != 0 {
            let t = self.arena.get_mut(h);
            t.elen = elen as u32;
            t.flags = 0;
        }
        true
    }
}

impl<const F: bool> TableView<'_, F> {
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

    /// The index slot naming entry `e`, which holds string key `s` (live or
    /// tombstone): on `s`'s probe chain.
    fn slot_of_entry(self, s: StrRef, e: usize) -> usize {
        let hc = self.t.hcap as usize;
        let index = &self.s.vals.slice(self.t.body, 3 * hc)[2 * hc..];
        let mask = 2 * hc - 1;
        let mut pos = (str_hash(s) >> self.t.shift) as usize & mask;
        while islot(index, pos) as usize != e + 1 {
            pos = (pos + 1) & mask;
        }
        pos
    }
}

/// Lists `key` and `v` for the collector to mark, if they are objects.
#[cold]
fn barrier_push(f: &mut Vec<Value>, key: Value, v: Value) {
    for x in [key, v] {
        if crate::schema::ObjRef::of(x).is_some() {
            f.push(x);
        }
    }
}

/// Writes entry `e` = (`key`, `v`) into the body cells of a hash part of
/// capacity `hc`, and index slot `pos` naming it (an append: `e` is `elen`).
#[inline(always)]
fn append_entry(cells: &mut [Value], hc: usize, pos: usize, e: usize, key: Value, v: Value) {
    let i = 2 * hc + (pos >> 1);
    cells[i] = with_islot(cells[i], pos, e as u32 + 1);
    cells[2 * e] = key;
    cells[2 * e + 1] = v;
}

/// A rebuild's hash entries, on the Rust stack up to 8 (see `rebuild`).
pub(super) type Entries = smallvec::SmallVec<[(Value, Value); 8]>;

/// The hash capacity for `need` keys: none for none, else a power of two
/// of at least [`MIN_HASH`].
fn hash_cap(need: usize) -> usize {
    if need == 0 {
        0
    } else {
        need.next_power_of_two().max(MIN_HASH)
    }
}

/// Entries from which a growing hash part is copied block to block
/// ([`TableMut::grow_hash`]) rather than collected: above the
/// [`Entries`] kept on the Rust stack.
const GROW_MIN: usize = 9;

/// A hash index's cells, on the Rust stack up to 8 (a hash part of 8).
pub(super) type Index = smallvec::SmallVec<[Value; 8]>;

/// Writes into `index`, empty, the index cells (`cap` cells, `2 * cap`
/// slots) for `entries` in order. (Into the caller's vector: returned, a
/// `SmallVec` is moved with a `memcpy`.)
pub(super) fn build_index(entries: &[(Value, Value)], cap: usize, index: &mut Index) {
    debug_assert!(index.is_empty());
    index.resize(cap, Value::Nil);
    fill_index(entries.iter().map(|&(k, _)| k), cap, index);
}

/// Writes into `index`, `cap` nil cells, the slots of the entries whose
/// keys are `keys`, in order (a nil key, a dead entry's, takes none).
#[inline]
fn fill_index(keys: impl Iterator<Item = Value>, cap: usize, index: &mut [Value]) {
    if cap == 0 {
        return;
    }
    let shift = shift_for(cap);
    for (e, k) in keys.enumerate().filter(|(_, k)| !k.is_nil()) {
        let p = free_slot(index, 2 * cap, shift, key_hash(k));
        index[p >> 1] = with_islot(index[p >> 1], p, e as u32 + 1);
    }
}

/// Counts key `k` in its `nums` slice if an array candidate (1 if so).
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

/// The barrier for a write into marked table `h`: the list that
/// receives what is stored (the forward barrier); in generational mode
/// none, `h` being unmarked and listed to be traversed again instead
/// (a backward barrier, as 5.4's for tables in that mode: an old table
/// is traversed again at the next minor collection and the one after,
/// `gc/generational.rs`).
#[inline]
pub(super) fn barrier_for<'a>(
    arena: &mut Arena<Table>,
    fwd: &'a mut Vec<Value>,
    h: TableRef,
) -> Option<&'a mut Vec<Value>> {
    if arena.marks().gen {
        arena.barrier(h);
        None
    } else {
        Some(fwd)
    }
}

/// Whether `k` is an integer key `>= 1` (see `Table::hash_ints`).
#[inline(always)]
fn is_positive_int(k: Value) -> bool {
    matches!(k, Value::Int(i) if i >= 1)
}

/// The array size a rehash gives a table, `na` as `optimal_array_size`
/// chose it (a power of two) beside a hash part of capacity `hcap`, cut
/// for a large array whose top cells would be nil: to the room of the
/// smallest block class that holds its highest key (the array's kept
/// cells or `absorbed` hash keys) with the hash part. Without the cut, the
/// array of 70,000 keys set in reverse order (131,072 slots, the top ones
/// nil) took a block of 262,144 cells beside its hash part, where lua5.4
/// (whose hash part is an allocation of its own) keeps 131,072 slots.
/// Small arrays keep Lua's sizes, and with them the borders `#` finds in
/// a table with holes.
fn trimmed_array(
    view: &TableView<'_>,
    na: usize,
    hcap: usize,
    absorbed: &[(usize, Value)],
) -> usize {
    if body_cap(na, hcap) < TRIM_MIN {
        return na;
    }
    let array = view.array();
    let kept = &array[..na.min(array.len())];
    let top_kept = kept.iter().rposition(|v| !v.is_nil()).map_or(0, |i| i + 1);
    let top = absorbed.iter().map(|&(i, _)| i + 1).fold(top_kept, usize::max);
    na.min(body_cap(top, hcap) - 3 * hcap)
}

/// The array capacity a rebuild keeps for an array of unchanged size
/// `alen`: the old capacity, less the slack the new hash part (capacity
/// `hcap`) needs to stay in the block's class. Appends fill a block's
/// slack (`array_room_for_one`), so a key added beside a large appended
/// array otherwise took the next class: twice the memory, and a copy.
fn kept_acap(old: &Table, alen: usize, hcap: usize) -> usize {
    let acap = old.acap as usize;
    let room = body_cap(acap, old.hcap as usize).saturating_sub(3 * hcap);
    if room >= alen {
        acap.min(room)
    } else {
        acap
    }
}

/// The smallest body (cells) whose array a rehash may cut ([`trimmed_array`]).
const TRIM_MIN: usize = 1 << 16;
