//! Registers: how the dispatch loop reads and writes stack slots.
//!
//! Two concerns, both measured (see each item):
//!
//! * **No bounds checks.** The loop reaches registers through [`Regs`], a
//!   borrow of the stack that keeps only its base pointer in a machine
//!   register, and the `at!` macro, which indexes it unchecked. The
//!   safety argument is the verifier's (registers below `max_stack`) and
//!   `thread.rs`'s (the stack holds `base + max_stack` slots while a frame
//!   runs); the borrow ends at the first call that could reallocate the
//!   stack. Debug builds check every index.
//! * **Values move as two words** ([`load`], [`store`]), so that a value
//!   written by one instruction can be store-forwarded to the next.

use crate::func::{UpVal, UpvalRef};
use crate::heap::Heap;
use crate::stack::Stack;
use crate::table::TableView;
use crate::value::{ThreadRef, Value};
use std::mem::MaybeUninit;

/// The running frame's registers: a borrow of the stack with the address
/// of register 0 (`stack[base]`) in a local, so that a register is one
/// addressing mode away (`ptr + 16 * r`). It lives across instructions
/// and is taken again only where the stack may have moved: it borrows the
/// stack, so the borrow checker rejects any use of it after a call that
/// could reallocate the stack (every `State` method), and the loop takes
/// it again there (`continue 'reload`). Slots are reached with `at!`.
pub(super) struct Regs<'a> {
    pub(super) ptr: *mut Value,
    stack: &'a mut Stack,
    base: usize,
}

impl<'a> Regs<'a> {
    #[inline(always)]
    pub(super) fn new(stack: &'a mut Stack, base: usize) -> Regs<'a> {
        debug_assert!(base <= stack.len());
        Regs { ptr: stack.as_mut_ptr().wrapping_add(base), stack, base }
    }

    /// The whole stack as a slice (for the paths that index it with
    /// checks, by absolute slot).
    #[inline(always)]
    pub(super) fn slice(&self) -> &[Value] {
        self.stack
    }

    /// The whole stack as a mutable slice.
    #[inline(always)]
    pub(super) fn slice_mut(&mut self) -> &mut [Value] {
        self.stack
    }

    /// The number of registers in the stack (checks in debug builds).
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.stack.len() - self.base
    }
}

/// Register `$i` of the running frame (`$st` a [`Regs`]), as a place,
/// unchecked; `at!(&st, i)` is a shared reference to it.
///
/// SAFETY (for every use): the dispatch loop indexes registers only with
/// `r` a register operand of the running instruction, or a register range
/// the instruction names (`ra + 3` of FORLOOP, ...).
/// The prototype's code was verified before it could run
/// (`luprex_compiler::verify`; compiler output satisfies it by
/// construction): every such register is below the prototype's
/// `max_stack`. While a Lua frame runs, the stack's length is at least
/// `base + max_stack` (the invariant of `thread.rs`, restored by every
/// return to the frame), so slot `base + r` is in bounds and initialized,
/// and `$st` was taken from the stack, at this frame's `base`, after the
/// last operation that could reallocate it (its borrow). Debug builds
/// check the index.
macro_rules! at {
    (&$st:ident, $i:expr) => {{
        let i = $i;
        debug_assert!(i < $st.len());
        unsafe { &*$st.ptr.add(i) }
    }};
    ($st:expr, $i:expr) => {
        (*{
            let i = $i;
            debug_assert!(i < $st.len());
            unsafe { &mut *$st.ptr.add(i) }
        })
    };
}

/// Reads a `Value` as two 8-byte words.
///
/// The dispatch loop reads registers with this instead of a plain copy. A
/// plain copy of a `Value` is a 16-byte load, while a value built in place
/// (`Value::Int(x)`) is written as two 8-byte stores; a load that spans two
/// pending stores cannot be store-forwarded and waits for them to reach the
/// cache, a stall on every instruction that reads the result of the
/// previous one. Reading word by word keeps every access 8 bytes wide.
/// (Measured: `loop_int` 2.38x -> 1.61x of `lua5.4`, `loop_float` 3.93x ->
/// 2.21x, for the arithmetic fast paths alone.)
#[inline(always)]
pub(crate) fn load(v: &Value) -> Value {
    const _: () = assert!(size_of::<Value>() == 16 && align_of::<Value>() == 8);
    // SAFETY: `v` is a reference, so the 16 bytes behind it are a valid,
    // 8-aligned `Value`. Reading them as two `MaybeUninit<u64>` copies every
    // byte, initialized or padding, and transmuting the words back yields
    // the same valid `Value` (same size, checked above). `read_volatile`
    // only keeps LLVM from fusing the two loads into one 16-byte load.
    unsafe {
        let p = (v as *const Value).cast::<MaybeUninit<u64>>();
        let w = [p.read_volatile(), p.add(1).read_volatile()];
        std::mem::transmute::<[MaybeUninit<u64>; 2], Value>(w)
    }
}

/// Writes a `Value` as two 8-byte words: the counterpart of [`load`] for
/// values that are not built in place. Without it, LLVM copies such a value
/// (often just spilled to the Rust stack as two words) with a 16-byte load,
/// which stalls as described at [`load`]. (Measured against a plain
/// assignment: `heapsort` 1.46x -> 1.23x of `lua5.4`, `method_calls` 1.87x
/// -> 1.71x, `fib` 2.40x -> 2.29x.)
#[inline(always)]
pub(crate) fn store(dst: &mut Value, v: Value) {
    // SAFETY: `dst` is a reference to a valid, 8-aligned `Value`, 16 bytes
    // (checked at `load`). Its two words are overwritten with the two words
    // of `v`, every byte copied (padding as `MaybeUninit`), so `dst` then
    // holds exactly the valid value `v`. Volatile only keeps the two stores
    // apart.
    unsafe {
        let w = std::mem::transmute::<Value, [MaybeUninit<u64>; 2]>(v);
        let p = (dst as *mut Value).cast::<MaybeUninit<u64>>();
        p.write_volatile(w[0]);
        p.add(1).write_volatile(w[1]);
    }
}

/// Reads upvalue `uv`; `running` is the running thread, `stack` its stack
/// (the parts of the state it needs, so the dispatch loop can call it while
/// it holds the stack borrowed).
///
/// # Safety
///
/// `uv` is live: one of the running closure's upvalues, which the
/// collector marks through the closure (`Arena::get_unchecked`).
///
/// An open upvalue of the running thread names a slot below its stack's
/// length: it is a local variable of a live frame, below the running
/// frame's top if it is the running frame's (the stack reaches that top
/// while the loop runs it) and below the running frame's base otherwise
/// (its frame is below; a returning frame closes its upvalues first,
/// `close_upvals`); a loaded state is checked for it (`persist.rs`) and
/// `check_heap` tests it. So the read is unchecked: the check kept the
/// stack's length live across the loop (loaded and spilled at every
/// reload of the registers).
#[inline(always)]
pub(super) unsafe fn upval_read(
    heap: &Heap,
    running: ThreadRef,
    stack: &[Value],
    uv: UpvalRef,
) -> Value {
    // SAFETY: the caller's contract.
    match *unsafe { heap.upvals.get_unchecked(uv) } {
        UpVal::Closed(v) => v,
        UpVal::Open { thread, slot } if thread == running => {
            debug_assert!((slot as usize) < stack.len());
            // SAFETY: `slot` is below the length (see above).
            load(unsafe { stack.get_unchecked(slot as usize) })
        }
        UpVal::Open { thread, slot } => heap.threads.get(thread).ex.stack[slot as usize],
    }
}

/// Writes `v` to upvalue `uv` (as [`upval_read`], with the parts of the
/// state it needs).
#[inline(always)]
pub(super) fn upval_write(
    heap: &mut Heap,
    running: ThreadRef,
    stack: &mut [Value],
    uv: UpvalRef,
    v: Value,
) {
    let obj = || crate::schema::ObjRef::of(v).is_some();
    match *heap.upvals.get(uv) {
        UpVal::Closed(_) => *heap.upvals.get_mut_storing(uv, obj()) = UpVal::Closed(v),
        UpVal::Open { thread, slot } if thread == running => store(&mut stack[slot as usize], v),
        UpVal::Open { thread, slot } => {
            store(&mut heap.threads.get_mut_storing(thread, obj()).ex.stack[slot as usize], v)
        }
    }
}

impl crate::state::State {
    /// Writes an upvalue (for callers outside the loop).
    #[inline(always)]
    pub(crate) fn upval_set(&mut self, uv: UpvalRef, v: Value) {
        upval_write(&mut self.heap, self.running, &mut self.ex.stack, uv, v);
    }
}

/// `tab.get_int(n)`, reading an array slot with [`load`]: array slots are
/// written with [`store`] (`t[i] = v`), and read back soon after in loops
/// like heapsort's.
#[inline(always)]
pub(super) fn get_int<const F: bool>(tab: TableView<'_, F>, n: i64) -> Value {
    match tab.array_cell((n as u64).wrapping_sub(1)) {
        Some(cell) => load(cell),
        None => tab.get_int(n),
    }
}
