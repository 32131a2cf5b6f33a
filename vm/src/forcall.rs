//! The generic `for`'s call (TFORCALL), with the base library's two
//! iterators stepped in place.
//!
//! `for k, v in pairs(t)` calls `next(t, k)` once per iteration, and
//! `for i, v in ipairs(t)` calls `ipairs`'s iterator: a native frame
//! pushed and popped, the arguments and results moved through it, for
//! a step that is a table read. `State::tforcall_op` copies the iterator,
//! state and control to the call's slots as TFORCALL does, then, when
//! the iterator is one of those two natives, does the step itself:
//!
//! * `next` over a table, through `TableView::next_step`, the very code
//!   the native runs, so the results and the traversal hint
//!   (`State::next_hint`) are the native's;
//! * `ipairs`'s iterator over a table whose slot `i + 1` holds a value,
//!   or is nil in a table without a metatable (else `__index` may apply).
//!
//! **Invariant: the inline step is not observable.** It leaves the stack,
//! the budget and the hint as the call would have: the results in the
//! call's slots and nil up to the wanted count, the dead slots above them
//! and the stack's length as `State::call_op`'s return leaves them, and
//! the same units charged ([`CALL_COST`] and `next`'s scanned bytes). It
//! is taken only where the call could not have been observed or stopped:
//! no hook is set (a call hook would see the native's frame), and the
//! budget stays above zero after the charge (the budget check, which may
//! stop the run or call the budget hook, is due at zero). Everything else, errors included
//! (`invalid key to 'next'`, a non-integer control), takes the ordinary
//! call, whose frame then appears in the traceback as before.
//!
//! A **Lua iterator** with fixed parameters (`for x in it, s, c`, or a
//! closure returned by a function such as `range(n)`) is a call, not a
//! step: the loop's TFORCALL arm enters its frame in place, as CALL's
//! fast path enters a callee (`State::tforcall_lua` pushes the frame
//! straight from the closure's copy of its prototype's sizes, without
//! `precall`'s dispatch; the loop sets its locals for the callee): the
//! same stack, units and frame as the ordinary call, which still serves
//! a vararg iterator, a stack about to overflow and, as for the steps,
//! any call while a hook is set (so that `vm/tests/forcall.rs` can
//! compare both). A closure iterator of 500 steps, 20,000 times
//! (`citer`): 1.28× lua5.4's time when `tforcall_op` pushed the frame and
//! the loop reloaded it at `'newframe`, 1.16× entered in place. The test
//! of the iterator's tag in the loop costs a loop over `ipairs` and
//! `pairs` with an empty body about 1 % (still 1.00× lua5.4).
//! `tforcall_lua` is out of line: inline, it saved a little more on
//! closure iterators but moved the loop's code, and the four fannkuch
//! programs, which iterate over nothing, ran 10 % slower with the same
//! instructions (RESULTS part 31).

use crate::baselib;
use crate::call::Pre;
use crate::error::Error;
use crate::execute::{load, store};
use crate::limits::{CALL_COST, WORK_BYTES};
use crate::state::State;
use crate::thread::{cist, u, CallInfo, MetaRet};
use crate::value::{LuaFnRef, TableRef, Value};

impl State {
    /// TFORCALL of the frame on top, its register `ra` in stack slot
    /// `ra`, `nresults` wanted (see the module docs). Out of line, as
    /// [`State::call_op`].
    #[inline(never)]
    pub(crate) fn tforcall_op(&mut self, ra: usize, nresults: i32) -> Result<Pre, Error> {
        // The iterator, state and control, read once (one bounds check:
        // the frame's registers reach `ra + 7`) and copied to the call's
        // slots, word by word (`execute::load`, `store`): TFORLOOP has
        // just written the control variable so, and a 16-byte load of it
        // would wait for both stores (store forwarding: a tenth of this
        // function's time with a Lua iterator).
        let st = &mut self.ex.stack[ra..ra + 7];
        let (f, s, c) = (load(&st[0]), load(&st[1]), load(&st[2]));
        store(&mut st[4], f);
        store(&mut st[5], s);
        store(&mut st[6], c);
        if !self.hooks.any {
            if let (Value::RustFn(h), Value::Table(t)) = (f, s) {
                let f = self.native_fn(h);
                let done = if baselib::is_next(f) {
                    self.next_inline(ra, t, c, nresults)
                } else if baselib::is_ipairs_aux(f) {
                    self.ipairs_inline(ra, t, nresults)
                } else {
                    false
                };
                if done {
                    return Ok(Pre::Continue);
                }
            }
        }
        // A Lua frame pushed by the ordinary call is flagged here, as
        // `tforcall_lua` flags its own: the loop only goes on at
        // `'newframe`.
        let depth = self.ex.frames.len();
        let pre = self.call_op_inline(ra + 4, ra + 7, nresults)?;
        // After a switch the frames are the coroutine's (`coswitch.rs`).
        if pre != Pre::Switch && self.ex.frames.len() > depth {
            self.flag_lua_caller(depth);
        }
        Ok(pre)
    }

    /// TFORCALL of the Lua iterator `f` (register `ra`) with fixed
    /// parameters, for the loop (which enters the frame in place, as
    /// CALL's fast path): the iterator, state and control copied to the
    /// call's slots, then the frame pushed as `call_op_inline` would push
    /// it (the stack cut after the call's arguments, the call's units
    /// charged, then the frame), but straight from the closure's own copy
    /// of its prototype's sizes, and flagged `LUA_CALLER` (its return
    /// moves the results itself). `f`, or `None` having done nothing for a
    /// vararg function or a stack about to overflow: `tforcall_op` serves
    /// them, and other iterators.
    #[inline(never)]
    pub(crate) fn tforcall_lua(
        &mut self,
        ra: usize,
        f: LuaFnRef,
        nresults: i32,
    ) -> Result<Option<LuaFnRef>, Error> {
        let st = &mut self.ex.stack[ra..ra + 7];
        // SAFETY: `f` is in a register of the running frame: a live closure.
        let c = unsafe { self.heap.lua_fns.get_unchecked(f) };
        let (func, top) = (ra + 4, ra + 5 + c.max_stack as usize);
        if c.is_vararg || top > crate::state::MAX_STACK {
            return Ok(None);
        }
        let params_end = func + 1 + c.num_params as usize;
        let (s, ctl) = (load(&st[1]), load(&st[2]));
        store(&mut st[4], Value::LuaFn(f));
        store(&mut st[5], s);
        store(&mut st[6], ctl);
        self.ex.stack.truncate(ra + 7);
        self.charge(CALL_COST)?;
        self.ex.stack.enter_frame(ra + 7, params_end, top);
        let mut ci = CallInfo::lua(func, func + 1, top, 0, nresults, MetaRet::Call, f);
        ci.status = cist::LUA_CALLER;
        self.ex.frames.push(ci);
        Ok(Some(f))
    }

    /// `next(t, k)`'s step in place, `k` the control as read above (word
    /// by word: a 16-byte load of the slot TFORLOOP has just written so
    /// would wait for both stores); false if it must be a call.
    #[inline]
    fn next_inline(&mut self, ra: usize, t: TableRef, k: Value, nresults: i32) -> bool {
        // SAFETY: `t` is in a register of the running frame: live.
        let view = unsafe { self.heap.tables.get_live(t) };
        let Some(step) = view.next_step(self.next_hint, k) else {
            return false;
        };
        if !self.charge_inline(step.scanned as u64 / WORK_BYTES) {
            return false;
        }
        match step.found {
            Some((p, k, v)) => {
                self.next_hint = p;
                // Word by word: `next_step` (out of line) wrote its answer
                // so, and 16-byte copies of it waited for both stores.
                self.deliver(ra, nresults, &[load(&k), load(&v)]);
            }
            None => self.deliver(ra, nresults, &[Value::Nil]),
        }
        true
    }

    /// `ipairs`'s step in place; false if it must be a call.
    #[inline]
    fn ipairs_inline(&mut self, ra: usize, t: TableRef, nresults: i32) -> bool {
        let Value::Int(i) = self.ex.stack[ra + 2] else { return false };
        let i = i.wrapping_add(1);
        let view = self.heap.tables.get(t);
        let v = view.get_int(i);
        if v.is_nil() && view.meta.is_some() {
            return false;
        }
        if !self.charge_inline(0) {
            return false;
        }
        if v.is_nil() {
            self.deliver(ra, nresults, &[Value::Nil]);
        } else {
            self.deliver(ra, nresults, &[Value::Int(i), v]);
        }
        true
    }

    /// Charges the call's units plus `work`, if the budget stays above
    /// zero (no check would be due); false, charging nothing, otherwise.
    #[inline(always)]
    fn charge_inline(&mut self, work: u64) -> bool {
        let units = (CALL_COST as u64).saturating_add(work);
        match i64::try_from(units) {
            Ok(n) if self.budget > n => {
                self.budget -= n;
                true
            }
            _ => false,
        }
    }

    /// The native's return to the Lua frame on top, as `call_op` makes
    /// it: the stack cut after the call's arguments, the results pushed
    /// there (as the native pushes them) and moved to the call's slots
    /// from `ra + 4`, nil up to `nresults` (TFORCALL's count, at least 1),
    /// the stack's length set back to the frame's extent.
    #[inline(always)]
    fn deliver(&mut self, ra: usize, nresults: i32, results: &[Value]) {
        let func = ra + 4;
        let count = nresults.max(0) as usize;
        let top = self.ex.frames.last().map_or(0, |ci| u(ci.top));
        let st = &mut self.ex.stack;
        st.truncate(ra + 7);
        // Each result read word by word (`load`): the caller built them so,
        // and a 16-byte copy waited for both stores (a quarter of a `pairs`
        // step's time).
        for r in results {
            st.push(load(r));
        }
        st.set_len_keep((func + count).max(top));
        let n = results.len().min(count);
        for (j, r) in results[..n].iter().enumerate() {
            store(&mut st[func + j], load(r));
        }
        st[func + n..func + count].fill(Value::Nil);
    }
}
