//! Threads (coroutines) and the execution state they carry.
//!
//! Every thread, the main one included, is a [`Thread`] object in the heap.
//! Its execution state — value stack, frame stack, open upvalues and
//! to-be-closed variables — is an [`ExecState`]. The *running* thread's
//! `ExecState` does not live in its `Thread` object: it is moved into the
//! `State` (field `ex`) so that the dispatch loop reaches a register with a
//! single index into a `Vec`. Resuming a coroutine moves its `ExecState`
//! into the `State` (a few words; its `Thread` gets an empty one) and the
//! resumer's into the resumer's `Thread`; yielding moves them back.
//! While a thread runs, its `Thread` object holds an empty `ExecState`.
//!
//! # Stack layout
//!
//! A frame ([`CallInfo`]) owns the stack slots from its function slot
//! `func` upwards. For a Lua function the registers are
//! `stack[base .. base + max_stack]` and the stack's length is kept at
//! least `top = base + max_stack` while the frame runs; a multiple-result
//! call or `VARARG` may leave values above `top`, in which case the
//! exclusive end of those values is recorded in `ExecState::open_top` for
//! the next instruction (`CALL`/`RETURN`/`SETLIST` with B = 0) to consume.
//! A vararg function's extra arguments stay where the caller put them, just
//! below the frame's registers: `stack[base - 1 - nextra .. base - 1]`
//! (the callee was copied to `base - 1`). A Rust function's arguments are
//! `stack[base .. len]`; it pushes results at the end.
//!
//! Results always land at the frame's `func` slot.
//!
//! # Status
//!
//! As in Lua 5.4: a coroutine is `suspended` before it starts and while
//! yielded, `running` while it runs, `normal` while it resumed another one,
//! `dead` after returning or failing.

use crate::func::UpvalRef;
use crate::state::KFn;
use crate::value::{LuaFnRef, RustFnRef, Value};

/// Which function a frame runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A Lua closure.
    Lua(LuaFnRef),
    /// A Rust function.
    Rust(RustFnRef),
}

/// What the caller does with the result of a frame that a VM instruction
/// opened to run a metamethod (the analogue of `luaV_finishOp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaRet {
    /// An ordinary call: results go to `func` and on.
    Call,
    /// Store the single result into register `A` of the caller.
    Reg(u8),
    /// A comparison: `if truthy(result) ~= k then pc++` (negated for
    /// `__le`-style order swaps only by the caller's choice of operands).
    Cond(bool),
    /// Ignore the result (`__newindex`).
    Discard,
    /// A `__close` call: ignore the result, then redo the caller's
    /// instruction (`CLOSE` or `RETURN`, which closes the next variable or
    /// finishes) or, for a protected frame unwinding after an error,
    /// continue its recovery (see `State::recover_step`).
    Close,
    /// Concatenation in progress: the result replaces the pair ending at
    /// register `a + n - 1`; `n - 1` values remain to be joined.
    Concat {
        /// First register of the CONCAT range.
        a: u8,
        /// Number of values still in the range (including the pair).
        n: u8,
    },
}

impl MetaRet {
    /// The disposition as three bytes (a tag and two operands), the form
    /// the persisted state and the hashes write; [`MetaRet::from_code`] is
    /// its inverse.
    pub(crate) fn code(self) -> (u8, u8, u8) {
        match self {
            MetaRet::Call => (0, 0, 0),
            MetaRet::Reg(a) => (1, a, 0),
            MetaRet::Cond(k) => (2, u8::from(k), 0),
            MetaRet::Discard => (3, 0, 0),
            MetaRet::Close => (4, 0, 0),
            MetaRet::Concat { a, n } => (5, a, n),
        }
    }

    /// The disposition of a [`MetaRet::code`], if the bytes are one.
    pub(crate) fn from_code(tag: u8, a: u8, b: u8) -> Option<MetaRet> {
        Some(match (tag, a, b) {
            (0, 0, 0) => MetaRet::Call,
            (1, a, 0) => MetaRet::Reg(a),
            (2, k @ (0 | 1), 0) => MetaRet::Cond(k == 1),
            (3, 0, 0) => MetaRet::Discard,
            (4, 0, 0) => MetaRet::Close,
            (5, a, n) => MetaRet::Concat { a, n },
            _ => return None,
        })
    }
}

/// Frame flags.
pub mod cist {
    /// Frame is a protected call (`pcall`/`xpcall`): errors stop here.
    pub const PCALL: u8 = 1;
    /// The protected call has a message handler (`xpcall`).
    pub const XPCALL: u8 = 2;
    /// The frame was entered by a tail call.
    pub const TAIL: u8 = 4;
    /// A Rust frame waiting in a continuation after a yield.
    pub const YIELDED: u8 = 8;
    /// Frame opened for a finalizer (`__gc`).
    pub const FIN: u8 = 16;
    /// Frame entered from Rust (`call_value`): its results stay on top of
    /// the stack instead of being fitted to a Lua caller's registers.
    pub const FRESH: u8 = 32;
    /// A protected frame unwinding after an error: the error value is on
    /// top of the stack while its to-be-closed variables are closed.
    pub const RECOVER: u8 = 64;
}

/// One activation record.
#[derive(Clone, Copy, Debug)]
pub struct CallInfo {
    /// Stack slot of the called value; results are moved here.
    pub func: u32,
    /// First register (Lua) or first argument (Rust).
    pub base: u32,
    /// `base + max_stack` for Lua frames; unused for Rust frames.
    pub top: u32,
    /// Saved program counter (index of the next instruction) of a Lua frame.
    pub pc: u32,
    /// Number of extra (vararg) arguments of a Lua vararg frame.
    pub nextra: u32,
    /// Results wanted by the caller (`-1`: all).
    pub nresults: i32,
    /// Flags, see [`cist`].
    pub status: u8,
    /// What the caller does with the results.
    pub ret: MetaRet,
    /// The running function.
    pub callee: Callee,
    /// A Rust frame's continuation (set when it asks for a call or yields).
    pub k: Option<(KFn, i64)>,
    /// For protected frames: the stack level errors unwind to.
    pub errlevel: u32,
}

impl CallInfo {
    /// The frame of a Lua function `cl` called at stack slot `func`.
    #[inline(always)]
    pub fn lua(
        func: usize,
        base: usize,
        top: usize,
        nextra: usize,
        nresults: i32,
        ret: MetaRet,
        cl: LuaFnRef,
    ) -> CallInfo {
        CallInfo {
            func: func as u32,
            base: base as u32,
            top: top as u32,
            pc: 0,
            nextra: nextra as u32,
            nresults,
            status: 0,
            ret,
            callee: Callee::Lua(cl),
            k: None,
            errlevel: 0,
        }
    }

    /// The frame of a Rust function `h` called at stack slot `func` (its
    /// arguments start at `func + 1`).
    #[inline(always)]
    pub fn rust(func: usize, nresults: i32, ret: MetaRet, h: RustFnRef) -> CallInfo {
        CallInfo {
            func: func as u32,
            base: func as u32 + 1,
            top: 0,
            pc: 0,
            nextra: 0,
            nresults,
            status: 0,
            ret,
            callee: Callee::Rust(h),
            k: None,
            errlevel: 0,
        }
    }
}

/// The execution state of a thread (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct ExecState {
    /// The value stack.
    pub stack: Vec<Value>,
    /// The frame stack; the last frame is the running one.
    pub frames: Vec<CallInfo>,
    /// Open upvalues, sorted by slot ascending.
    pub open_upvals: Vec<(u32, UpvalRef)>,
    /// Stack slots of to-be-closed variables, ascending.
    pub tbc: Vec<u32>,
    /// End of the values left by the last multiple-result instruction.
    pub open_top: u32,
    /// Nested non-yieldable Rust calls in this thread.
    pub nny: u32,
}

/// Coroutine status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoStatus {
    /// Created or yielded: may be resumed.
    Suspended,
    /// The running thread.
    Running,
    /// Resumed another coroutine and waits for it.
    Normal,
    /// Finished or failed.
    Dead,
}

impl CoStatus {
    /// The name `coroutine.status` returns.
    pub fn name(self) -> &'static str {
        match self {
            CoStatus::Suspended => "suspended",
            CoStatus::Running => "running",
            CoStatus::Normal => "normal",
            CoStatus::Dead => "dead",
        }
    }

    /// A stable number for the status (0 to 3), for the state hash and the
    /// persisted form.
    pub fn code(self) -> u8 {
        match self {
            CoStatus::Suspended => 0,
            CoStatus::Running => 1,
            CoStatus::Normal => 2,
            CoStatus::Dead => 3,
        }
    }

    /// The status of [`CoStatus::code`] `c`, if it is one.
    pub fn from_code(c: u8) -> Option<CoStatus> {
        [CoStatus::Suspended, CoStatus::Running, CoStatus::Normal, CoStatus::Dead]
            .get(usize::from(c))
            .copied()
    }
}

/// A coroutine (or the main thread).
#[derive(Debug)]
pub struct Thread {
    /// Status.
    pub status: CoStatus,
    /// Whether the body has started (a suspended thread with no frames and
    /// `started == false` has its body at `stack[0]`).
    pub started: bool,
    /// The execution state, when the thread is not running.
    pub ex: ExecState,
    /// Whether the thread is the main thread.
    pub is_main: bool,
    /// The error that killed the coroutine (nil if none), until closed.
    pub error: Value,
}

impl Thread {
    /// A new coroutine whose body is `f`.
    pub fn new_coroutine(f: Value) -> Thread {
        let ex = ExecState { stack: vec![f], ..ExecState::default() };
        Thread {
            status: CoStatus::Suspended,
            started: false,
            ex,
            is_main: false,
            error: Value::Nil,
        }
    }

    /// Rough byte size, for the collector's accounting.
    pub fn estimated_bytes(&self) -> usize {
        std::mem::size_of::<Thread>()
            + self.ex.stack.capacity() * 16
            + self.ex.frames.capacity() * std::mem::size_of::<CallInfo>()
    }
}

/// Sets the length of `stack` to `n`, new slots nil: `stack.resize(n,
/// Value::Nil)`, written so that the nils are stored as constants.
/// (`Vec::resize` is not inlined and copies its fill value from a stack
/// temporary with 16-byte loads that cannot be store-forwarded from the
/// 8-byte store that wrote it: a stall per slot, 28% of `fib`. A loop of
/// `push` checks the capacity and stores the length per slot, 10
/// instructions a slot; `resize_with` is not inlined either.)
#[inline(always)]
pub(crate) fn set_stack_len(stack: &mut Vec<Value>, n: usize) {
    let len = stack.len();
    if n <= len {
        stack.truncate(n);
    } else {
        let k = n - len;
        stack.reserve(k);
        for slot in &mut stack.spare_capacity_mut()[..k] {
            slot.write(Value::Nil);
        }
        // SAFETY: `reserve` made room for `k` more values and the loop
        // initialized the `k` slots above the length (a nil is a valid
        // `Value`, its unused payload bytes are padding).
        unsafe { stack.set_len(n) };
    }
}

/// Nils written at once by [`set_stack_len_nil_from`]: a call or return
/// clears whole blocks of this many slots, rounded up past the new length
/// into the stack's spare capacity, which is kept at least this large.
pub(crate) const NIL_BLOCK: usize = 8;

/// Sets the length of `stack` to `n` with the slots from `from` up nil:
/// `stack.truncate(from); set_stack_len(stack, n)`, as a call or a return
/// sets the stack to the new frame's extent.
///
/// The nils are stored in whole blocks of [`NIL_BLOCK`] slots, past `n`
/// into the spare capacity: most calls and returns clear fewer than
/// [`NIL_BLOCK`] slots, and a fixed run of stores has no loop exit to
/// mispredict. (A loop per slot, whose trip count changes from call site
/// to call site, and the test whether the stack grows or shrinks
/// mispredicted once per call or return: 43 % of the conditional
/// mispredictions of `qt.lua` under cachegrind's branch simulator.) Slots
/// at and above `n` are outside the stack, so the extra nils there are
/// never seen; when the spare capacity is too small for a block, or
/// `from` is above the length, the general path runs and leaves the
/// capacity large enough for next time.
#[inline(always)]
pub(crate) fn set_stack_len_nil_from(stack: &mut Vec<Value>, from: usize, n: usize) {
    if from > stack.len() || from > n || n + NIL_BLOCK > stack.capacity() {
        return set_stack_len_nil_from_slow(stack, from, n);
    }
    let p = stack.as_mut_ptr();
    let mut i = from;
    loop {
        for j in 0..NIL_BLOCK {
            // SAFETY: `i <= n` at every block (`from <= n`, then the loop
            // stops once `i >= n`), so `i + j < n + NIL_BLOCK <= capacity`:
            // a slot of the allocation, written (not read) as a valid
            // `Value` (a nil's payload bytes are padding).
            unsafe { p.add(i + j).write(Value::Nil) };
        }
        i += NIL_BLOCK;
        if i >= n {
            break;
        }
    }
    // SAFETY: `n <= capacity`; slots below `from` were initialized (`from`
    // is at most the old length) and `from..n` were just written.
    unsafe { stack.set_len(n) };
}

/// Sets the length of `stack` to a Lua caller's `top` after a return whose
/// results were copied up to `copied` and, padded with nil, end at `end`:
/// the padding and the slots from the old length up are nil, but those
/// between `end` and the old length keep what they hold. They are the
/// caller's dead registers, written by its code before they are read, as
/// in 5.4, whose `luaD_poscall` leaves them too; the collector clears them
/// at its safe points (`gc.rs`'s `gc_safe_point`), so that they keep no
/// garbage alive. Clearing them on every return cost 2–4 % of call-heavy
/// loops (`fib`, `queens`). (With padding, rare, everything above the
/// copied results is cleared.)
#[inline(always)]
pub(crate) fn set_stack_len_keep_dead(
    stack: &mut Vec<Value>,
    copied: usize,
    end: usize,
    top: usize,
) {
    if copied < end {
        return set_stack_len_nil_from(stack, copied, top);
    }
    let from = end.max(stack.len().min(top));
    if from >= top {
        stack.truncate(top);
    } else {
        set_stack_len_nil_from(stack, from, top);
    }
}

/// [`set_stack_len_nil_from`] slot by slot, reserving room for a block of
/// nils past `n`.
#[cold]
#[inline(never)]
fn set_stack_len_nil_from_slow(stack: &mut Vec<Value>, from: usize, n: usize) {
    let end = n.min(stack.len());
    if from < end {
        for slot in &mut stack[from..end] {
            *slot = Value::Nil;
        }
    }
    set_stack_len(stack, n);
    stack.reserve(NIL_BLOCK);
}

/// The frame's stack level as `usize`.
#[inline(always)]
pub(crate) fn u(x: u32) -> usize {
    x as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference semantics of [`set_stack_len_nil_from`].
    fn reference(stack: &[Value], from: usize, n: usize) -> Vec<Value> {
        let mut v = stack.to_vec();
        v.truncate(from);
        v.resize(n, Value::Nil);
        v
    }

    fn same(a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.raw_eq(*y))
    }

    /// Every combination of old length, spare capacity, `from` and `n`
    /// around the block size, including `from` above the length or above
    /// `n` and a capacity too small for a block past `n` (the slow path):
    /// the result is `truncate(from)` then `resize(n, nil)`, and the stack
    /// keeps room for a block past `n` afterwards.
    #[test]
    fn nil_fill_matches_truncate_then_resize() {
        // Miri (which checks the unsafe writes) runs a smaller square.
        let lens = if cfg!(miri) { 12 } else { 20 };
        for len in 0..lens {
            for spare in [0, 1, NIL_BLOCK - 1, NIL_BLOCK, 2 * NIL_BLOCK] {
                for from in 0..len + 3 {
                    for n in 0..len + 2 * NIL_BLOCK + 2 {
                        let mut st: Vec<Value> = Vec::with_capacity(len + spare);
                        st.extend((0..len as i64).map(|i| Value::Int(i + 1)));
                        let want = reference(&st, from, n);
                        set_stack_len_nil_from(&mut st, from, n);
                        assert!(
                            same(&st, &want),
                            "len {len} spare {spare} from {from} n {n}: {st:?}"
                        );
                        assert!(st.capacity() >= n + NIL_BLOCK);
                    }
                }
            }
        }
    }
}
