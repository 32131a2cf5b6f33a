//! Generational mode: minor collections that look only at young objects,
//! major ones that look at everything.
//!
//! Most objects die young. In generational mode (5.4's `lgc.c` design, on
//! the arenas' mark bits and lists) a collection usually traverses and
//! sweeps only the objects born since the last collections, so its cost
//! follows what the program allocated rather than the size of the heap,
//! and the memory it frees is reused while still in cache.
//!
//! * **Ages** (`arena/marks.rs`). Between collections a mark bit means
//!   *old*. An object is born unmarked and listed `young`; a minor
//!   collection that finds it reachable lists it `survival`, still
//!   unmarked; the next one that finds it reachable marks it: old. So an
//!   object caught alive by a collection in the middle of its short life
//!   (a tree half built) is not promoted, as 5.4's `survival` age. An
//!   object that has just become old is listed `old1` and traversed once
//!   more by the next minor collection: its children were young or
//!   survival when it was last traversed, and they are still unmarked.
//! * **The invariant** between collections: a marked object that is not
//!   listed `old1` or `again` (nor a weak table) holds only marked objects.
//!   The barriers stay on between collections to keep it: a change to an
//!   old object through its arena unmarks it and lists it `again`, and so
//!   does a store of an object into an old table (a backward barrier, 5.4's
//!   for tables; the forward barrier of incremental mode, which lists the
//!   value, would have to make the value old at once). An object listed
//!   `again` is marked and traversed by the next minor collection, and
//!   listed `old1` for the one after (5.4's `TOUCHED1` and `TOUCHED2`).
//!   The invariant is what `check_heap` verifies in this mode (`gc/io.rs`).
//! * **A minor collection** ([`State::minor_gen`]), whole in one go: mark
//!   the roots (marking stops at old objects; the metamethod and type
//!   names, old since the first major collection, are skipped, as 5.4
//!   fixes them with `luaC_fix`); traverse again the objects
//!   listed `old1` by the last one; drain the barriers' lists; finish as
//!   the incremental atomic step does (ephemerons, weak tables cleared,
//!   unreachable objects flagged for finalization resurrected); then sweep
//!   the `survival` and `young` lists only. A weak table old and untouched
//!   needs no traversal: by the invariant, all it holds is old, and a
//!   minor collection frees nothing old.
//! * **A major collection** ([`State::major_gen`]) clears every mark and
//!   list and runs a whole cycle that leaves the survivors marked: old. It
//!   is due when the heap has grown by `majormul` percent (100) since the
//!   last one; otherwise the collection due is a minor one, when the heap
//!   has grown by `minormul` percent (20) since the last collection, at
//!   any size, as 5.4's. Sizes here are the objects' bytes plus the
//!   running stack's (`State::memory_in_use`), as 5.4 counts its stacks:
//!   a deep recursion spaces the collections out. Both kinds stop the
//!   world, as 5.4's: a program that wants short pauses whatever the
//!   heap's size (the engine's worlds) stays in incremental mode, the
//!   default of a new state, as in 5.4's library (`lua.c` switches to
//!   generational mode; so does `luprex-lua`).
//! * **Bad collections** (5.4's `lastatomic`). A program that builds a
//!   big long-lived structure gains nothing from minor collections: what
//!   they traverse survives. A major collection that frees less than half
//!   of what the heap grew since the one before is *bad*: the collector
//!   drops the ages (no marks, barriers off, as in incremental mode's
//!   pause) and waits until the heap has grown by `pause` percent; then
//!   runs a major collection again ([`State::step_gen_full`]). If that one
//!   finds the live size grown by less than an eighth, generational
//!   collection resumes from it (its survivors old); otherwise the
//!   collector waits again. Full collections asked for
//!   (`collectgarbage()`) while waiting keep waiting.
//! * **Old objects that die** stay until the next major collection, as in
//!   5.4: a minor collection never frees an old object, nor finalizes one,
//!   nor removes one from a weak table.
//!
//! Everything here is world state like the rest of the collector: the
//! mode flag and the lists in the arenas' marks, the parameters, the base
//! and the count of minor collections in `GcState` — rolled back, saved
//! and hashed.

use super::{Cycle, Marker, Phase};
use crate::arena::Handle;
use crate::meta::TM_MODE;
use crate::schema::ObjRef;
use crate::state::State;

impl State {
    /// Enters generational mode (`collectgarbage("generational")`): a
    /// cycle under way is dropped (marking) or finished (sweeping), then a
    /// major collection makes every survivor old.
    pub(super) fn enter_gen(&mut self) {
        self.settle_cycle();
        self.gc.mode = "generational";
        self.gc.lastatomic = 0;
        self.major_gen();
        self.run_finalizers();
    }

    /// Leaves generational mode (`collectgarbage("incremental")`): every
    /// object is young again, the barriers are off, and the next
    /// incremental cycle starts from the pause.
    pub(super) fn leave_gen(&mut self) {
        self.drop_ages();
        self.gc.lastatomic = 0;
    }

    /// Every object young again, barriers off, the next collection a
    /// pause away: incremental mode's pause (leaving the mode, or waiting
    /// after a bad collection).
    fn drop_ages(&mut self) {
        for_each_marks!(&mut self.heap, a => {
            a.reset_marks();
            a.set_gen(false);
        });
        self.heap.tables.set_watch(false);
        self.heap.tables.fwd_mut().clear();
        self.reset_cycle();
        self.gc.reset_threshold(self.heap.bytes, self.stack_bytes());
    }

    /// The collection due in generational mode (5.4's `genstep`): after a
    /// bad collection, a major one that may resume the ages; a major one
    /// if the heap has grown by `majormul` percent since the last major
    /// one; else a minor one. The caller runs the finalizers.
    pub(super) fn gen_step(&mut self) {
        if self.gc.lastatomic != 0 {
            self.step_gen_full();
        } else if self.gc.major_due(self.memory_in_use()) {
            let (base, inc) = (self.gc.gen_base, self.gc.major_growth());
            self.major_gen();
            if self.memory_in_use() >= base.saturating_add(inc / 2) {
                self.bad_collection();
            }
        } else {
            self.minor_gen();
        }
    }

    /// After a bad collection, the next one (5.4's `stepgenfull`): a
    /// major collection, kept generational if the live size grew by less
    /// than an eighth since the bad one, else the collector waits again.
    fn step_gen_full(&mut self) {
        let last = self.gc.lastatomic;
        self.major_gen();
        if self.memory_in_use() < last.saturating_add(last / 8) {
            self.gc.lastatomic = 0;
        } else {
            self.bad_collection();
        }
    }

    /// A full collection asked for (`collectgarbage()`, 5.4's
    /// `luaC_fullgc`): a major one; waiting after a bad collection, the
    /// collector goes on waiting.
    pub(super) fn full_gen(&mut self) {
        self.major_gen();
        if self.gc.lastatomic != 0 {
            self.bad_collection();
        }
    }

    /// The major collection just run was bad (see the module docs).
    fn bad_collection(&mut self) {
        self.gc.lastatomic = self.memory_in_use().max(1);
        self.drop_ages();
    }

    /// A minor collection (see the module docs); the caller runs the
    /// finalizers.
    pub(super) fn minor_gen(&mut self) {
        let before = self.heap.bytes;
        self.gc.phase = Phase::Propagate;
        self.set_barriers(false);
        self.mark_roots(true);
        let mut old1 = self.take_old1();
        let mode_name = self.tm_names[TM_MODE];
        let mut m = Marker::new(&mut self.heap, &mut self.gc.cycle, mode_name);
        old1.drain(..).for_each(|o| m.retraverse(o));
        m.drain_barriers();
        self.gc_roots = old1;
        self.finish_marking();
        let freed = self.sweep_minor();
        self.heap.bytes = before.saturating_sub(freed);
        self.gc.minors += 1;
        self.end_gen_collection();
    }

    /// A major collection (see the module docs); the caller runs the
    /// finalizers.
    pub(super) fn major_gen(&mut self) {
        for_each_marks!(&mut self.heap, a => {
            a.reset_marks();
            a.set_gen(true);
        });
        self.heap.tables.fwd_mut().clear();
        self.reset_cycle();
        self.gc.phase = Phase::Propagate;
        self.set_barriers(false);
        self.mark_roots(false);
        self.finish_marking();
        self.sweep_keep_marks();
        self.heap.bytes = self.gc.cycle.live;
        self.gc.gen_base = self.memory_in_use();
        self.gc.cycles += 1;
        self.end_gen_collection();
    }

    /// A fresh marking state (the gray stack's buffer kept), in the pause.
    fn reset_cycle(&mut self) {
        let gray = std::mem::take(&mut self.gc.cycle.gray);
        self.gc.cycle = Cycle { gray, ..Cycle::default() };
        self.gc.phase = Phase::Pause;
    }

    /// The end of either collection: the barriers go on again, the next
    /// threshold is set.
    fn end_gen_collection(&mut self) {
        self.reset_cycle();
        self.set_barriers(true);
        self.gc.set_minor_threshold(self.heap.bytes, self.stack_bytes());
    }

    /// The objects every arena listed `old1` at the last minor collection,
    /// in the heap's arena order; each arena lists instead the objects its
    /// barrier unmarked since (`Arena::take_old1`). In the buffer kept for
    /// them (`State::gc_roots`, empty between collections), which the
    /// caller gives back: a minor collection allocates nothing for these.
    fn take_old1(&mut self) -> Vec<ObjRef> {
        let mut out = std::mem::take(&mut self.gc_roots);
        macro_rules! take {
            ($kind:ident, $arena:expr) => {{
                $arena.take_old1(|i| out.push(ObjRef::$kind(Handle::from_index(i))));
            }};
        }
        let h = &mut self.heap;
        take!(Str, h.strings);
        take!(Table, h.tables.arena_mut());
        take!(LuaFn, h.lua_fns);
        take!(RustFn, h.rust_fns);
        take!(Upval, h.upvals);
        take!(Proto, h.protos);
        take!(Thread, h.threads);
        take!(UserData, h.userdata);
        out
    }

    /// Frees the young and survival objects left unmarked, every arena in
    /// the heap's order (`Arena::sweep_minor`); returns their estimated
    /// bytes (as the allocation functions count them, `heap.rs`).
    fn sweep_minor(&mut self) -> usize {
        let h = &mut self.heap;
        let mut bytes = 0;
        let interner = &mut h.interner;
        h.strings.sweep_minor(|s, v| {
            bytes += crate::string::interned_size(v);
            interner.remove(s, v);
        });
        bytes += h.tables.sweep_minor();
        h.lua_fns.sweep_minor(|_, f| bytes += crate::heap::lua_fn_bytes(f.upvals.len()));
        h.rust_fns.sweep_minor(|_, f| bytes += crate::heap::rust_fn_bytes(f.upvalues.len()));
        h.upvals.sweep_minor(|_, _| bytes += crate::heap::UPVAL_BYTES);
        h.protos.sweep_minor(|_, p| bytes += p.estimated_bytes());
        h.threads.sweep_minor(|_, t| bytes += t.estimated_bytes());
        h.userdata.sweep_minor(|_, u| bytes += crate::heap::userdata_bytes(u));
        bytes
    }

    /// Frees every unmarked object, every arena in the heap's order; the
    /// survivors stay marked.
    fn sweep_keep_marks(&mut self) {
        let h = &mut self.heap;
        let interner = &mut h.interner;
        h.strings.sweep_keep_marks(|s, v| interner.remove(s, v));
        h.tables.sweep_keep_marks();
        h.lua_fns.sweep_keep_marks(|_, _| {});
        h.rust_fns.sweep_keep_marks(|_, _| {});
        h.upvals.sweep_keep_marks(|_, _| {});
        h.protos.sweep_keep_marks(|_, _| {});
        h.threads.sweep_keep_marks(|_, _| {});
        h.userdata.sweep_keep_marks(|_, _| {});
    }
}
