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
use crate::stack::Stack;
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
    /// A Lua frame called by an ordinary call (`ret` is `Call`, not
    /// `FRESH`) from the Lua frame below it: set by the dispatch loop's
    /// CALL and TFORCALL, kept by a tail call. RETURN's fast path then
    /// needs no other test (`execute/calls.rs`); a loaded state is checked
    /// for it (`persist.rs`).
    pub const LUA_CALLER: u8 = 128;
}

/// One activation record.
///
/// Aligned to 64 bytes (56 of fields): the loop indexes the frame stack
/// on every call and return, and a power-of-two stride is a shift where
/// 56 bytes was a multiply on the path of each (benches/RESULTS.md part
/// 36).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
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

const _: () = assert!(std::mem::size_of::<CallInfo>() == 64);

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

/// Accounted bytes of a thread object, of a stack slot and of a frame
/// (constants, so that the accounting is the same on every machine).
const THREAD_BYTES: usize = 200;
const STACK_SLOT_BYTES: usize = 16;
const FRAME_BYTES: usize = 64;

/// The execution state of a thread (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct ExecState {
    /// The value stack.
    pub stack: Stack,
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

impl ExecState {
    /// The bytes the stack and the frames hold, from their lengths (not
    /// their capacities, which a loaded or rolled-back state does not
    /// reproduce), for the collector's accounting.
    pub(crate) fn logical_bytes(&self) -> usize {
        self.stack.len() * STACK_SLOT_BYTES + self.frames.len() * FRAME_BYTES
    }

    /// Whether the state owns no allocation (what a running thread's slot
    /// holds).
    pub(crate) fn is_unallocated(&self) -> bool {
        self.stack.capacity() == 0
            && self.frames.capacity() == 0
            && self.open_upvals.capacity() == 0
            && self.tbc.capacity() == 0
    }

    /// A coroutine switch: `into` takes `cur`, `cur` takes `from`, and
    /// `from` is left empty. `into` must own no allocation (it is the
    /// slot of the thread about to run or the one just resumed; see the
    /// module docs); what it owned would leak, and a debug build checks it.
    ///
    /// Safe moves (`take`, `replace`, assignment) cost about 100
    /// instructions a direction here: LLVM copied each 120-byte state
    /// through the Rust stack, wrote the empty state twice and tested the
    /// old one's four capacities for a drop. These raw copies cost 40
    /// (`coroutine-ring.lua`: see RESULTS part 24). They go word by word
    /// ([`copy_words`]): LLVM's 16-byte moves read the running state's
    /// fields right after the loop wrote them one by one, and each such
    /// load waited for the stores to reach the cache (RESULTS part 37).
    #[inline(always)]
    pub(crate) fn rotate(into: &mut ExecState, cur: &mut ExecState, from: &mut ExecState) {
        debug_assert!(into.is_unallocated());
        // SAFETY: the three references are distinct live `ExecState`s
        // (`&mut` excludes aliasing). `into`'s old value is overwritten
        // without a drop: it owns no allocation (checked above in debug
        // builds; a violation would leak, never double-free). After the
        // first copy `cur`'s buffers are owned by `into`; `cur` is then
        // overwritten (no drop) by `from`'s, whose buffers `cur` now owns,
        // and `from` is overwritten (no drop) by an empty state. No step
        // can unwind between the copies, so every buffer ends with exactly
        // one owner.
        unsafe {
            copy_words(cur, into);
            copy_words(from, cur);
            std::ptr::write(from, ExecState::default());
        }
    }
}

/// Copies the execution state at `src` over the one at `dst` (no drop,
/// no move semantics: the caller settles ownership) in accesses as wide
/// as the fields: 8-byte words, and the two 4-byte fields on their own,
/// so that every load can take its bytes from the one store that wrote
/// them (store forwarding; see `execute::load` for the same stall on
/// registers).
///
/// # Safety
///
/// `src` and `dst` point to distinct live `ExecState`s.
#[inline(always)]
unsafe fn copy_words(src: *const ExecState, dst: *mut ExecState) {
    use std::mem::{offset_of, size_of, MaybeUninit};
    const WORDS: usize = size_of::<ExecState>() / 8;
    const _: () = assert!(size_of::<ExecState>().is_multiple_of(8) && align_of::<ExecState>() == 8);
    const A: usize = offset_of!(ExecState, open_top) / 8;
    const B: usize = offset_of!(ExecState, nny) / 8;
    let (s, d) = (src.cast::<MaybeUninit<u64>>(), dst.cast::<MaybeUninit<u64>>());
    for w in 0..WORDS {
        // SAFETY: `w` is below the state's size in words, both pointers
        // are to live 8-aligned states (the caller's contract), and every
        // byte is copied as `MaybeUninit` (padding included), so `dst`
        // ends a bitwise copy of `src`. `read_volatile` keeps LLVM from
        // fusing neighbouring loads into wider ones.
        unsafe {
            if w == A || w == B {
                let (s4, d4) =
                    (s.add(w).cast::<MaybeUninit<u32>>(), d.add(w).cast::<MaybeUninit<u32>>());
                d4.write(s4.read_volatile());
                d4.add(1).write(s4.add(1).read_volatile());
            } else {
                d.add(w).write(s.add(w).read_volatile());
            }
        }
    }
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
        let ex = ExecState { stack: Stack::from(vec![f]), ..ExecState::default() };
        Thread {
            status: CoStatus::Suspended,
            started: false,
            ex,
            is_main: false,
            error: Value::Nil,
        }
    }

    /// Rough byte size, for the collector's accounting: from the lengths
    /// of the stack and frames (`ExecState::logical_bytes`), so that a
    /// loaded state counts what the original did. A running thread's
    /// object holds an empty state; its stack is counted apart
    /// (`State::stack_bytes`).
    pub fn estimated_bytes(&self) -> usize {
        THREAD_BYTES + self.ex.logical_bytes()
    }
}

/// The frame's stack level as `usize`.
#[inline(always)]
pub(crate) fn u(x: u32) -> usize {
    x as usize
}

#[cfg(test)]
mod tests {
    use super::ExecState;
    use crate::value::Value;

    /// `rotate` copies word by word: every field, the two 4-byte ones
    /// included, lands in its place, and the source is left empty.
    #[test]
    fn a_rotation_moves_every_field() {
        let mut into = ExecState::default();
        let mut cur = ExecState::default();
        cur.stack.push(Value::Int(7));
        cur.tbc.push(5);
        (cur.open_top, cur.nny) = (3, 2);
        let mut from = ExecState::default();
        from.stack.push(Value::Int(1));
        from.stack.push(Value::Bool(true));
        (from.open_top, from.nny) = (9, 1);
        ExecState::rotate(&mut into, &mut cur, &mut from);
        assert!(matches!(into.stack[..], [Value::Int(7)]));
        assert_eq!(into.tbc, [5]);
        assert_eq!((into.open_top, into.nny), (3, 2));
        assert!(matches!(cur.stack[..], [Value::Int(1), Value::Bool(true)]));
        assert_eq!((cur.open_top, cur.nny, cur.tbc.len()), (9, 1, 0));
        assert!(from.is_unallocated());
        assert_eq!((from.open_top, from.nny, from.stack.len()), (0, 0, 0));
    }
}
