//! The tracing garbage collector: stop-the-world mark & sweep over the
//! arenas.
//!
//! # Cycle
//!
//! 1. **Mark** from the roots — every reference held by a field of the
//!    `State`'s *world* class (`schema.rs`): the registry, the per-type
//!    metatables, the interned metamethod names, pinned values, the last
//!    API error, pending finalizers, the host data, and the running
//!    thread's execution state (which lives in the `State`, not in its
//!    thread object); objects flagged for finalization are weak, not roots
//!    — with an explicit gray stack of `ObjRef`s: no recursion, whatever
//!    the shape of the heap. An object's references come from the one
//!    object visitor (`schema::visit_object`), except for weak tables.
//!    Marking an object adds its estimated size to the live-bytes figure.
//! 2. **Weak tables** (`__mode` with `k`, `v` or both) are not traversed
//!    normally. Weak-value tables mark only their keys; weak-key tables are
//!    ephemerons: a value is marked only once its key is, iterating to a
//!    fixpoint (`convergeephemerons`); all-weak tables mark nothing. Strings
//!    are values, not objects, for weakness: never removed from weak
//!    tables, and kept alive by a weak table only through an entry that
//!    stays (marked by the clearing passes, as `iscleared` in lgc.c).
//! 3. **Finalizers**: objects whose metatable had `__gc` when
//!    `setmetatable` was called were recorded (in order). Unreachable ones
//!    are moved to the pending list — most recently flagged first, which is
//!    the order 5.4 calls them in — and resurrected (marked, with
//!    everything they reach).
//! 4. **Clear** dead entries from weak tables (values before resurrection,
//!    keys after, as `atomic` in lgc.c).
//! 5. **Sweep** every arena in index order (so reuse of slots, hence every
//!    later handle, is deterministic); freed strings leave the interner.
//! 6. Set the threshold for the next cycle from the live bytes:
//!    `live * pause / 100` (at least `live + 1 MiB`), then run the pending
//!    finalizers (nested, protected calls; errors become warnings).
//!
//! The collector is not incremental: `collectgarbage("incremental")` and
//! `"generational"` are accepted and only change the reported mode and
//! `collectgarbage("step")`: in generational mode each step is a full
//! collection (standing for a minor one, which collects all young
//! garbage). While finalizers run, every `collectgarbage` option returns
//! fail, as in 5.4.4.
//!
//! # Safe points
//!
//! Collection starts only at safe points (see `state.rs` for the rooting
//! rules): NEWTABLE, CONCAT and CLOSURE in the loop after writing their
//! result, after a native returns to a Lua frame, and explicit requests.

use crate::func::UpVal;
use crate::heap::Heap;
use crate::meta::{TM_GC, TM_MODE};
use crate::schema::{visit_object, ObjRef, Refs, Visit};
use crate::state::State;
use crate::value::{StrRef, TableRef, Value};
use std::collections::BTreeSet;

/// Minimum distance between the live size and the next threshold.
const MIN_GAP: usize = 1 << 20;

/// Collector state.
#[derive(Clone, Debug)]
pub struct GcState {
    /// Collect when `heap.bytes` reaches this.
    pub threshold: usize,
    /// Live bytes after the last collection.
    pub estimate: usize,
    /// `setpause` percentage.
    pub pause: u32,
    /// `setstepmul` value (recorded only).
    pub stepmul: u32,
    /// False after `collectgarbage("stop")`.
    pub running: bool,
    /// Reported mode.
    pub mode: &'static str,
    /// Objects flagged for finalization, in flagging order.
    pub(crate) finobj: Vec<Value>,
    /// Their ids, for membership.
    pub(crate) finset: BTreeSet<u64>,
    /// Objects whose finalizer is due, in calling order.
    pub(crate) tobefnz: std::collections::VecDeque<Value>,
    /// Currently running finalizers.
    pub(crate) in_fin: bool,
    /// Completed cycles.
    pub cycles: u64,
}

impl GcState {
    /// Initial state.
    pub fn new() -> GcState {
        GcState {
            threshold: MIN_GAP,
            estimate: 0,
            pause: 200,
            stepmul: 100,
            running: true,
            mode: "generational",
            finobj: Vec::new(),
            finset: BTreeSet::new(),
            tobefnz: Default::default(),
            in_fin: false,
            cycles: 0,
        }
    }

    /// Sets the next threshold from the live size.
    pub fn reset_threshold(&mut self, live: usize) {
        self.estimate = live;
        let by_pause = live / 100 * self.pause as usize;
        self.threshold = by_pause.max(live + MIN_GAP);
    }
}

/// The marking machinery. Gray objects are [`ObjRef`]s (`schema.rs`).
struct Marker<'a> {
    heap: &'a mut Heap,
    gray: Vec<ObjRef>,
    live: usize,
    weak_values: Vec<TableRef>,
    ephemerons: Vec<TableRef>,
    all_weak: Vec<TableRef>,
    scratch: Vec<Value>,
    /// The references of the object being traversed.
    children: Vec<ObjRef>,
    mode_name: StrRef,
}

impl Marker<'_> {
    #[inline]
    fn mark_str(&mut self, s: StrRef) {
        if self.heap.strings.mark(s) {
            self.live += crate::string::interned_size(self.heap.strings.get(s));
        }
    }

    #[inline]
    fn mark(&mut self, v: Value) {
        if let Some(o) = ObjRef::of(v) {
            self.mark_ref(o);
        }
    }

    /// Marks an object; queues it gray if it has references to traverse.
    #[inline(always)]
    fn mark_ref(&mut self, o: ObjRef) {
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
            self.gray.push(o);
        }
    }

    /// Whether a key or value is (or will stay) alive.
    fn is_alive(&self, v: Value) -> bool {
        match v {
            Value::Table(h) => self.heap.tables.is_marked(h),
            Value::LuaFn(h) => self.heap.lua_fns.is_marked(h),
            Value::RustFn(h) => self.heap.rust_fns.is_marked(h),
            Value::Thread(h) => self.heap.threads.is_marked(h),
            Value::UserData(h) => self.heap.userdata.is_marked(h),
            _ => true,
        }
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

    /// A weak table (`wk` weak keys, `wv` weak values): the one object the
    /// collector traverses by its own rules rather than by
    /// [`visit_object`].
    fn traverse_weak(&mut self, h: TableRef, wk: bool, wv: bool) {
        let tab = self.heap.tables.get(h);
        self.live += tab.estimated_bytes();
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
                self.weak_values.push(h);
            }
            (true, false) => {
                self.ephemeron_pass(&sc);
                self.ephemerons.push(h);
            }
            // Nothing marked now: the clearing passes mark the strings of
            // the entries that survive.
            _ => self.all_weak.push(h),
        }
        self.scratch = sc;
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

    fn propagate(&mut self) {
        while let Some(g) = self.gray.pop() {
            let hp = &*self.heap;
            let size = match g {
                ObjRef::Table(h) => {
                    let (wk, wv) = self.weakness(h);
                    if wk || wv {
                        self.traverse_weak(h, wk, wv);
                        continue;
                    }
                    hp.tables.get(h).estimated_bytes()
                }
                ObjRef::LuaFn(_) | ObjRef::RustFn(_) => 48,
                ObjRef::Upval(_) => 24,
                ObjRef::Proto(p) => hp.protos.get(p).estimated_bytes(),
                ObjRef::Thread(t) => hp.threads.get(t).estimated_bytes(),
                ObjRef::UserData(u) => 64 + hp.userdata.get(u).user_values.len() * 16,
                ObjRef::Str(_) => 0,
            };
            self.live += size;
            let mut ch = std::mem::take(&mut self.children);
            ch.clear();
            visit_object(hp, g, &mut Refs(&mut ch));
            ch.iter().for_each(|&o| self.mark_ref(o));
            self.children = ch;
        }
    }

    /// Iterates the ephemeron tables until no value gets marked.
    fn converge_ephemerons(&mut self) {
        loop {
            self.propagate();
            let mut changed = false;
            let eph = self.ephemerons.clone();
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
                self.propagate();
                return;
            }
        }
    }

    /// Removes the entries whose value is dead (`clearbyvalues`).
    fn clear_values(&mut self, list: &[TableRef]) {
        for &h in list {
            self.clear_entries(h, |_, v| v);
        }
    }

    /// Removes the entries whose key is dead (`clearbykeys`).
    fn clear_keys(&mut self, list: &[TableRef]) {
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

/// Whether object `o`'s mark bit is set.
fn is_marked(h: &Heap, o: ObjRef) -> bool {
    match o {
        ObjRef::Str(x) => h.strings.is_marked(x),
        ObjRef::Table(x) => h.tables.is_marked(x),
        ObjRef::LuaFn(x) => h.lua_fns.is_marked(x),
        ObjRef::RustFn(x) => h.rust_fns.is_marked(x),
        ObjRef::Upval(x) => h.upvals.is_marked(x),
        ObjRef::Proto(x) => h.protos.is_marked(x),
        ObjRef::Thread(x) => h.threads.is_marked(x),
        ObjRef::UserData(x) => h.userdata.is_marked(x),
    }
}

fn is_alive_in(heap: &Heap, v: Value) -> bool {
    match v {
        Value::Table(h) => heap.tables.is_marked(h),
        Value::LuaFn(h) => heap.lua_fns.is_marked(h),
        Value::RustFn(h) => heap.rust_fns.is_marked(h),
        Value::Thread(h) => heap.threads.is_marked(h),
        Value::UserData(h) => heap.userdata.is_marked(h),
        _ => true,
    }
}

impl State {
    /// Checked at safe points of the loop: collects if the debt is due.
    /// With a memory limit (`limits.rs`) the threshold never passes the
    /// limit, and a heap still over it after the collection is a memory
    /// error (even with the collector stopped, as the reference's emergency
    /// collection).
    #[inline(never)]
    pub(crate) fn gc_safe_point(&mut self) -> Result<(), crate::Error> {
        if !self.gc.running || self.gc.in_fin {
            // Postpone: try again after another gap.
            self.gc.threshold = self.heap.bytes + MIN_GAP;
        } else {
            self.full_gc();
        }
        self.clamp_gc_threshold();
        self.enforce_memory_limit()
    }

    /// Runs a full collection cycle, then the pending finalizers.
    pub fn collect_garbage(&mut self) {
        self.full_gc();
    }

    fn full_gc(&mut self) {
        self.collect_cycle();
        self.run_finalizers();
    }

    /// Mark, clear, sweep (steps 1-5 of the module docs).
    fn collect_cycle(&mut self) {
        let mut roots = Vec::new();
        self.visit_world(&mut Refs(&mut roots));
        let mode_name = self.tm_names[TM_MODE];
        let mut m = Marker {
            heap: &mut self.heap,
            gray: Vec::new(),
            live: 0,
            weak_values: Vec::new(),
            ephemerons: Vec::new(),
            all_weak: Vec::new(),
            scratch: Vec::new(),
            children: Vec::new(),
            mode_name,
        };
        roots.into_iter().for_each(|o| m.mark_ref(o));
        m.converge_ephemerons();
        // Clear weak values before resurrection.
        let wv = m.weak_values.clone();
        let aw = m.all_weak.clone();
        m.clear_values(&wv);
        m.clear_values(&aw);
        // Separate unreachable finalizable objects (most recent first).
        let mut keep = Vec::with_capacity(self.gc.finobj.len());
        let mut newly = Vec::new();
        for &o in self.gc.finobj.iter().rev() {
            if is_alive_in(m.heap, o) {
                keep.push(o);
            } else {
                newly.push(o);
            }
        }
        keep.reverse();
        self.gc.finobj = keep;
        for &o in &newly {
            self.gc.finset.remove(&Heap::object_id(o));
            m.mark(o);
        }
        m.converge_ephemerons();
        // Keys of every weak-key table, including those first reached by
        // resurrection; values of the weak-value tables so reached (as
        // `clearbyvalues(g, g->weak, origweak)` in `atomic`).
        let eph = m.ephemerons.clone();
        let aw_all = m.all_weak.clone();
        m.clear_keys(&eph);
        m.clear_keys(&aw_all);
        let wv2: Vec<TableRef> = m.weak_values.get(wv.len()..).unwrap_or_default().to_vec();
        let aw2: Vec<TableRef> = aw_all.get(aw.len()..).unwrap_or_default().to_vec();
        m.clear_values(&wv2);
        m.clear_values(&aw2);
        let live = m.live;
        self.gc.tobefnz.extend(newly);
        self.sweep();
        self.heap.bytes = live;
        self.gc.reset_threshold(live);
        self.gc.cycles += 1;
    }

    fn sweep(&mut self) {
        let heap = &mut self.heap;
        let interner = &mut heap.interner;
        heap.strings.sweep(|h, s: &crate::string::LuaStr| interner.remove(h, s.hash()));
        heap.tables.sweep(|_, _| {});
        heap.lua_fns.sweep(|_, _| {});
        heap.rust_fns.sweep(|_, _| {});
        heap.upvals.sweep(|_, _| {});
        heap.protos.sweep(|_, _| {});
        heap.threads.sweep(|_, _| {});
        heap.userdata.sweep(|_, _| {});
    }

    /// Runs pending finalizers (each in a nested protected call).
    pub(crate) fn run_finalizers(&mut self) {
        if self.gc.in_fin {
            return;
        }
        self.gc.in_fin = true;
        while let Some(o) = self.gc.tobefnz.pop_front() {
            let tm = self.tm_of(o, TM_GC);
            if tm.is_nil() {
                continue;
            }
            if let Err(e) = self.pcall_finalizer(tm, o) {
                let msg = match e.value {
                    Value::Str(s) => self.heap.str(s).to_vec(),
                    _ => b"error object is not a string".to_vec(),
                };
                self.warning(b"error in ", true);
                self.warning(b"__gc", true);
                self.warning(b" (", true);
                self.warning(&msg, true);
                self.warning(b")", false);
            }
        }
        self.gc.in_fin = false;
    }

    fn pcall_finalizer(&mut self, tm: Value, o: Value) -> Result<(), crate::Error> {
        // As GCTM, the running frame is flagged while the finalizer runs,
        // so that debug information names it `__gc` (`debug.rs`).
        let top = self.ex.frames.len().checked_sub(1);
        if let Some(i) = top {
            self.ex.frames[i].status |= crate::thread::cist::FIN;
        }
        let r = self.pcall_value(tm, &[o]).map(|_| ());
        if let Some(ci) = top.and_then(|i| self.ex.frames.get_mut(i)) {
            ci.status &= !crate::thread::cist::FIN;
        }
        r
    }

    /// Flags `o` for finalization if `mt` has `__gc` (`luaC_checkfinalizer`).
    pub(crate) fn check_finalizer(&mut self, o: Value, mt: Option<TableRef>) {
        let Some(mt) = mt else { return };
        if self.closing {
            return;
        }
        if self.heap.tables.get(mt).get_str(self.tm_names[TM_GC]).is_nil() {
            return;
        }
        if self.gc.finset.insert(Heap::object_id(o)) {
            self.gc.finobj.push(o);
        }
    }

    /// `lua_close`: closes the main thread's pending to-be-closed variables
    /// and calls every pending finalizer.
    pub(crate) fn close_state(&mut self) {
        if self.closing {
            // A nested close (`os.exit(c, true)` in a finalizer that the
            // close is running): run the finalizers still pending, as a
            // nested `lua_close` does, then let the caller exit.
            let outer = self.gc.in_fin;
            self.gc.in_fin = false;
            self.run_finalizers();
            self.gc.in_fin = outer;
            return;
        }
        if self.running == self.main_thread {
            self.ex.frames.clear();
            let _ = self.close_level(0, None);
        }
        self.closing = true;
        self.gc.in_fin = false;
        let all: Vec<Value> = self.gc.finobj.drain(..).rev().collect();
        self.gc.finset.clear();
        self.gc.tobefnz.extend(all);
        self.run_finalizers();
    }

    /// Approximate bytes in use (what `collectgarbage("count")` reports,
    /// times 1024).
    pub fn memory_in_use(&self) -> usize {
        self.heap.bytes
    }

    /// Heap-consistency check: every handle reachable from the roots names
    /// a live object, the interner maps every live string to itself, and no
    /// mark bit is left set.
    pub fn check_heap(&self) -> Result<(), String> {
        /// Every reference, weak ones included.
        struct All<'a>(&'a mut Vec<ObjRef>);
        impl Visit for All<'_> {
            fn obj(&mut self, o: ObjRef) {
                self.0.push(o);
            }
            fn weak(&mut self, v: Value) {
                self.value(v);
            }
        }
        let h = &self.heap;
        let mut seen: [Vec<bool>; ObjRef::KINDS] = [
            vec![false; h.strings.capacity_slots()],
            vec![false; h.tables.capacity_slots()],
            vec![false; h.lua_fns.capacity_slots()],
            vec![false; h.rust_fns.capacity_slots()],
            vec![false; h.upvals.capacity_slots()],
            vec![false; h.protos.capacity_slots()],
            vec![false; h.threads.capacity_slots()],
            vec![false; h.userdata.capacity_slots()],
        ];
        let mut work = Vec::new();
        self.visit_world(&mut All(&mut work));
        while let Some(o) = work.pop() {
            let i = o.index() as usize;
            if !o.is_live(h) {
                return Err(format!("dangling {} handle #{i}", o.kind_name()));
            }
            if is_marked(h, o) {
                return Err(format!("{} #{i} left marked", o.kind_name()));
            }
            if std::mem::replace(&mut seen[o.kind()][i], true) {
                continue;
            }
            match o {
                ObjRef::Str(s) if h.interner.find(&h.strings, h.str(s)) != Some(s) => {
                    return Err(format!("string #{i} not interned"));
                }
                ObjRef::RustFn(f) if h.rust_fns.get(f).id.0 as usize >= self.natives.len() => {
                    return Err(format!("native closure #{i} has a bad id"));
                }
                ObjRef::Upval(u) => {
                    if let UpVal::Open { thread, slot } = *h.upvals.get(u) {
                        let len = if thread == self.running {
                            self.ex.stack.len()
                        } else {
                            h.threads.try_get(thread.index()).map_or(0, |t| t.ex.stack.len())
                        };
                        if slot as usize >= len {
                            return Err(format!("open upvalue #{i} beyond stack"));
                        }
                    }
                }
                _ => {}
            }
            visit_object(h, o, &mut All(&mut work));
        }
        if h.interner.len() != h.strings.len() {
            return Err(format!(
                "interner holds {} strings, arena {}",
                h.interner.len(),
                h.strings.len()
            ));
        }
        Ok(())
    }
}
