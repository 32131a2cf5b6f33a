//! Marking: the gray stack, traversal in bounded steps, weak tables.
//!
//! A [`Marker`] is made for one step of the collector over the heap and the
//! cycle's marking state ([`Cycle`], world state: it outlives the step and
//! is rolled back and saved with the rest of the collector's state). Gray
//! objects are [`ObjRef`]s on an explicit stack, so marking never recurses
//! whatever the shape of the heap; an object's references come from the one
//! object visitor (`schema::visit_object`), except for weak tables, which
//! the collector traverses by its own rules, and big tables, which it
//! traverses a chunk at a time ([`Cycle::partial`]) so that no step
//! outlasts its budget, however big one table is.
//!
//! **Work** is counted in the estimated bytes of what was traversed (the
//! same figure as the live-bytes estimate; see `OBJECT_COST`): a step
//! stops once it has done its budget's worth. A table written between two
//! chunks of its traversal needs nothing special: what is stored into a
//! marked table is listed to be marked (the forward barrier, `table.rs`),
//! and a rehash between two chunks moves entries that were all there
//! when the table was marked (the positions a chunk skips or sees twice
//! are harmless: nothing reachable only through them is unmarked).
//!
//! **Weak tables** (`__mode` with `k`, `v` or both) mark only their strong
//! part: weak-value tables their keys; weak-key tables are ephemerons, a
//! value marked only once its key is, iterated to a fixpoint at the end of
//! marking (`converge_ephemerons`); all-weak tables nothing. Strings are
//! values, not objects, for weakness: never removed from weak tables, and
//! kept alive by a weak table only through an entry that stays (marked by
//! the clearing passes, as `iscleared` in lgc.c).

use crate::heap::Heap;
use crate::schema::{visit_object, ObjRef, Refs};
use crate::value::{StrRef, TableRef, Value};

/// Tables with more entries than this are traversed a chunk at a time.
const CHUNK: usize = 4096;

/// Work for an object traversed, beyond its slots: its header, its
/// contents and its mark bit are each a cache miss in a big heap, which
/// costs more than the slots themselves.
const OBJECT_COST: usize = 512;

/// Work for a slot (a value) traversed.
const SLOT_COST: usize = 16;

/// The marking state of a cycle (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Cycle {
    /// Marked objects whose references are not traversed yet.
    pub(crate) gray: Vec<ObjRef>,
    /// Big tables being traversed, each with its next position (array
    /// slots first, then hash entries); the last one goes on first.
    pub(crate) partial: Vec<(TableRef, u32)>,
    /// Weak-value tables met.
    pub(crate) weak_values: Vec<TableRef>,
    /// Weak-key tables (ephemerons) met.
    pub(crate) ephemerons: Vec<TableRef>,
    /// Tables with weak keys and values met.
    pub(crate) all_weak: Vec<TableRef>,
    /// Estimated bytes of the objects traversed.
    pub(crate) live: usize,
    /// Work done by this cycle's marking so far.
    pub(crate) work: usize,
    /// `heap.bytes` at the end of marking.
    pub(crate) bytes_at_atomic: usize,
}

/// One step's view of the heap and the cycle.
pub(crate) struct Marker<'a> {
    pub(crate) heap: &'a mut Heap,
    pub(crate) c: &'a mut Cycle,
    pub(crate) mode_name: StrRef,
    scratch: Vec<Value>,
    children: Vec<ObjRef>,
    again: Vec<u32>,
}

impl<'a> Marker<'a> {
    pub(crate) fn new(heap: &'a mut Heap, c: &'a mut Cycle, mode_name: StrRef) -> Marker<'a> {
        Marker { heap, c, mode_name, scratch: Vec::new(), children: Vec::new(), again: Vec::new() }
    }

    #[inline]
    pub(crate) fn mark_str(&mut self, s: StrRef) {
        if self.heap.strings.mark(s) {
            self.c.live += crate::string::interned_size(self.heap.strings.get(s));
        }
    }

    #[inline]
    pub(crate) fn mark(&mut self, v: Value) {
        if let Some(o) = ObjRef::of(v) {
            self.mark_ref(o);
        }
    }

    /// Marks an object; queues it gray if it has references to traverse.
    #[inline(always)]
    pub(crate) fn mark_ref(&mut self, o: ObjRef) {
        let h = &mut *self.heap;
        let newly = match o {
            ObjRef::Str(s) => return self.mark_str(s),
            ObjRef::Table(x) => h.tables.mark(x),
            ObjRef::LuaFn(x) => h.lua_fns.mark(x),
            ObjRef::RustFn(x) => h.rust_fns.mark(x),
            ObjRef::Upval(x) => h.upvals.mark(x),
            ObjRef::Proto(x) => h.protos.mark(x),
            ObjRef::Thread(x) => h.threads.mark(x),
            ObjRef::UserData(x) => h.userdata.mark(x),
        };
        if newly {
            self.c.gray.push(o);
        }
    }

    /// Marks again what the barriers listed since the last step: objects
    /// they unmarked, and values the fast paths stored. An object listed
    /// again was counted in the live bytes when it was traversed; it is
    /// uncounted here, since it will be counted again when traversed again.
    pub(crate) fn drain_barriers(&mut self) {
        let mut again = std::mem::take(&mut self.again);
        macro_rules! drain {
            ($kind:ident, $arena:expr) => {{
                again.clear();
                $arena.take_again(&mut again);
                for &i in &again {
                    self.mark_again(ObjRef::$kind(crate::arena::Handle::from_index(i)));
                }
            }};
        }
        drain!(LuaFn, self.heap.lua_fns);
        drain!(RustFn, self.heap.rust_fns);
        drain!(Upval, self.heap.upvals);
        drain!(Thread, self.heap.threads);
        drain!(UserData, self.heap.userdata);
        drain!(Table, self.heap.tables.arena_mut());
        self.again = again;
        let mut fwd = std::mem::take(self.heap.tables.fwd_mut());
        fwd.iter().for_each(|&v| self.mark(v));
        fwd.clear();
        *self.heap.tables.fwd_mut() = fwd;
    }

    /// Marks an object the barrier unmarked (see `drain_barriers`).
    fn mark_again(&mut self, o: ObjRef) {
        self.c.live = self.c.live.saturating_sub(size_of(self.heap, o));
        self.mark_ref(o);
    }

    /// An estimate of the marking work left: the gray objects' and the
    /// big tables' (beyond what their own traversal finds).
    pub(crate) fn pending_work(&self) -> usize {
        let table_work = |t: TableRef, from: usize| {
            let v = self.heap.tables.get(t);
            let slots = v.array().len() + v.ents().len() / 2;
            OBJECT_COST + slots.saturating_sub(from) * SLOT_COST
        };
        let gray: usize = (self.c.gray.iter())
            .map(|&o| match o {
                ObjRef::Table(t) => table_work(t, 0),
                _ => OBJECT_COST,
            })
            .sum();
        let partial: usize = self.c.partial.iter().map(|&(t, p)| table_work(t, p as usize)).sum();
        gray + partial
    }

    /// Whether any barrier listed something.
    pub(crate) fn barriers_pending(&mut self) -> bool {
        let h = &mut *self.heap;
        !h.tables.fwd_mut().is_empty()
            || !h.tables.arena_mut().marks().again.is_empty()
            || !h.lua_fns.marks().again.is_empty()
            || !h.rust_fns.marks().again.is_empty()
            || !h.upvals.marks().again.is_empty()
            || !h.threads.marks().again.is_empty()
            || !h.userdata.marks().again.is_empty()
    }

    /// Whether a key or value is (or will stay) alive.
    pub(crate) fn is_alive(&self, v: Value) -> bool {
        is_alive_in(self.heap, v)
    }

    /// The weakness of a table: (weak keys, weak values).
    fn weakness(&self, t: TableRef) -> (bool, bool) {
        let Some(mt) = self.heap.tables.get(t).meta else { return (false, false) };
        match self.heap.tables.get(mt).get_str(self.mode_name) {
            Value::Str(s) => {
                let m = self.heap.str(s);
                (m.contains(&b'k'), m.contains(&b'v'))
            }
            _ => (false, false),
        }
    }

    /// A weak table (`wk` weak keys, `wv` weak values).
    fn traverse_weak(&mut self, h: TableRef, wk: bool, wv: bool) -> usize {
        let tab = self.heap.tables.get(h);
        let size = tab.estimated_bytes();
        if let Some(mt) = tab.meta {
            self.mark(Value::Table(mt));
        }
        let mut sc = std::mem::take(&mut self.scratch);
        sc.clear();
        for (k, v) in self.heap.tables.get(h).iter() {
            sc.push(k);
            sc.push(v);
        }
        match (wk, wv) {
            (false, true) => {
                for pair in sc.chunks(2) {
                    self.mark(pair[0]);
                    if let Value::Str(s) = pair[1] {
                        self.mark_str(s);
                    }
                }
                self.c.weak_values.push(h);
            }
            (true, false) => {
                self.ephemeron_pass(&sc);
                self.c.ephemerons.push(h);
            }
            // Nothing marked now: the clearing passes mark the strings of
            // the entries that survive.
            _ => self.c.all_weak.push(h),
        }
        self.scratch = sc;
        size
    }

    /// Marks the values of live keys; returns whether anything was marked.
    fn ephemeron_pass(&mut self, pairs: &[Value]) -> bool {
        let mut changed = false;
        for pair in pairs.chunks(2) {
            let (k, v) = (pair[0], pair[1]);
            if let Value::Str(s) = k {
                self.mark_str(s);
            }
            if !self.is_alive(k) {
                continue;
            }
            if !self.is_alive(v) {
                self.mark(v);
                changed = true;
            } else if let Value::Str(s) = v {
                self.mark_str(s);
            }
        }
        changed
    }

    /// Traverses a table from position `from`, at most [`CHUNK`] entries
    /// (all of them when `whole`); returns the next position if some are
    /// left, and the work done.
    fn traverse_table(&mut self, h: TableRef, from: usize, whole: bool) -> (Option<usize>, usize) {
        let t = self.heap.tables.get(h);
        let (arr, ents) = (t.array(), t.ents());
        let total = arr.len() + ents.len() / 2;
        let from = from.min(total);
        let end = if whole { total } else { total.min(from + CHUNK) };
        let mut ch = std::mem::take(&mut self.children);
        ch.clear();
        if from == 0 {
            if let Some(m) = t.meta {
                ch.push(ObjRef::Table(m));
            }
        }
        for &x in arr.get(from.min(arr.len())..end.min(arr.len())).unwrap_or(&[]) {
            if let Some(o) = ObjRef::of(x) {
                ch.push(o);
            }
        }
        let (e0, e1) = (from.max(arr.len()) - arr.len(), end.max(arr.len()) - arr.len());
        for pair in ents[2 * e0..2 * e1].chunks_exact(2) {
            if pair[1].is_nil() {
                continue;
            }
            for &x in pair {
                if let Some(o) = ObjRef::of(x) {
                    ch.push(o);
                }
            }
        }
        let work = OBJECT_COST + (end - from) * SLOT_COST;
        ch.iter().for_each(|&o| self.mark_ref(o));
        self.children = ch;
        ((end < total).then_some(end), work)
    }

    /// Traverses gray objects until `budget` bytes' worth of work is done
    /// (or everything, with `usize::MAX`). Returns the work done.
    pub(crate) fn propagate(&mut self, budget: usize) -> usize {
        let whole = budget == usize::MAX;
        let mut done = 0;
        // Gray objects first, then the next chunk of a big table: the gray
        // stack then holds at most a chunk's worth of its children.
        while done < budget {
            if let Some(g) = self.c.gray.pop() {
                done += self.traverse(g, whole);
                continue;
            }
            let Some((h, pos)) = self.c.partial.pop() else { break };
            let (next, w) = self.traverse_table(h, pos as usize, whole);
            done += w;
            if let Some(p) = next {
                self.c.partial.push((h, p as u32));
            }
        }
        self.c.work = self.c.work.saturating_add(done);
        done
    }

    /// Traverses again an object already marked (generational mode: an
    /// old weak table, whose weak entries must be cleared again, or an
    /// object that became old at the last collection, `gc/generational.rs`).
    pub(crate) fn retraverse(&mut self, o: ObjRef) {
        self.traverse(o, true);
    }

    /// Traverses one gray object; returns the work done.
    fn traverse(&mut self, g: ObjRef, whole: bool) -> usize {
        self.c.live += size_of(self.heap, g);
        if let ObjRef::Table(h) = g {
            let (wk, wv) = self.weakness(h);
            if wk || wv {
                return OBJECT_COST + self.traverse_weak(h, wk, wv);
            }
            let (next, w) = self.traverse_table(h, 0, whole);
            if let Some(p) = next {
                self.c.partial.push((h, p as u32));
            }
            return w;
        }
        let mut ch = std::mem::take(&mut self.children);
        ch.clear();
        visit_object(self.heap, g, &mut Refs(&mut ch));
        ch.iter().for_each(|&o| self.mark_ref(o));
        let work = OBJECT_COST + ch.len() * SLOT_COST;
        self.children = ch;
        work
    }

    /// Iterates the ephemeron tables until no value gets marked.
    pub(crate) fn converge_ephemerons(&mut self) {
        loop {
            self.propagate(usize::MAX);
            let mut changed = false;
            let eph = self.c.ephemerons.clone();
            for h in eph {
                let mut sc = std::mem::take(&mut self.scratch);
                sc.clear();
                for (k, v) in self.heap.tables.get(h).iter() {
                    sc.push(k);
                    sc.push(v);
                }
                changed |= self.ephemeron_pass(&sc);
                self.scratch = sc;
            }
            if !changed {
                self.propagate(usize::MAX);
                return;
            }
        }
    }

    /// Removes the entries whose value is dead (`clearbyvalues`).
    pub(crate) fn clear_values(&mut self, list: &[TableRef]) {
        for &h in list {
            self.clear_entries(h, |_, v| v);
        }
    }

    /// Removes the entries whose key is dead (`clearbykeys`).
    pub(crate) fn clear_keys(&mut self, list: &[TableRef]) {
        for &h in list {
            self.clear_entries(h, |k, _| k);
        }
    }

    /// Removes the entries of `h` whose part chosen by `part` is dead; the
    /// strings of that part in the surviving entries are marked (strings
    /// are values for weakness, alive only while an entry holds them, as
    /// `iscleared` in lgc.c).
    fn clear_entries(&mut self, h: TableRef, part: fn(Value, Value) -> Value) {
        let mut keep = Vec::new();
        let mut strs = Vec::new();
        for (k, v) in self.heap.tables.get(h).iter() {
            let x = part(k, v);
            keep.push(is_alive_in(self.heap, x));
            if let Value::Str(s) = x {
                strs.push(s);
            }
        }
        strs.into_iter().for_each(|s| self.mark_str(s));
        if keep.iter().all(|&b| b) {
            return;
        }
        // `retain` visits the entries in the order of `iter`.
        let mut it = keep.into_iter();
        self.heap.tables.get_mut(h).retain(|_, _| it.next().unwrap_or(true));
    }
}

/// The estimated bytes of an object other than a string, as the
/// allocation functions count them (`heap.rs`).
fn size_of(heap: &Heap, o: ObjRef) -> usize {
    match o {
        ObjRef::Table(h) => heap.tables.get(h).estimated_bytes(),
        ObjRef::LuaFn(_) | ObjRef::RustFn(_) => 48,
        ObjRef::Upval(_) => 24,
        ObjRef::Proto(p) => heap.protos.get(p).estimated_bytes(),
        ObjRef::Thread(t) => heap.threads.get(t).estimated_bytes(),
        ObjRef::UserData(u) => 64 + heap.userdata.get(u).user_values.len() * 16,
        ObjRef::Str(_) => 0,
    }
}

/// Whether a key or value is (or will stay) alive: marked, or not an
/// object (strings count as values here, see the module docs).
pub(crate) fn is_alive_in(heap: &Heap, v: Value) -> bool {
    match v {
        Value::Table(h) => heap.tables.is_marked(h),
        Value::LuaFn(h) => heap.lua_fns.is_marked(h),
        Value::RustFn(h) => heap.rust_fns.is_marked(h),
        Value::Thread(h) => heap.threads.is_marked(h),
        Value::UserData(h) => heap.userdata.is_marked(h),
        _ => true,
    }
}
