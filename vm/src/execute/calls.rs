//! Lua-to-Lua calls and returns: the fast paths the dispatch loop takes
//! for CALL, TAILCALL and RETURN/RETURN0/RETURN1 (`lvm.c`'s `OP_CALL`,
//! `OP_TAILCALL` and `OP_RETURN*` with `luaD_pretailcall`/`luaD_poscall`).
//!
//! The general machinery is `call.rs`: `precall` (any callee, `__call`,
//! natives, vararg functions, stack overflow) and `poscall` (results to a
//! metamethod frame, to a native, to Rust). The loop handles the common
//! cases itself, without leaving it:
//!
//! * **CALL** of a Lua function with fixed parameters: the frame is pushed
//!   and the loop's locals are set for the callee in place (the CALL arm).
//! * **TAILCALL** of a Lua function with fixed parameters
//!   ([`State::tailcall_fast`]): the callee and its arguments move down to
//!   the caller's function slot and the caller's frame is rewritten in
//!   place (no pop and push); the loop's locals are set for the callee.
//! * **RETURN\*** of any number of results to a Lua caller by an ordinary
//!   call ([`State::return_fast`]): the results move to the function slot,
//!   the frame is popped, and the loop's locals are reloaded for the
//!   caller at `'newframe`.
//! * **RETURN\*** of a metamethod frame whose result goes to a register
//!   (arithmetic, `__index`) or decides a jump (comparisons)
//!   ([`State::return_meta_value`], through `poscall_loop`): the frame is
//!   popped and the one result stored or tested, without `poscall`.
//!
//! Each fast path does exactly what the general one would (the same stack
//! contents and length, the same frame fields, the same budget charges in
//! the same order), so that errors, tracebacks, the collector (which scans
//! the stack up to its length, the caller's dead registers and the
//! callee's registers left alone by both paths: `stack.rs`) and saved states
//! see no difference. Every case it does not cover — debug
//! hooks, vararg callees, a stack about to overflow, a caller that is a
//! native, a metamethod frame or Rust — falls back to the general path,
//! having changed nothing.

use crate::state::{State, MAX_STACK};
use crate::thread::{cist, u, Callee, MetaRet};
use crate::value::LuaFnRef;
use crate::value::{Value, Words};

use super::regs::{load, store};

impl State {
    /// The common case of `poscall`, inline: an ordinary call returning to
    /// a Lua caller (not a metamethod frame, not a frame entered from Rust),
    /// made by the loop's CALL (`cist::LUA_CALLER`; other frames take
    /// `poscall`), whose wanted results fit in the caller's registers. The results
    /// `stack[first..first + n]` go to the frame's `func` slot, the wanted
    /// count is padded with nil, and the stack is set back to the caller's
    /// `top` (its dead registers kept, `Stack::set_len_keep`), exactly
    /// as `move_results` does; the frame is popped. False, with nothing
    /// changed, in every other case.
    #[inline(always)]
    pub(super) fn return_fast(&mut self, ci_idx: usize, first: usize, n: usize) -> bool {
        let frames = &self.ex.frames;
        debug_assert_eq!(ci_idx + 1, frames.len());
        // SAFETY: `ci_idx` is the running frame, the top one (see `savepc!`).
        let ci = unsafe { frames.get_unchecked(ci_idx) };
        if ci.status & cist::LUA_CALLER == 0 || first + n > self.ex.stack.len() {
            return false;
        }
        debug_assert!(ci.ret == MetaRet::Call && ci.status & cist::FRESH == 0 && ci_idx > 0);
        // SAFETY: `0 < ci_idx < frames.len()`: the flag says a frame is below.
        let caller = unsafe { frames.get_unchecked(ci_idx - 1) };
        debug_assert!(matches!(caller.callee, Callee::Lua(_)));
        let (func, wanted, ctop) = (u(ci.func), ci.nresults, u(caller.top));
        let count = if wanted < 0 { n } else { wanted as usize };
        if func + count > ctop {
            return false;
        }
        let ncopy = n.min(count);
        let st = &mut self.ex.stack;
        // SAFETY: `first + n <= len` (tested above), `ncopy <= n`, and
        // `func` is below the frame's registers, so below `first`.
        unsafe { move_results_down(st, first, func, ncopy) };
        st.set_len_keep(ctop);
        if ncopy < count {
            st[func + ncopy..func + count].fill(Value::Nil);
        }
        if wanted < 0 {
            self.ex.open_top = (func + count) as u32;
        }
        // SAFETY: `ci_idx < frames.len()`; a frame is plain data (`Copy`).
        unsafe { self.ex.frames.set_len(ci_idx) };
        true
    }

    /// The return of a frame entered from Rust (`FRESH`) by an ordinary
    /// call — a native's nested call (`call_value`: `table.sort`'s
    /// comparator, `gsub`'s replacement function) — when no hook is set,
    /// its results at `stack[first..first + n]`: they move down to the
    /// callee's slot, padded with nil to the count wanted, and end the
    /// stack, as `move_results_to` leaves them for a caller that is not a
    /// Lua frame; the frame is popped. It holds no C-call level (the Rust
    /// nesting counted it, `ccount.rs`). This is `poscall`'s work without
    /// its dispatch on the frame's kind and the tests of `pcall_return`
    /// (a third of the return's instructions). False, with nothing
    /// changed, for any other frame.
    #[inline(always)]
    pub(crate) fn return_fresh(&mut self, first: usize, n: usize) -> bool {
        let frames = &self.ex.frames;
        let Some(ci) = frames.last() else { return false };
        if ci.status & cist::FRESH == 0
            || ci.ret != MetaRet::Call
            || self.hooks.any
            || first + n > self.ex.stack.len()
        {
            return false;
        }
        let (func, wanted) = (u(ci.func), ci.nresults);
        let count = if wanted < 0 { n } else { wanted as usize };
        let ncopy = n.min(count);
        let st = &mut self.ex.stack;
        // SAFETY: as in `return_fast`.
        unsafe { move_results_down(st, first, func, ncopy) };
        let end = func + count;
        st.set_len_keep(end);
        if ncopy < count {
            st[func + ncopy..end].fill(Value::Nil);
        }
        self.ex.frames.pop();
        true
    }

    /// `poscall`'s work for a metamethod frame of an arithmetic, unary or
    /// comparison event (`ret` is `Reg` or `Cond`), on top, whose results
    /// are `stack[first..first + n]`: the frame popped, the stack set back
    /// to the caller's extent, and the first result (or nil) stored in the
    /// caller's register or tested for its jump. Small, inside
    /// `State::poscall_loop`, out of the loop: `poscall` took about 75
    /// instructions for it, its entry saving six registers and its pop
    /// copying the whole frame.
    #[inline(always)]
    pub(crate) fn return_meta_value(&mut self, first: usize, n: usize, ret: MetaRet) {
        self.release_meta_ccall(self.ex.frames.len() - 1);
        let frames = &mut self.ex.frames;
        let len = frames.len();
        // Invariant: metamethod frames are pushed by an instruction of the
        // Lua frame below them (`call_meta`).
        assert!(len >= 2, "a metamethod frame has a caller");
        let func = u(frames[len - 1].func);
        let caller = &mut frames[len - 2];
        let (cbase, ctop) = (u(caller.base), u(caller.top));
        let v = if n > 0 { load(&self.ex.stack[first]) } else { Value::Nil };
        match ret {
            MetaRet::Cond(k) if v.truthy() != k => caller.pc += 1,
            _ => {}
        }
        frames.truncate(len - 1);
        let st = &mut self.ex.stack;
        if func >= ctop {
            // Pushed above the caller's registers, as `call_meta` does: the
            // register (below `ctop`, so below the length) written, then
            // the stack back to the caller's extent, the slots above kept
            // (as `poscall`). Nothing is live across the growth's call.
            if let MetaRet::Reg(a) = ret {
                store(&mut st[cbase + a as usize], v);
            }
            st.set_len_keep(ctop);
        } else {
            cut_and_fill(st, func, ctop, ret, cbase, v.words());
        }
    }

    /// TAILCALL of the Lua function `f` at `stack[func]`, its arguments
    /// ending the stack, from the Lua frame `ci_idx` (budget charged and
    /// upvalues closed by the caller): what `TAILCALL`'s general path does
    /// — move the function and arguments to the frame's function slot, pop
    /// the frame and push the callee's with the same wanted results and
    /// disposition, flagged `TAIL` (and `FRESH` if it was) — for a callee
    /// with fixed parameters whose registers fit, with the frame rewritten
    /// in place. False, with nothing changed, for a vararg callee or a
    /// stack overflow (the general path raises the error).
    #[inline(always)]
    pub(super) fn tailcall_fast(&mut self, ci_idx: usize, func: usize, f: LuaFnRef) -> bool {
        // SAFETY: `f` is from the stack of the running thread, which the
        // collector marks: a live closure (`Arena::get_unchecked`).
        let c = unsafe { self.heap.lua_fns.get_unchecked(f) };
        debug_assert_eq!(ci_idx + 1, self.ex.frames.len());
        // SAFETY: `ci_idx` is the running frame, the top one (`savepc!`).
        let ci = unsafe { self.ex.frames.get_unchecked_mut(ci_idx) };
        let dst = u(ci.func);
        let top = dst + 1 + c.max_stack as usize;
        if c.is_vararg || top > MAX_STACK {
            return false;
        }
        // A Lua frame has no continuation and no error level (only
        // natives are protected), so these are all the fields that change.
        ci.base = dst as u32 + 1;
        ci.top = top as u32;
        ci.pc = 0;
        ci.nextra = 0;
        ci.callee = Callee::Lua(f);
        ci.status = cist::TAIL | (ci.status & (cist::FRESH | cist::LUA_CALLER));
        let st = &mut self.ex.stack;
        let n = st.len() - func;
        st.copy_within(func..func + n, dst);
        st.enter_frame(dst + n, dst + 1 + c.num_params as usize, top);
        true
    }

    /// CLOSURE: a new closure of the running function's child prototype
    /// `k`, its upvalues found in the frame at `base` (open upvalues of its
    /// registers, shared or created) or taken from the running closure `cl`.
    #[inline(always)]
    pub(super) fn closure_op(
        &mut self,
        proto: crate::func::ProtoRef,
        cl: LuaFnRef,
        base: usize,
        k: usize,
    ) -> LuaFnRef {
        let p = self.heap.protos.get(proto);
        let child = p.protos[k];
        let cp = self.heap.protos.get(child);
        let nup = cp.upvals.len();
        let mut ups = Vec::with_capacity(nup);
        for j in 0..nup {
            let d = &self.heap.protos.get(child).upvals[j];
            let (in_stack, idx) = (d.in_stack, d.index as usize);
            let uv = if in_stack {
                self.find_upval(base + idx)
            } else {
                self.heap.lua_fns.get(cl).upvals[idx]
            };
            ups.push(uv);
        }
        self.heap.new_lua_fn(child, ups.into_boxed_slice())
    }
}

/// The end of `return_meta_value` for a metamethod frame inside its
/// caller's registers (`poscall`'s case, kept as it is: `call_meta` pushes
/// at the stack's length, which a running Lua frame keeps at or above its
/// top, so no test reaches it): the stack cut at `func` and
/// filled with nil up to `top`, then `v` stored in register `Reg(a)` of the
/// caller at `cbase`. Out of line, with `v` in two registers ([`Words`]),
/// so that nothing of `return_meta_value` is live across a call.
#[cold]
#[inline(never)]
fn cut_and_fill(
    st: &mut crate::stack::Stack,
    func: usize,
    top: usize,
    ret: MetaRet,
    cbase: usize,
    v: Words,
) {
    st.truncate(func);
    st.resize(top, Value::Nil);
    if let MetaRet::Reg(a) = ret {
        store(&mut st[cbase + a as usize], v.value());
    }
}

/// Moves `n` results from `stack[first..]` down to `stack[func..]`, word
/// by word: the results were usually written by the instructions just
/// before (see `load`).
///
/// # Safety
///
/// `func < first` and `first + n <= stack.len()`.
#[inline(always)]
unsafe fn move_results_down(stack: &mut [Value], first: usize, func: usize, n: usize) {
    debug_assert!(func < first && first + n <= stack.len());
    for j in 0..n {
        // SAFETY: `func + j < first + j < first + n <= len` (the caller's
        // contract).
        unsafe {
            let v = load(stack.get_unchecked(first + j));
            store(stack.get_unchecked_mut(func + j), v);
        }
    }
}
