//! Limits for untrusted scripts: an instruction budget, a memory limit and
//! an interrupt flag.
//!
//! # The instruction count
//!
//! The budget is not a count of dispatched instructions (counting each one
//! would cost a decrement and a branch per instruction); it is a count of
//! *charged* instructions, taken where the dispatch loop already branches:
//!
//! * a backward jump (`JMP`, a taken conditional jump, `FORLOOP`,
//!   `TFORLOOP`) charges its distance, the length of the loop body it
//!   repeats;
//! * a function call charges [`CALL_COST`], however it is made: a `CALL` or
//!   `TAILCALL` instruction, a metamethod, a `__close`, a generic-`for`
//!   iterator, a function a native asks the VM to call ([`Action::Call`](crate::raw::Action::Call))
//!   or calls nested ([`State::call_value`]), a call made by the host.
//!
//! Between two charges the VM only runs straight-line code of one function,
//! so the work done per charged unit is bounded by the size of the largest
//! function; for structured loops the count is close to the number of
//! instructions executed. Natives are charged as calls, plus the work they
//! do (next section).
//!
//! # Work done by natives
//!
//! A library function can do unbounded work in one call (an exponentially
//! backtracking pattern, `string.rep(s, 1e9)`, `table.move` over a huge
//! range), or bounded but large work in a loop of cheap calls (`s:upper()`
//! of a 100 MB string, `load` of a big chunk). So every native whose work
//! can grow beyond a small constant charges it, in proportion to the work
//! and as it goes, to the same count as instructions:
//! [`State::charge_work`] (units) and [`State::charge_bytes`] (bytes), or,
//! for a loop that reads borrowed strings or tables, a [`WorkMeter`]
//! borrowed together with a read-only [`HeapView`] ([`State::work_meter`]).
//! The instruction limit and the interrupt flag then stop the native at the
//! check its charge reaches, with the same errors as Lua code, and the
//! point depends only on the work counted (never on time), so the same
//! program stops at the same charge in every process. The exchange rates
//! (one unit = one charged instruction, roughly the same few nanoseconds):
//!
//! * one pattern-matcher step (an item tried at a subject position, a byte
//!   scanned by a repetition or `%b`) = 1; a plain `find` charges 1 per
//!   candidate position and per 64 bytes compared;
//! * bytes copied, scanned or case-mapped = 1 per [`WORK_BYTES`] (64): the
//!   string functions' results, `table.concat`, `tostring`, `tonumber`,
//!   `string.pack`, the `..` operator (`CONCAT`, which builds its result in
//!   one step), and `...` expanded in full (`VARARG`: 16-byte values, so
//!   1 per 4 values);
//! * bytes decoded by `utf8` = 1 per 8; source compiled by `load`,
//!   `loadfile`, `dofile` = [`LOAD_COST`] (32) per byte (compiling costs
//!   much more per byte than copying); a full collection by
//!   `collectgarbage` = 1 per 64 bytes of heap;
//! * empty table slots skipped by `next` (16-byte slots, as bytes scanned:
//!   1 per 4), since a table emptied of most of its entries makes every
//!   call scan them;
//! * one element pushed, moved, read or compared by a library loop
//!   (`table.insert`/`remove`/`move`/`unpack`/`concat`, `table.sort`'s
//!   comparisons, `string.byte`, `string.char`) = 1.
//!
//! Work bounded by a constant (a table lookup, a number conversion) is
//! not charged. Work bounded by an existing object (one pass over a
//! string) may be charged before or after it is done; work that can grow
//! beyond the objects that exist (`string.rep`, `table.move`, the matcher)
//! is charged as it goes, so that the limit stops it part way.
//!
//! Charging is cheap when no check is due: one subtraction and one
//! predictable branch ([`State::charge_work`], [`WorkMeter::charge`]), and
//! a hot loop can do better: the matcher counts its steps down from
//! [`WorkMeter::headroom`] in a local and charges them in bulk when the
//! headroom is used up (the charge that makes the check) and when it ends,
//! which is the same accounting as charging each step. A check made by
//! [`State::charge_work`] is the full check (it may run the budget hook
//! and, past the memory limit, a collection); one made through a
//! [`WorkMeter`] looks only at the interrupt flag and the instruction
//! limit, since the heap is borrowed: the hook and the memory limit wait
//! for the next check made by the VM.
//!
//! The count depends only on the path the program takes, so **the same
//! program with the same inputs always stops at the same point**: same
//! instruction, same heap, same count. The charge that takes the count past
//! the limit raises the error.
//!
//! # Checks and slices
//!
//! The hot paths decrement `State::budget` and call `budget_exhausted`
//! (`execute.rs`) when it reaches zero. `budget` is the countdown to the
//! next *check*; a check settles the charged count, looks at the interrupt
//! flag, the instruction limit and the memory limit, runs the budget hook
//! if there is one, and starts a new slice of at most [`SLICE`] units
//! (fewer when the instruction limit is near, so that it is met exactly).
//! Checks happen at the same points whatever the flags, and do nothing
//! observable unless a limit is hit: slicing does not affect determinism.
//! The interrupt flag is one relaxed atomic load per slice.
//!
//! # Limit errors are not catchable by Lua
//!
//! [`ErrorKind::InstructionLimit`] and [`ErrorKind::Interrupted`] pass
//! through `pcall`, `xpcall` and `coroutine.resume`/`wrap` to the host (the
//! driver in `call.rs` does not stop at protected frames for them; `resume`
//! re-raises them in the resumer). To-be-closed variables are still closed
//! by the host-level unwind ([`State::call`], [`State::pcall_value`]). The
//! condition is also *sticky*: once raised, it is raised again at the next
//! check, [`GRACE`] charged instructions later, until the host lifts it
//! (`set_instruction_limit`, `InterruptHandle::clear`). The grace lets the
//! `__close` handlers of the unwind and pending finalizers run (each gets
//! at most `GRACE`), and no code path that catches the error (a finalizer's
//! protected call, a `__close` handler) can keep running. After the error
//! the state is consistent and usable: the host raises the limit (or clears
//! the flag) and calls again.
//!
//! # Memory
//!
//! The limit applies to `heap.bytes`, the VM's own estimate of the memory
//! held by Lua objects (the figure that paces the collector; Rust-side
//! buffers such as the Lua stack are not counted). With a limit set, the
//! collector's threshold never exceeds it, so the first safe point past the
//! limit collects; if the heap is still over the limit, it raises
//! `not enough memory` ([`ErrorKind::Memory`]). The same happens at every
//! check (for growth that happens between safe points, like table stores),
//! and natives about to build a large result call [`State::check_alloc`]
//! first (`string.rep`), so they fail before allocating. As in PUC Lua, a
//! memory error is an ordinary error that `pcall` catches; but since every
//! allocation past the limit fails again, a script that catches it and
//! keeps allocating cannot grow: the heap can pass the limit only by the
//! object whose allocation is being checked (one table growth step or one
//! concatenation), never cumulatively.
//!
//! # Rust stack
//!
//! Lua-to-Lua calls do not use the Rust stack, but a native calling Lua
//! ([`State::call_value`]: `tostring`'s `__tostring`, a message handler,
//! a native asking for a nested call) and `coroutine.resume` run a nested
//! interpreter loop. Their nesting is bounded by the logical
//! [`MAX_CCALLS`](crate::state::MAX_CCALLS) (200, `C stack overflow` as in
//! the reference), not by the machine stack: no stack probing, no stack
//! switching. Measured per level (`tests/limits.rs`, x86-64): 3.1-4.0 KB
//! optimized, 3.6-4.7 KB at opt-level 1, 95-100 KB unoptimized. **The VM
//! needs 2 MB of thread stack** (the Rust default for spawned threads),
//! and must be built with `opt-level` >= 1: the workspace sets
//! `[profile.dev.package.luprex-vm] opt-level = 1`, and an embedder's
//! debug build must do the same (or give the VM a 32 MB stack).

use crate::error::{Error, ErrorKind};
use crate::state::State;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Charged instructions per function call (see the module docs).
pub const CALL_COST: i64 = 1;

/// Bytes copied or scanned by a native per charged instruction
/// ([`State::charge_bytes`]).
pub const WORK_BYTES: u64 = 64;

/// Charged instructions per byte of source compiled by `load` (measured:
/// about 150 ns per byte of dense code, against about 3 ns per charged
/// instruction of a simple loop).
pub const LOAD_COST: u64 = 32;

/// Longest slice between two checks, in charged instructions (bounds the
/// latency of an interrupt).
pub const SLICE: i64 = 10_000;

/// Charged instructions allowed after a limit error before the next check
/// raises it again: room for `__close` handlers and finalizers to clean up
/// (each gets at most this much), never for useful work.
pub const GRACE: i64 = 1_000;

/// A handle that interrupts a [`State`] from any thread.
///
/// [`InterruptHandle::interrupt`] raises the flag; the state then fails
/// with [`ErrorKind::Interrupted`] at its next check (within `SLICE`
/// charged instructions) and at every check after that, until
/// [`InterruptHandle::clear`] lowers the flag.
#[derive(Clone, Debug, Default)]
pub struct InterruptHandle(Arc<AtomicBool>);

impl InterruptHandle {
    /// Raises the flag: the running script stops at its next check.
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Lowers the flag, so the state can run again.
    pub fn clear(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether the flag is raised.
    pub fn is_interrupted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The limits configured on a state, and the instruction accounting.
#[derive(Debug)]
pub(crate) struct Limits {
    /// Memory limit on `heap.bytes`.
    memory: Option<usize>,
    /// Instruction limit, counted from when it was set.
    instructions: Option<u64>,
    /// Instructions charged in settled slices since the limit was set.
    charged: u64,
    /// The value `State::budget` had when the current slice started.
    slice: i64,
    /// The interrupt flag shared with the [`InterruptHandle`]s.
    interrupt: InterruptHandle,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory: None,
            instructions: None,
            charged: 0,
            slice: SLICE,
            interrupt: InterruptHandle::default(),
        }
    }
}

impl Limits {
    /// Settles the current slice: `budget` is what is left of it.
    fn settle(&mut self, budget: i64) {
        let in_slice = (self.slice - budget).max(0) as u64;
        self.charged = self.charged.saturating_add(in_slice);
        self.slice = budget;
    }

    /// The limit condition that holds after [`Limits::settle`], if any.
    fn stop(&self) -> Option<WorkStop> {
        if self.interrupt.is_interrupted() {
            return Some(WorkStop { interrupted: true });
        }
        if self.instructions.is_some_and(|l| self.charged > l) {
            return Some(WorkStop { interrupted: false });
        }
        None
    }

    /// Starts a new slice and returns the budget it gives: at most
    /// [`SLICE`], fewer when the instruction limit is near, so that it is
    /// met exactly.
    fn start_slice(&mut self) -> i64 {
        let mut next = SLICE;
        if let Some(l) = self.instructions {
            // Fail exactly on the charge that passes the limit.
            let room = l.saturating_sub(self.charged).saturating_add(1);
            next = next.min(i64::try_from(room).unwrap_or(i64::MAX));
        }
        self.slice = next;
        next
    }
}

/// Why metered work stopped: the instruction limit or the interrupt flag
/// (see [`WorkMeter::charge`]). [`State::work_error`] turns it into the
/// error to return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct WorkStop {
    interrupted: bool,
}

impl WorkStop {
    /// The kind of the error it stands for:
    /// [`ErrorKind::Interrupted`] or [`ErrorKind::InstructionLimit`].
    pub fn kind(self) -> ErrorKind {
        if self.interrupted {
            ErrorKind::Interrupted
        } else {
            ErrorKind::InstructionLimit
        }
    }
}

/// Read-only access to strings and tables while a [`WorkMeter`] is
/// borrowed from the same state ([`State::work_meter`]).
#[derive(Clone, Copy)]
pub struct HeapView<'a> {
    heap: &'a crate::heap::Heap,
}

impl<'a> HeapView<'a> {
    /// A string's bytes, as [`State::str_bytes`].
    #[inline(always)]
    pub fn str_bytes(&self, s: crate::value::StrRef) -> &'a [u8] {
        self.heap.str(s)
    }

    /// A read-only view of a table, as [`State::table`].
    #[inline(always)]
    pub fn table(&self, t: crate::value::TableRef) -> crate::table::TableView<'a> {
        self.heap.tables.get(t)
    }
}

/// The instruction meter of a state, borrowed by a native that charges
/// work while it reads the heap ([`State::work_meter`]): the same
/// accounting as [`State::charge_work`], usable where the native holds
/// borrowed bytes (the pattern matcher charges every step through it).
///
/// A check made through the meter looks at the interrupt flag and the
/// instruction limit only; the budget hook and the memory limit wait for
/// the next check made by the VM (metered work reads the heap and does not
/// allocate in it).
pub struct WorkMeter<'a> {
    budget: &'a mut i64,
    limits: &'a mut Limits,
}

impl WorkMeter<'_> {
    /// Charges `units` instructions of work (see the exchange rates in the
    /// module docs of `limits.rs` and [`WORK_BYTES`]). Fails when the
    /// instruction limit is passed or the interrupt flag is raised (at the
    /// check this charge reaches); the native then stops and returns
    /// [`State::work_error`]. One subtraction and one predictable branch
    /// when no check is due.
    #[inline(always)]
    pub fn charge(&mut self, units: u64) -> Result<(), WorkStop> {
        *self.budget = self.budget.saturating_sub(i64::try_from(units).unwrap_or(i64::MAX));
        if *self.budget <= 0 {
            return self.check();
        }
        Ok(())
    }

    /// Units that can be charged before the next check is due: the
    /// charge that takes the total to `headroom()` makes the check. A loop
    /// may count its work down from it locally and charge the total when
    /// it reaches zero (and what it counted when it stops), which is the
    /// same accounting as charging each unit.
    #[inline(always)]
    pub fn headroom(&self) -> u64 {
        (*self.budget).max(0) as u64
    }

    /// The check run when the budget reaches zero, without hook or memory
    /// check.
    #[cold]
    #[inline(never)]
    fn check(&mut self) -> Result<(), WorkStop> {
        self.limits.settle(*self.budget);
        if let Some(stop) = self.limits.stop() {
            *self.budget = GRACE;
            self.limits.slice = GRACE;
            return Err(stop);
        }
        *self.budget = self.limits.start_slice();
        Ok(())
    }
}

/// Whether `e` must not be caught by a protected call in Lua
/// (`pcall`, `xpcall`, `coroutine.resume`).
pub(crate) fn passes_protection(e: &Error) -> bool {
    matches!(e.kind(), ErrorKind::InstructionLimit | ErrorKind::Interrupted)
}

impl State {
    /// Sets (or with `None` removes) the memory limit, in bytes of the VM's
    /// estimate of the memory held by Lua objects (what
    /// [`State::memory_in_use`] reports, less the running stack, whose
    /// depth has its own limit). Past it, allocations fail with
    /// `not enough memory` ([`ErrorKind::Memory`]) after a full collection.
    pub fn set_memory_limit(&mut self, bytes: Option<usize>) {
        self.limits.memory = bytes;
        if let Some(l) = bytes {
            self.gc.threshold = self.gc.threshold.min(l);
        }
    }

    /// Sets (or with `None` removes) the hook run at every limits check,
    /// that is every few thousand charged instructions (see the module
    /// docs): an error it returns stops the running code as a limit error
    /// does. The engine uses it to stop a command whose own budget is
    /// spent.
    pub fn set_budget_hook(&mut self, hook: Option<crate::state::BudgetHook>) {
        self.budget_hook = hook;
    }

    /// The memory limit, if any.
    pub fn memory_limit(&self) -> Option<usize> {
        self.limits.memory
    }

    /// Sets (or with `None` removes) the instruction limit: from now on the
    /// state may be charged `n` instructions (see the module docs for what
    /// is charged); the charge that passes `n` fails with
    /// [`ErrorKind::InstructionLimit`], as does every later one until the
    /// limit is set again. Each call starts a new count.
    pub fn set_instruction_limit(&mut self, n: Option<u64>) {
        self.limits.instructions = n;
        self.limits.charged = 0;
        self.start_slice();
    }

    /// Instructions left under the limit (`None` without a limit; `Some(0)`
    /// once it was passed).
    pub fn instructions_left(&self) -> Option<u64> {
        let lim = self.limits.instructions?;
        Some(lim.saturating_sub(self.instructions_charged()))
    }

    /// A handle to interrupt this state from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.limits.interrupt.clone()
    }

    /// Charges `units` instructions of work done by a native (see the
    /// module docs for the exchange rates): a native whose work can grow
    /// beyond a small constant calls it as it goes, in proportion to the
    /// work, so that the instruction limit and the interrupt flag stop it
    /// as they stop Lua code, with the same errors
    /// ([`ErrorKind::InstructionLimit`], [`ErrorKind::Interrupted`]) at the
    /// same point in every process. When no check is due it costs one
    /// subtraction and one predictable branch. A check it reaches may run
    /// the budget hook and, past the memory limit, a collection: call it
    /// where [`State::check_alloc`] could be called (values rooted).
    #[inline]
    pub fn charge_work(&mut self, units: u64) -> Result<(), Error> {
        self.budget = self.budget.saturating_sub(i64::try_from(units).unwrap_or(i64::MAX));
        if self.budget <= 0 {
            return self.limits_check();
        }
        Ok(())
    }

    /// Charges the work of copying or scanning `bytes` bytes:
    /// `bytes / WORK_BYTES` instructions ([`State::charge_work`]).
    #[inline]
    pub fn charge_bytes(&mut self, bytes: usize) -> Result<(), Error> {
        self.charge_work(bytes as u64 / WORK_BYTES)
    }

    /// The meter and a read-only view of the heap, borrowed together: for
    /// natives that charge work inside a loop over borrowed strings or
    /// tables (see [`WorkMeter`]). When the meter stops,
    /// [`State::work_error`] gives the error to return.
    pub fn work_meter(&mut self) -> (HeapView<'_>, WorkMeter<'_>) {
        (
            HeapView { heap: &self.heap },
            WorkMeter { budget: &mut self.budget, limits: &mut self.limits },
        )
    }

    /// The error for a stopped [`WorkMeter`]: `instruction limit exceeded`
    /// ([`ErrorKind::InstructionLimit`]) or `interrupted`
    /// ([`ErrorKind::Interrupted`]), sticky as every limit error.
    #[cold]
    pub fn work_error(&mut self, stop: WorkStop) -> Error {
        let msg = if stop.interrupted { "interrupted" } else { "instruction limit exceeded" };
        self.error_string(msg.as_bytes()).with_kind(stop.kind())
    }

    /// Fails with `not enough memory` if allocating `bytes` more would pass
    /// the memory limit even after a full collection. Natives call it
    /// before building a large result. The collection may run finalizers:
    /// call it only where a collection is safe (values on the stack).
    pub fn check_alloc(&mut self, bytes: usize) -> Result<(), Error> {
        let Some(l) = self.limits.memory else { return Ok(()) };
        if self.heap.bytes.saturating_add(bytes) <= l {
            return Ok(());
        }
        if !self.gc.in_fin {
            self.collect_garbage();
            self.gc.threshold = self.gc.threshold.min(l);
        }
        if self.heap.bytes.saturating_add(bytes) <= l {
            return Ok(());
        }
        Err(self.memory_error())
    }

    /// Fails if the heap is over the memory limit after a collection.
    pub(crate) fn enforce_memory_limit(&mut self) -> Result<(), Error> {
        self.check_alloc(0)
    }

    /// Clamps the collector's threshold to the memory limit.
    pub(crate) fn clamp_gc_threshold(&mut self) {
        if let Some(l) = self.limits.memory {
            self.gc.threshold = self.gc.threshold.min(l);
        }
    }

    /// `not enough memory`, without position, as `LUA_ERRMEM`.
    #[cold]
    pub(crate) fn memory_error(&mut self) -> Error {
        self.error_string(b"not enough memory").with_kind(ErrorKind::Memory)
    }

    /// Instructions charged since the limit was set (settled slices plus
    /// the current one).
    fn instructions_charged(&self) -> u64 {
        let in_slice = (self.limits.slice - self.budget).max(0) as u64;
        self.limits.charged.saturating_add(in_slice)
    }

    /// Charges `n` instructions outside the dispatch loop (calls).
    #[inline(always)]
    pub(crate) fn charge(&mut self, n: i64) -> Result<(), Error> {
        self.budget -= n;
        if self.budget <= 0 {
            return self.budget_exhausted();
        }
        Ok(())
    }

    /// The budget ran out: check the limits, run the hook and start a new
    /// slice (`limits.rs`).
    #[cold]
    #[inline(never)]
    pub(crate) fn budget_exhausted(&mut self) -> Result<(), Error> {
        self.limits_check()
    }

    /// The check run when `budget` reaches zero (see the module docs).
    #[cold]
    #[inline(never)]
    pub(crate) fn limits_check(&mut self) -> Result<(), Error> {
        self.limits.settle(self.budget);
        if let Some(stop) = self.limits.stop() {
            return Err(self.limit_error(stop));
        }
        if self.limits.memory.is_some_and(|l| self.heap.bytes > l) {
            self.enforce_memory_limit()?;
        }
        if let Some(hook) = self.budget_hook {
            hook(self)?;
        }
        let hooked = self.budget;
        self.start_slice();
        if hooked > 0 && hooked < self.budget {
            // The hook asked to be called sooner.
            self.budget = hooked;
            self.limits.slice = hooked;
        }
        Ok(())
    }

    /// Starts a new slice: `budget` counts down to the next check.
    fn start_slice(&mut self) {
        self.budget = self.limits.start_slice();
    }

    /// A sticky limit error (no position: the check runs after a jump).
    /// The next check comes after [`GRACE`] more charged instructions and
    /// fails again while the condition holds.
    #[cold]
    fn limit_error(&mut self, stop: WorkStop) -> Error {
        self.budget = GRACE;
        self.limits.slice = GRACE;
        self.work_error(stop)
    }
}
