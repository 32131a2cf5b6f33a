//! The tracing garbage collector: incremental mark & sweep over the
//! arenas, paced by the VM's own allocation accounting.
//!
//! # Cycle
//!
//! A cycle runs in steps, between which the program runs:
//!
//! 1. **Start** (from the pause): mark the roots — every reference held by
//!    a field of the `State`'s *world* class (`schema.rs`): the registry,
//!    the per-type metatables, the interned metamethod and type names, pinned
//!    values, the last API error, pending finalizers, the host data, and
//!    the running thread's execution state; objects flagged for
//!    finalization are weak, not roots — and turn the **barriers** on.
//! 2. **Propagate**, a budget's worth per step (`gc/mark.rs`): traverse
//!    gray objects, a big table a chunk at a time. While the program runs
//!    between steps, the barriers keep the invariant that no traversed
//!    ("black") object points at an unmarked one that nothing will mark:
//!    a mutated object is unmarked and listed to be marked again
//!    (`arena/marks.rs`), but a table, which may be big and written all
//!    the time, stays marked and lists every key and value stored into it
//!    to be marked (`table.rs`).
//! 3. **Atomic**, in one step once nothing is gray: barriers off, mark the
//!    roots again (the stack changed) and what the barriers listed, then
//!    as a stop-the-world collector would: ephemerons to a fixpoint, clear
//!    weak values, move the unreachable objects flagged for finalization
//!    to the pending list (most recently flagged first, the order 5.4
//!    calls them in) and resurrect them, clear weak keys. Only the work
//!    done since the last step is left for this step, so it is short.
//! 4. **Sweep**, a budget's worth per step: the arenas in index order (so
//!    reuse of slots, hence every later handle, is deterministic), freeing
//!    unmarked objects and clearing the survivors' marks; freed strings
//!    leave the interner. An object born where the sweep has not passed is
//!    born marked; an interned string found there is marked (it may be
//!    garbage brought back by its content).
//! 5. **End**: the live bytes become the marked bytes plus what was
//!    allocated since the atomic step, the next cycle starts when the heap
//!    reaches `pause` percent of the live size and the running stack's
//!    (`State::stack_bytes`; no floor, as 5.4), and the
//!    pending finalizers run (nested protected calls; errors become
//!    warnings).
//!
//! # Pacing
//!
//! Only `heap.bytes`, the VM's estimate of what its objects hold, drives
//! the collector: the same program with the same inputs collects at the
//! same points, runs the same finalizers in the same order and reaches the
//! same state hash. During a cycle a step is due every `2^stepsize` bytes
//! allocated (8 KB by default), and each step does `2^stepsize * stepmul`
//! units of work (the parameters of 5.4's incremental mode,
//! `collectgarbage("incremental", pause, stepmul, stepsize)`): 16 per value
//! traversed and 512 per object traversed or freed, whose memory is a
//! cache miss away (`gc/mark.rs`, `arena.rs`), about half a millisecond
//! per step here. Steps run only at safe points (below), and allocation
//! between two of them is not bounded (a loop filling an array has
//! none): a step also does `stepmul` units per byte allocated past its
//! due point, paying the whole debt as 5.4's `incstep` does, so that
//! garbage does not pile up behind a growing table. A cycle whose
//! marking has done [`WORK_LIMIT`] times the heap's bytes in work without
//! finishing (a program rewriting big structures faster than they are
//! traversed; a first traversal costs about ten times the bytes)
//! finishes its marking in one step.
//!
//! **Generational mode** (`collectgarbage("generational")`, the mode the
//! standalone interpreter runs in, as `lua.c`) is in
//! `gc/generational.rs`: minor collections of the young objects and major
//! ones of the whole heap, each in one go (after a bad major collection,
//! one that freed little, the collector waits a pause with no ages, as
//! 5.4's); an explicit
//! `collectgarbage("step")` in that mode runs the collection due and never
//! reports the end of a cycle, as 5.4's. A new state collects
//! incrementally, as 5.4's library does.
//! While finalizers run, every `collectgarbage` option returns fail, as in
//! 5.4.4. A full collection (`collectgarbage()`) abandons a cycle still
//! marking (nothing has changed but marks) or finishes one sweeping, then
//! runs a whole cycle in one go.
//!
//! # Snapshots and saved states
//!
//! The cycle is world state: the phase and the marking state ([`Cycle`])
//! are fields of the collector's state, rolled back, saved and part of the
//! heap hash; the arenas keep their marks, barrier lists and sweep cursors
//! per journal level (`arena/marks.rs`) and in saved states. A rollback
//! or a load therefore continues the very cycle that was running.
//!
//! # Safe points
//!
//! Collection steps run only at safe points (see `state.rs` for the rooting
//! rules): NEWTABLE, CONCAT and CLOSURE in the loop after writing their
//! result, after a native returns to a Lua frame (in generational mode,
//! only a native that allocated: `State::defer_after_native`), and
//! explicit requests.

mod mark;

pub(crate) use mark::Cycle;
use mark::{is_alive_in, Marker};

use crate::heap::Heap;
use crate::meta::{TM_GC, TM_MODE};
use crate::schema::{ObjRef, Visit};
use crate::state::State;
use crate::value::{TableRef, Value};
use luprex_compiler::OpCode;
use std::collections::BTreeSet;

mod check;
pub(crate) mod io;

/// The first threshold of a new state, and the gap before another try
/// while the collector cannot run (stopped, or in a finalizer). Once a
/// cycle has measured the live size, incremental mode's threshold is
/// 5.4's, `pause` percent of it, with no floor. A floor of 1 MB here
/// (until `fde8f35`) let small heaps grow 30-40 times their live size,
/// so that `pause` meant nothing below a few megabytes and `gc.lua`'s
/// pace test never ended; without it AWFY `json` runs 1.5 % more
/// instructions, `binary-trees 12` 3.2 % more (RESULTS part 24).
const MIN_GAP: usize = 1 << 20;

/// Default `stepsize` (log2 of the bytes between two steps), as 5.4.
pub(crate) const STEPSIZE: u32 = 13;

/// Marking work, in multiples of the heap's bytes, after which a cycle
/// finishes its marking in one step (see the module docs).
const WORK_LIMIT: usize = 64;

/// Where the collector is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Between cycles.
    Pause,
    /// Marking, in steps.
    Propagate,
    /// Sweeping arena `k` (in the heap's arena order), in steps.
    Sweep(u8),
}

/// What the collector is doing ([`State::gc_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GcStats {
    /// Where the cycle is.
    pub phase: Phase,
    /// Cycles completed (in generational mode, major collections).
    pub cycles: u64,
    /// Minor collections completed (generational mode).
    pub minors: u64,
    /// Generational mode: waiting after a bad major collection (one that
    /// freed less than half of the heap's growth), with no minor
    /// collections until a major one finds the live size steady.
    pub waiting: bool,
    /// Gray objects waiting to be traversed.
    pub gray: usize,
    /// Big tables whose traversal, a chunk at a time, is under way.
    pub tables_in_chunks: usize,
    /// Marking work done by the current cycle.
    pub work: usize,
}

/// Collector state.
#[derive(Clone, Debug)]
pub struct GcState {
    /// Take a step when `heap.bytes` reaches this.
    pub threshold: usize,
    /// Live bytes after the last collection.
    pub estimate: usize,
    /// `setpause` percentage.
    pub pause: u32,
    /// `setstepmul` value.
    pub stepmul: u32,
    /// log2 of the bytes allocated between two steps.
    pub stepsize: u32,
    /// False after `collectgarbage("stop")`.
    pub running: bool,
    /// The mode: `"incremental"` or `"generational"`.
    pub mode: &'static str,
    /// Generational mode: a minor collection is due when the heap has
    /// grown by this percentage since the last collection.
    pub minormul: u32,
    /// Generational mode: a major collection is due when the heap has
    /// grown by this percentage since the last major one.
    pub majormul: u32,
    /// Generational mode: the live bytes after the last major collection.
    pub gen_base: usize,
    /// Minor collections completed.
    pub minors: u64,
    /// Generational mode: 0, or the live bytes after the last major
    /// collection if it was *bad* (freed less than half of what the heap
    /// grew since the one before): the collector then waits a pause, as in
    /// incremental mode, and the next collection is a major one again
    /// (5.4's `lastatomic`, `gc/generational.rs`).
    pub lastatomic: usize,
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
    /// Where the cycle is.
    pub phase: Phase,
    /// The cycle's marking state.
    pub(crate) cycle: Cycle,
}

impl GcState {
    /// Initial state.
    pub fn new() -> GcState {
        GcState {
            threshold: MIN_GAP,
            estimate: 0,
            pause: 200,
            stepmul: 100,
            stepsize: STEPSIZE,
            running: true,
            mode: "incremental",
            minormul: 20,
            majormul: 100,
            gen_base: 0,
            minors: 0,
            lastatomic: 0,
            finobj: Vec::new(),
            finset: BTreeSet::new(),
            tobefnz: Default::default(),
            in_fin: false,
            cycles: 0,
            phase: Phase::Pause,
            cycle: Cycle::default(),
        }
    }

    /// Sets the next threshold from the live size of the objects and the
    /// running stack's bytes (see [`State::stack_bytes`]): the next cycle
    /// starts when the two have grown to `pause` percent of their sum (the
    /// stack taken as it is now).
    pub fn reset_threshold(&mut self, live: usize, stack: usize) {
        self.estimate = live;
        let size = live.saturating_add(stack);
        let by_pause = size / 100 * self.pause as usize;
        self.threshold = by_pause.max(size) - stack;
    }

    /// Bytes allocated between two steps of a cycle.
    fn step_bytes(&self) -> usize {
        1usize << self.stepsize.min(40)
    }

    /// Work (bytes' worth of traversal) of one step.
    pub(crate) fn step_budget(&self) -> usize {
        self.step_bytes().saturating_mul(self.stepmul.max(1) as usize)
    }

    /// Work of the step due at a safe point with the heap at `bytes`:
    /// one step's, plus the debt past the threshold at the same rate
    /// (5.4's `incstep` pays its whole debt). A program that grows a big
    /// table between two safe points, where no step can run, has the
    /// collector keep pace with what it allocated.
    pub(crate) fn step_budget_for(&self, bytes: usize) -> usize {
        let debt = bytes.saturating_sub(self.threshold);
        debt.saturating_mul(self.stepmul.max(1) as usize).saturating_add(self.step_budget())
    }

    /// Whether the collector runs in generational mode.
    #[inline]
    pub fn is_gen(&self) -> bool {
        self.mode == "generational"
    }

    /// Whether the arenas keep generational ages: generational mode, and
    /// not waiting after a bad collection (then the heap looks as in
    /// incremental mode's pause: no marks, barriers off).
    #[inline]
    pub(crate) fn gen_ages(&self) -> bool {
        self.is_gen() && self.lastatomic == 0
    }

    /// Generational mode: the next collection's threshold, `minormul`
    /// percent above the size now, the objects' `bytes` plus the running
    /// stack's (5.4's `setminordebt`: no floor).
    fn set_minor_threshold(&mut self, bytes: usize, stack: usize) {
        let gap = (bytes.saturating_add(stack) / 100).saturating_mul(self.minormul as usize);
        self.threshold = bytes.saturating_add(gap);
    }

    /// Generational mode: whether the next collection is a major one, the
    /// size (objects and running stack) being `size`.
    fn major_due(&self, size: usize) -> bool {
        size > self.gen_base.saturating_add(self.major_growth())
    }

    /// Generational mode: the growth since the last major collection that
    /// makes the next one due (`majormul` percent of its live bytes).
    fn major_growth(&self) -> usize {
        (self.gen_base / 100).saturating_mul(self.majormul as usize)
    }
}

/// Runs `$body` with `$a` bound to each arena's collector state in turn,
/// the tables' header arena included.
macro_rules! for_each_marks {
    ($heap:expr, $a:ident => $body:expr) => {{
        let h = $heap;
        {
            let $a = &mut h.strings;
            $body;
        }
        {
            let $a = h.tables.arena_mut();
            $body;
        }
        {
            let $a = &mut h.lua_fns;
            $body;
        }
        {
            let $a = &mut h.rust_fns;
            $body;
        }
        {
            let $a = &mut h.upvals;
            $body;
        }
        {
            let $a = &mut h.protos;
            $body;
        }
        {
            let $a = &mut h.threads;
            $body;
        }
        {
            let $a = &mut h.userdata;
            $body;
        }
    }};
}

impl State {
    /// The collector's safe point after the instruction the running frame
    /// just ran (its saved pc is past it, and past NEWTABLE's EXTRAARG):
    /// NEWTABLE, CONCAT or CLOSURE, whose result `R[A]` ends the live
    /// registers (`checkGC(L, ra + 1)` in `lvm.c`), or a CALL whose native
    /// callee returned, whose results end them (at `open_top` when the
    /// call wants them all). Out of the loop, as the step is rare; the
    /// instruction is read again here rather than passed, which would
    /// change the loop's register allocation (docs/PROFILING.md item 18).
    #[cold]
    #[inline(never)]
    pub(crate) fn loop_safe_point(&mut self) -> Result<(), crate::Error> {
        // Invariant: the loop's frame is on top, a Lua frame (`savepc!`).
        let ci = self.ex.frames.last().expect("frame");
        let code = &self.frame_proto(ci).expect("a Lua frame").code;
        let mut at = ci.pc as usize - 1;
        if code[at].opcode() == Some(OpCode::ExtraArg) {
            at -= 1;
        }
        let i = code[at];
        if i.op_raw() == OpCode::Call as u8 && self.defer_after_native() {
            return Ok(());
        }
        let ra = self.reg_slot(i.a());
        let live = match (i.op_raw(), i.c()) {
            (c, 0) if c == OpCode::Call as u8 => crate::thread::u(self.ex.open_top),
            (op, c) if op == OpCode::Call as u8 => ra + c as usize - 1,
            _ => ra + 1,
        };
        self.gc_safe_point(live)
    }

    /// At the safe point after a native returned, in generational mode:
    /// if the native allocated nothing ([`State::native_mark`]), no step,
    /// as in 5.4, which checks its collector only where something is
    /// allocated (`lvm.c`'s NEWTABLE, CONCAT, CLOSURE..., the C API's
    /// allocating functions), never after `math.sin`. The debt was run up
    /// elsewhere (a table grown by `t[k] = v`, which has no safe point),
    /// and the step waits for the next allocation: the threshold is set
    /// just above the heap, so the next safe point that follows an
    /// allocation takes it, and the next native that allocates nothing
    /// does not stop here again. (A major collection in the middle of
    /// filling a big table found it alive and was bad, and the collector
    /// then waited for twice the heap: Luau's `trig` held the round
    /// before's dead 16 MB array into the next round, 2.05× lua5.4's
    /// memory, benches/RESULTS.md part 35.) In incremental mode the
    /// threshold also measures the debt a step pays, so it is left alone
    /// and the step is taken.
    fn defer_after_native(&mut self) -> bool {
        if !self.gc.is_gen() || self.heap.bytes > self.native_mark {
            return false;
        }
        self.gc.threshold = self.heap.bytes.saturating_add(1);
        self.clamp_gc_threshold();
        self.gc.threshold > self.heap.bytes
    }

    /// Checked at safe points of the loop: runs a step if the debt is due.
    /// With a memory limit (`limits.rs`) the threshold never passes the
    /// limit, and a heap still over it after a full collection is a memory
    /// error (even with the collector stopped, as the reference's emergency
    /// collection).
    ///
    /// `live` is the end of the running frame's live registers (`lvm.c`'s
    /// `checkGC(L, c)`): the compiler allocates registers as a stack, and
    /// at a safe point those at and above `live` are free, written before
    /// they are next read. They may still hold values of a finished call
    /// (a return leaves the caller's dead registers alone, `thread.rs`),
    /// which must neither keep garbage alive nor be left pointing at freed
    /// objects: they are set to nil first, as 5.4 clears the stack above
    /// its top in the atomic step.
    #[cold]
    #[inline(never)]
    pub(crate) fn gc_safe_point(&mut self, live: usize) -> Result<(), crate::Error> {
        if let Some(dead) = self.ex.stack.get_mut(live..) {
            dead.fill(Value::Nil);
        }
        if !self.gc.running || self.gc.in_fin {
            // Postpone: try again after another gap.
            self.gc.threshold = self.heap.bytes + MIN_GAP;
        } else if self.gc.is_gen() {
            self.gen_step();
            self.run_finalizers();
        } else if self.gc_run(self.gc.step_budget_for(self.heap.bytes)) {
            self.run_finalizers();
        }
        self.clamp_gc_threshold();
        self.enforce_memory_limit()
    }

    /// Where the collector is in its cycle.
    pub fn gc_phase(&self) -> Phase {
        self.gc.phase
    }

    /// Collection cycles completed.
    pub fn gc_cycles(&self) -> u64 {
        self.gc.cycles
    }

    /// What the collector is doing, for tests and profiling.
    pub fn gc_stats(&self) -> GcStats {
        GcStats {
            phase: self.gc.phase,
            cycles: self.gc.cycles,
            minors: self.gc.minors,
            waiting: self.gc.lastatomic != 0,
            gray: self.gc.cycle.gray.len(),
            tables_in_chunks: self.gc.cycle.partial.len(),
            work: self.gc.cycle.work,
        }
    }

    /// A step of the collector (`lua_gc(L, LUA_GCSTEP, kbytes)`): a basic
    /// step with 0, else the work of allocating `kbytes` KB; runs even
    /// when the collector is stopped. True if a cycle ended (its
    /// finalizers have run). In generational mode a full collection that
    /// reports no end of cycle (see the module docs).
    pub fn gc_step(&mut self, kbytes: usize) -> bool {
        if self.gc.is_gen() {
            self.gen_step();
            self.run_finalizers();
            return false;
        }
        let budget = match kbytes {
            0 => self.gc.step_budget(),
            k => k.saturating_mul(1024).saturating_mul(self.gc.stepmul.max(1) as usize),
        };
        let ended = self.gc_run(budget);
        if ended {
            self.run_finalizers();
        }
        ended
    }

    /// Stops (`false`) or restarts (`true`) automatic collection.
    pub fn gc_set_running(&mut self, on: bool) {
        self.gc.running = on;
        let stack = self.stack_bytes();
        if on && self.gc.is_gen() && self.gc.lastatomic == 0 {
            self.gc.set_minor_threshold(self.heap.bytes, stack);
        } else if on && (self.gc.phase == Phase::Pause || self.gc.is_gen()) {
            self.gc.reset_threshold(self.heap.bytes, stack);
        } else if on {
            self.gc.threshold = self.heap.bytes;
        }
    }

    /// Whether automatic collection runs.
    pub fn gc_is_running(&self) -> bool {
        self.gc.running
    }

    /// Incremental mode with its parameters (`pause` %, step multiplier,
    /// log2 of the step size in bytes; 0 keeps a parameter); returns the
    /// previous mode's name.
    pub fn gc_incremental(&mut self, pause: u32, stepmul: u32, stepsize: u32) -> &'static str {
        if self.gc.is_gen() {
            self.leave_gen();
        }
        let old = std::mem::replace(&mut self.gc.mode, "incremental");
        if pause != 0 {
            self.gc.pause = pause;
        }
        if stepmul != 0 {
            self.gc.stepmul = stepmul;
        }
        if stepsize != 0 {
            self.gc.stepsize = stepsize.min(40);
        }
        old
    }

    /// Generational mode with its parameters (the minor and major
    /// multipliers, percentages; 0 keeps one); returns the previous mode's
    /// name. Entering it runs a major collection (`gc/generational.rs`).
    pub fn gc_generational(&mut self, minormul: u32, majormul: u32) -> &'static str {
        if minormul != 0 {
            self.gc.minormul = minormul.min(1000);
        }
        if majormul != 0 {
            self.gc.majormul = majormul.min(10_000);
        }
        if self.gc.is_gen() {
            return "generational";
        }
        self.enter_gen();
        "incremental"
    }

    /// Runs a full collection cycle, then the pending finalizers.
    pub fn collect_garbage(&mut self) {
        if self.gc.is_gen() {
            self.full_gen();
            self.run_finalizers();
        } else {
            self.full_gc();
        }
    }

    /// Does `budget` bytes' worth of collection work (at least one step),
    /// starting a cycle if none runs. True if a cycle ended (its
    /// finalizers are then pending: the caller runs them).
    pub(crate) fn gc_run(&mut self, budget: usize) -> bool {
        if self.gc.phase == Phase::Pause {
            self.start_cycle();
        }
        let mut left = budget.max(1);
        loop {
            let used = self.single_step(left).max(1);
            if self.gc.phase == Phase::Pause {
                return true;
            }
            left = left.saturating_sub(used);
            if left == 0 {
                break;
            }
        }
        self.gc.threshold = self.heap.bytes.saturating_add(self.gc.step_bytes());
        false
    }

    /// One piece of work in the current phase, within `budget`; returns
    /// the work done.
    fn single_step(&mut self, budget: usize) -> usize {
        match self.gc.phase {
            Phase::Pause => 0,
            Phase::Propagate => {
                let mode_name = self.tm_names[TM_MODE];
                let limit = self.heap.bytes.max(self.gc.estimate).saturating_mul(WORK_LIMIT);
                let mut m = Marker::new(&mut self.heap, &mut self.gc.cycle, mode_name);
                let idle = m.c.gray.is_empty() && m.c.partial.is_empty() && !m.barriers_pending();
                let forced = m.c.work > limit;
                let before = m.c.work;
                if (idle || forced) && self.atomic(budget, forced) {
                    return self.gc.cycle.work.saturating_sub(before);
                }
                let mut m = Marker::new(&mut self.heap, &mut self.gc.cycle, mode_name);
                m.drain_barriers();
                m.propagate(budget)
            }
            Phase::Sweep(k) => {
                let (work, finished) = self.sweep_arena(k, budget);
                if finished {
                    if k + 1 < ObjRef::KINDS as u8 {
                        self.gc.phase = Phase::Sweep(k + 1);
                    } else {
                        self.end_cycle();
                    }
                }
                work
            }
        }
    }

    /// Starts a cycle: marks the roots, turns the barriers on.
    fn start_cycle(&mut self) {
        let gray = std::mem::take(&mut self.gc.cycle.gray);
        self.gc.cycle = Cycle { gray, ..Cycle::default() };
        self.gc.phase = Phase::Propagate;
        self.mark_roots(false);
        self.set_barriers(true);
    }

    /// Marks every root (step 1 of the module docs). A minor collection
    /// (`minor`) skips the metamethod and type names: they are old.
    fn mark_roots(&mut self, minor: bool) {
        // The cycle is out of the state while the world fields are
        // borrowed (none of them visits it: its gray objects are marked).
        let mut cycle = std::mem::take(&mut self.gc.cycle);
        let mode_name = self.tm_names[TM_MODE];
        let (world, heap) = self.world_and_heap();
        world.visit(&mut MarkRoots { m: Marker::new(heap, &mut cycle, mode_name), minor });
        self.gc.cycle = cycle;
    }

    /// The atomic step (step 3 of the module docs); enters the sweep and
    /// returns true. Unless `forced`, it backs out (barriers on again,
    /// nothing else changed) if marking the roots again leaves more than
    /// `budget` of work, which the propagation steps then do.
    fn atomic(&mut self, budget: usize, forced: bool) -> bool {
        self.set_barriers(false);
        self.mark_roots(false);
        let mode_name = self.tm_names[TM_MODE];
        let mut m = Marker::new(&mut self.heap, &mut self.gc.cycle, mode_name);
        m.drain_barriers();
        if !forced && m.pending_work() > budget {
            self.set_barriers(true);
            return false;
        }
        self.finish_marking();
        let c = &mut self.gc.cycle;
        c.gray.clear();
        c.weak_values = Vec::new();
        c.ephemerons = Vec::new();
        c.all_weak = Vec::new();
        c.bytes_at_atomic = self.heap.bytes;
        for_each_marks!(&mut self.heap, a => a.begin_sweep());
        self.gc.phase = Phase::Sweep(0);
        true
    }

    /// The rest of the atomic step, once the roots are marked again and
    /// the barriers drained: marking to the end, ephemerons, weak tables
    /// cleared, unreachable objects flagged for finalization separated and
    /// resurrected. The weak tables met stay listed in the cycle.
    fn finish_marking(&mut self) {
        let mode_name = self.tm_names[TM_MODE];
        let mut m = Marker::new(&mut self.heap, &mut self.gc.cycle, mode_name);
        // The running stack's slots above its length are not marked: the
        // sweep may free what they name (`stack.rs`); the other stacks,
        // stored in their threads, forget theirs when they run again.
        self.ex.stack.forget_kept();
        self.stack_epoch += 1;
        for list in [&mut m.c.weak_values, &mut m.c.ephemerons, &mut m.c.all_weak] {
            list.sort_unstable();
            list.dedup();
        }
        m.converge_ephemerons();
        // Clear weak values before resurrection.
        let wv = m.c.weak_values.clone();
        let aw = m.c.all_weak.clone();
        m.clear_values(&wv);
        m.clear_values(&aw);
        // Separate unreachable finalizable objects (most recent first),
        // with no allocation when there are none (a minor collection's
        // usual case).
        let newly: Vec<Value> =
            self.gc.finobj.iter().rev().copied().filter(|&o| !is_alive_in(m.heap, o)).collect();
        if !newly.is_empty() {
            self.gc.finobj.retain(|&o| is_alive_in(m.heap, o));
        }
        for &o in &newly {
            self.gc.finset.remove(&Heap::object_id(o));
            m.mark(o);
        }
        m.converge_ephemerons();
        // Keys of every weak-key table, including those first reached by
        // resurrection; values of the weak-value tables so reached (as
        // `clearbyvalues(g, g->weak, origweak)` in `atomic`).
        let eph = m.c.ephemerons.clone();
        let aw_all = m.c.all_weak.clone();
        m.clear_keys(&eph);
        m.clear_keys(&aw_all);
        let wv2: Vec<TableRef> = m.c.weak_values.get(wv.len()..).unwrap_or_default().to_vec();
        let aw2: Vec<TableRef> = aw_all.get(aw.len()..).unwrap_or_default().to_vec();
        m.clear_values(&wv2);
        m.clear_values(&aw2);
        self.gc.tobefnz.extend(newly);
    }

    /// Turns the barriers on or off (the table arena's own stays off:
    /// tables have theirs).
    fn set_barriers(&mut self, on: bool) {
        for_each_marks!(&mut self.heap, a => a.set_watch(on));
        self.heap.tables.arena_mut().set_watch(false);
        self.heap.tables.set_watch(on);
    }

    /// Sweeps `budget` units of work of arena `k`; returns the work done
    /// and whether the arena is done.
    fn sweep_arena(&mut self, k: u8, slots: usize) -> (usize, bool) {
        let heap = &mut self.heap;
        match k {
            0 => {
                let interner = &mut heap.interner;
                heap.strings.sweep_step(slots, |h, s| interner.remove(h, s))
            }
            1 => heap.tables.sweep_step(slots),
            2 => heap.lua_fns.sweep_step(slots, |_, _| {}),
            3 => heap.rust_fns.sweep_step(slots, |_, _| {}),
            4 => heap.upvals.sweep_step(slots, |_, _| {}),
            5 => heap.protos.sweep_step(slots, |_, _| {}),
            6 => heap.threads.sweep_step(slots, |_, _| {}),
            _ => heap.userdata.sweep_step(slots, |_, _| {}),
        }
    }

    /// The end of a cycle (step 5 of the module docs, but the finalizers).
    fn end_cycle(&mut self) {
        let c = std::mem::take(&mut self.gc.cycle);
        self.gc.cycle.gray = c.gray;
        let since = self.heap.bytes.saturating_sub(c.bytes_at_atomic);
        self.heap.bytes = c.live + since;
        self.gc.phase = Phase::Pause;
        self.gc.reset_threshold(self.heap.bytes, self.stack_bytes());
        self.gc.cycles += 1;
    }

    /// A whole cycle in one go, then the pending finalizers.
    fn full_gc(&mut self) {
        self.settle_cycle();
        self.start_cycle();
        self.atomic(0, true);
        while self.gc.phase != Phase::Pause {
            self.single_step(usize::MAX);
        }
        self.run_finalizers();
    }

    /// Brings the collector to the pause: a cycle still marking is
    /// dropped, one sweeping is finished.
    fn settle_cycle(&mut self) {
        match self.gc.phase {
            Phase::Pause => {}
            Phase::Propagate => self.abandon_cycle(),
            Phase::Sweep(_) => {
                while self.gc.phase != Phase::Pause {
                    self.single_step(usize::MAX);
                }
            }
        }
    }

    /// Drops a cycle that is still marking: nothing but marks has changed.
    fn abandon_cycle(&mut self) {
        for_each_marks!(&mut self.heap, a => a.reset_marks());
        self.heap.tables.set_watch(false);
        self.heap.tables.fwd_mut().clear();
        self.gc.cycle = Cycle::default();
        self.gc.phase = Phase::Pause;
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
        // Through the absence cache: most metatables have no `__gc`.
        if self.fast_tm(mt, TM_GC).is_nil() {
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
    /// times 1024): the objects' (`heap.bytes`) and the running stack's.
    pub fn memory_in_use(&self) -> usize {
        self.heap.bytes.saturating_add(self.stack_bytes())
    }

    /// The running thread's stack and frames, in bytes, from their lengths
    /// (`ExecState::logical_bytes`): the part of the memory in use that
    /// `heap.bytes` leaves out. The other threads' stacks are counted in
    /// their objects' sizes (`Thread::estimated_bytes`); the running
    /// thread's object holds an empty state. 5.4 counts its stacks as it
    /// grows and shrinks them; here the running stack is measured when the
    /// collector sets a threshold or decides on a collection, so a deep
    /// recursion spaces collections as it does in 5.4 (`fixpoint-fact`:
    /// RESULTS part 25). From lengths, not capacities, so that a loaded
    /// or rolled-back state measures what the original did.
    pub(crate) fn stack_bytes(&self) -> usize {
        self.ex.logical_bytes()
    }
}

mod generational;

/// A visitor marking the references it meets: the roots, as
/// [`State::visit_world`] describes them, each marked where it is met
/// (collected into a list first, they cost a minor collection of a small
/// heap 1,900 instructions, more than the rest of it).
struct MarkRoots<'a> {
    m: Marker<'a>,
    /// A minor collection: the fixed names are old (marked since the last
    /// major collection, and a string is never unmarked by a barrier: it
    /// cannot change), so they are not marked again, as 5.4's `luaC_fix`
    /// keeps them out of every collection. Marking them was a fifth of a
    /// minor collection of a small heap (RESULTS part 33).
    minor: bool,
}

impl Visit for MarkRoots<'_> {
    #[inline(always)]
    fn obj(&mut self, o: ObjRef) {
        self.m.mark_ref(o);
    }

    #[inline(always)]
    fn fixed_names(&mut self, names: &[crate::value::StrRef]) {
        if !self.minor {
            names.iter().for_each(|&s| self.m.mark_str(s));
        } else {
            debug_assert!(names.iter().all(|&s| self.m.heap.strings.is_marked(s)));
        }
    }
}
