//! Calls, returns, protected execution and the native-function protocol
//! (the counterpart of `ldo.c`).
//!
//! * `State::precall` starts a call of the value at a stack slot: a Lua
//!   function gets a frame and is left for the dispatch loop to run (no
//!   Rust recursion: Lua-to-Lua calls and returns are frame pushes and
//!   pops); a native runs at once and its [`Action`] is carried out by
//!   `State::native_action` (a plain return from an ordinary call, the
//!   common case, is done in place by `State::call_native`); any other
//!   value goes through `__call`. The dispatch loop's CALL, TAILCALL and
//!   TFORCALL hand every callee they do not enter themselves to
//!   `State::call_op`, out of line: without hooks, a native is called at
//!   once, and a plain return moves its results to the Lua caller without
//!   reading either frame back (both are known).
//! * `State::poscall` pops a frame and delivers its results to the
//!   caller according to the frame's [`MetaRet`]: ordinary calls move them
//!   to the function slot (adjusting to the wanted count), metamethod frames
//!   store them in a register, decide a jump or continue a concatenation.
//!   A Lua function that `pcall` or `xpcall` called, returning without a
//!   hook, pops both frames at once (`State::pcall_return`): its results
//!   go to `pcall`'s caller behind `true`, what the continuation returns,
//!   without the native frame's turn in the loop.
//! * `State::run` drives the loop for the frames above a given depth and
//!   implements protected calls: an `Err` coming out of the loop is caught
//!   here, the innermost `pcall`/`xpcall` frame of the running thread is
//!   found, its message handler runs (with the stack intact, so tracebacks
//!   see the failing frames), then the frames above it are dropped, the
//!   upvalues closed, and it *recovers*: the `__close` metamethods of the
//!   to-be-closed variables above it run one by one as frames of the loop
//!   (so they may yield; an error in one replaces the error), and then
//!   its continuation runs with the error (`State::recover_step`).
//! * To-be-closed variables: `CLOSE` and `RETURN` close one variable per
//!   execution (`State::close_step`): the `__close` runs as a frame whose
//!   return ([`MetaRet::Close`]) makes the instruction run again, until
//!   none is left — the reference's `luaV_finishOp` redoing the
//!   instruction. Closing from Rust (`coroutine.close`, `State::call`) uses
//!   nested calls (`State::close_level`).
//! * [`State::call_value`] is the nested, non-yieldable call for natives
//!   that must call Lua from Rust (the `LUAI_MAXCCALLS` limit applies);
//!   `State::call_pushed` is the same call of a function and arguments
//!   the embedding API already pushed.
//!
//! **Invariant:** while a Lua frame runs, `stack.len() >= frame.top`; a
//! frame being entered has its arguments exactly at `stack[func+1..len]`.

use crate::error::Error;
use crate::func::UpVal;
use crate::meta::{TM_CALL, TM_CLOSE};
use crate::state::{Action, KFn, State, Status, ERROR_STACK_RESERVE, MAX_CCALLS, MAX_STACK};
use crate::thread::{cist, u, CallInfo, Callee, MetaRet};
use crate::value::{LuaFnRef, RustFnRef, Value};

/// Longest chain of `__call` metamethods resolved for one call.
const MAX_CALL_CHAIN: usize = 2000;

/// What the dispatch loop does after a call was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pre {
    /// Continue with whatever frame is on top.
    Continue,
    /// The running coroutine yielded.
    Yield,
    /// The running thread changed: a resume the loop carries out in place
    /// (`coswitch.rs`) moved a coroutine in, its top frame ready. Only a
    /// call made by a loop instruction returns it; elsewhere it reads as
    /// `Continue` (a loop activation starts from the top frame and finds
    /// its stop depth again).
    Switch,
}

/// How [`State::run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// All frames above the stop depth returned.
    Return,
    /// The running coroutine yielded.
    Yield,
}

impl State {
    /// Starts a call of `stack[func]` with arguments `stack[func+1..]`.
    pub(crate) fn precall(
        &mut self,
        func: usize,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<Pre, Error> {
        self.charge(crate::limits::CALL_COST)?;
        self.precall_charged(func, nresults, ret)
    }

    /// [`State::precall`] after the call was charged.
    #[inline]
    pub(crate) fn precall_charged(
        &mut self,
        func: usize,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<Pre, Error> {
        let mut chain = 0;
        loop {
            match self.ex.stack[func] {
                Value::LuaFn(cl) => {
                    self.push_lua_frame::<false>(func, cl, nresults, ret)?;
                    return Ok(Pre::Continue);
                }
                Value::RustFn(h) => return self.call_native::<false>(func, h, nresults, ret),
                _ => self.insert_call_tm(func, &mut chain)?,
            }
        }
    }

    /// The call made by a CALL, TAILCALL or TFORCALL instruction of a
    /// callee the instruction does not enter itself (anything but a Lua
    /// function with fixed parameters for CALL): `precall` of
    /// `stack[func]` with the arguments up to `end` (the stack is
    /// truncated there), an ordinary call. Out of line, so that the
    /// dispatch loop's code does not grow; a native called without hooks
    /// goes straight to [`State::call_native`], nothing else to decide.
    #[inline(never)]
    pub(crate) fn call_op(&mut self, func: usize, end: usize, nresults: i32) -> Result<Pre, Error> {
        self.call_op_inline(func, end, nresults)
    }

    /// [`State::call_op`]'s body, for another out-of-line caller
    /// (`tforcall_op`), which then makes one call, not two.
    #[inline(always)]
    pub(crate) fn call_op_inline(
        &mut self,
        func: usize,
        end: usize,
        nresults: i32,
    ) -> Result<Pre, Error> {
        self.ex.stack.truncate(end);
        self.charge(crate::limits::CALL_COST)?;
        match self.ex.stack[func] {
            Value::RustFn(h) if !self.hooks.any => {
                self.call_native::<true>(func, h, nresults, MetaRet::Call)
            }
            _ => self.precall_charged(func, nresults, MetaRet::Call),
        }
    }

    /// Flags the frame at `depth`, if it is a Lua frame pushed for a call
    /// instruction of the Lua frame below it (`cist::LUA_CALLER`): called
    /// by the loop after `call_op` pushed a frame.
    #[inline]
    pub(crate) fn flag_lua_caller(&mut self, depth: usize) {
        if let Some(ci) = self.ex.frames.get_mut(depth) {
            let ordinary = ci.ret == MetaRet::Call && ci.status & cist::FRESH == 0;
            if ordinary && matches!(ci.callee, Callee::Lua(_)) {
                ci.status |= cist::LUA_CALLER;
                debug_assert!(matches!(self.ex.frames[depth - 1].callee, Callee::Lua(_)));
            }
        }
    }

    /// Inserts the `__call` metamethod of the non-function `stack[func]`
    /// below it, the value becoming its first argument (`luaD_tryfuncTM`).
    /// `chain` counts the insertions for one call: past [`MAX_CALL_CHAIN`]
    /// it is an error (where the reference would shift the stack until it
    /// overflows, in quadratic time).
    pub(crate) fn insert_call_tm(&mut self, func: usize, chain: &mut usize) -> Result<(), Error> {
        let v = self.ex.stack.get(func).copied().unwrap_or(Value::Nil);
        let tm = self.tm_of(v, TM_CALL);
        if tm.is_nil() {
            return Err(self.call_error(func));
        }
        *chain += 1;
        if *chain > MAX_CALL_CHAIN {
            return Err(self.rt_error("'__call' chain too long; possible loop"));
        }
        if self.ex.stack.len() >= MAX_STACK {
            self.check_stack_reserve(self.ex.stack.len() + 1)?;
        }
        self.ex.stack.insert(func, tm);
        Ok(())
    }

    /// `attempt to call a X value (...)` (`luaG_callerror`).
    #[cold]
    fn call_error(&mut self, func: usize) -> Error {
        let v = self.ex.stack.get(func).copied().unwrap_or(Value::Nil);
        // As `funcnamefromcall`: the calling instruction names the callee
        // (a register, `for iterator`, or `metamethod 'add'`).
        let named = self.ex.frames.last().and_then(|ci| {
            let p = self.frame_proto(ci)?;
            let pc = (ci.pc as usize).saturating_sub(1);
            crate::debug::funcnamefromcode(self, p, pc).map(|(k, nm)| (k.to_string(), nm))
        });
        let t = self.obj_typename(v);
        let extra = named.map(|(k, nm)| format!(" ({k} '{nm}')")).unwrap_or_default();
        self.rt_error(format!("attempt to call a {t} value{extra}"))
    }

    /// The stack would need `needed` slots, more than [`MAX_STACK`]: `stack
    /// overflow`, unless a message handler is running, which may use
    /// [`ERROR_STACK_RESERVE`] more slots so that an `xpcall` handler can
    /// run after a stack overflow (`ERRORSTACKSIZE` in `luaD_growstack`);
    /// beyond that, `error in error handling`.
    #[cold]
    pub(crate) fn check_stack_reserve(&mut self, needed: usize) -> Result<(), Error> {
        if self.in_msgh == 0 {
            return Err(self.rt_error("stack overflow"));
        }
        if needed <= MAX_STACK + ERROR_STACK_RESERVE {
            return Ok(());
        }
        Err(self.error_string(b"error in error handling"))
    }

    /// Pushes the frame of a Lua function whose arguments are in place.
    /// The fixed-parameter case is inlined into the dispatch loop's CALL;
    /// vararg functions and stack overflow take the outlined path. `FILL`:
    /// write the nils above the stack's kept slots inline
    /// (`Stack::enter_frame_filling`), for a call from Rust.
    #[inline(always)]
    pub(crate) fn push_lua_frame<const FILL: bool>(
        &mut self,
        func: usize,
        cl: LuaFnRef,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<(), Error> {
        // The closure's own copy of its prototype's sizes, as CALL's fast
        // path reads them: one lookup, not two.
        let c = self.heap.lua_fns.get(cl);
        let top = func + 1 + c.max_stack as usize;
        if c.is_vararg || top > MAX_STACK {
            return self.push_lua_frame_slow(func, cl, nresults, ret);
        }
        let args_end = self.ex.stack.len();
        let params_end = func + 1 + c.num_params as usize;
        if FILL {
            self.ex.stack.enter_frame_filling(args_end, params_end, top);
        } else {
            self.ex.stack.enter_frame(args_end, params_end, top);
        }
        self.ex.frames.push(CallInfo::lua(func, func + 1, top, 0, nresults, ret, cl));
        Ok(())
    }

    /// [`State::push_lua_frame`] for vararg functions and stack overflow.
    #[inline(never)]
    fn push_lua_frame_slow(
        &mut self,
        func: usize,
        cl: LuaFnRef,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<(), Error> {
        // The closure's copy of its prototype's sizes (as `push_lua_frame`).
        let c = self.heap.lua_fns.get(cl);
        let nargs = self.ex.stack.len() - func - 1;
        let fixed = c.num_params as usize;
        let maxstack = c.max_stack as usize;
        if !c.is_vararg {
            let base = func + 1;
            let top = base + maxstack;
            if top > MAX_STACK {
                self.check_stack_reserve(top)?;
            }
            self.ex.stack.set_len_nil(top);
            self.ex.frames.push(CallInfo::lua(func, base, top, 0, nresults, ret, cl));
            return Ok(());
        }
        let nextra = nargs.saturating_sub(fixed);
        let nadj = nargs.max(fixed);
        let base = func + nadj + 2;
        let top = base + maxstack;
        if top > MAX_STACK {
            self.check_stack_reserve(top)?;
        }
        // Pad missing fixed parameters, then copy the function and the fixed
        // parameters above the varargs. The registers above them are kept,
        // as a fixed-parameter frame keeps its own (`Stack::enter_frame`:
        // the code writes a register before it reads it, as in 5.4's
        // `luaT_adjustvarargs`); writing nil into every one cost 23 of this
        // function's 128 instructions a call (`opcost.py --lib select_n`).
        self.ex.stack.enter_frame(func + 1 + nargs, func + 1 + nadj, top);
        // As a slice, so that its address and length stay in registers
        // across the stores (through `Stack` they were read again after
        // each one).
        let st: &mut [Value] = &mut self.ex.stack;
        st[base - 1] = st[func];
        for i in 0..fixed {
            st[base + i] = st[func + 1 + i];
            st[func + 1 + i] = Value::Nil;
        }
        self.ex.frames.push(CallInfo::lua(func, base, top, nextra, nresults, ret, cl));
        Ok(())
    }

    /// Calls a native whose arguments are in place, then carries out its
    /// action. `OP`: an ordinary call by an instruction of the Lua frame
    /// on top, without hooks ([`State::call_op`]).
    #[inline(always)]
    fn call_native<const OP: bool>(
        &mut self,
        func: usize,
        h: RustFnRef,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<Pre, Error> {
        let f = self.native_fn(h);
        self.ex.frames.push(CallInfo::rust(func, nresults, ret, h));
        if !OP && self.hooks.any {
            self.hook_call()?;
        }
        self.native_mark = self.heap.bytes;
        let r = f(self);
        // The common case, a plain return from a native called by an
        // ordinary call without hooks: `native_action` and `poscall` without
        // their dispatch. (`r` is matched in place: moving it out first
        // copies it with 16-byte loads that stall on the native's 8-byte
        // stores, as described at `execute::load`.)
        if let Ok(Action::Return(n)) = &r {
            if !self.hooks.any && ret == MetaRet::Call {
                let len = self.ex.stack.len();
                if OP {
                    self.native_return_op(func, *n, nresults);
                } else {
                    // Invariant: the native's frame is on top.
                    self.release_top_ccall();
                    let ci = self.ex.frames.pop().expect("frame");
                    let n = (*n).min(len.saturating_sub(u(ci.base)));
                    self.move_results(&ci, len - n, n);
                }
                return Ok(Pre::Continue);
            }
        }
        // A resume (`coroutine.resume`, a wrap's function), before the
        // yield's test: that one reads the continuation's word, which for
        // a resume holds bytes of narrower stores, and the load waited for
        // them (store forwarding; RESULTS part 37).
        if let Ok(Action::Resume(q)) = &r {
            return self.resume_action::<OP>(*q);
        }
        // A plain yield (`coroutine.yield`), also matched in place.
        if let Ok(Action::Yield { nvalues, k: None }) = &r {
            return self.native_yield(*nvalues, None);
        }
        // A call (`pcall`'s), rebuilt from its fields read in place.
        if let Ok(Action::Call { nargs, nresults, k }) = &r {
            let k = k.as_ref().map(|&(f, c)| (f, c));
            let act = Action::Call { nargs: *nargs, nresults: *nresults, k };
            return self.native_action(act);
        }
        self.native_action(r?)
    }

    /// The return of `n` values by the native on top, called by a loop
    /// instruction (CALL, TAILCALL, TFORCALL) at slot `func` for
    /// `nresults` results, without hooks: `native_action` and `poscall`
    /// without their dispatch.
    #[inline(always)]
    pub(crate) fn native_return_op(&mut self, func: usize, n: usize, nresults: i32) {
        let len = self.ex.stack.len();
        // Invariant: the native's frame (base `func + 1`, not fresh) is on
        // top, above its caller, the Lua frame that ran the instruction.
        let frames = &mut self.ex.frames;
        let fl = frames.len();
        assert!(fl >= 2, "a native's frame and its caller's");
        let top = u(frames[fl - 2].top);
        frames.truncate(fl - 1);
        let n = n.min(len.saturating_sub(func + 1));
        // No result or one, the usual counts for a call in a statement or
        // an expression: `move_results_to`'s work without its general case
        // (`func < top`: the call's slot is a register of the caller).
        let st = &mut self.ex.stack;
        match nresults {
            0 => st.set_len_keep(top),
            1 => {
                let v = if n > 0 { crate::execute::load(&st[len - n]) } else { Value::Nil };
                crate::execute::store(&mut st[func], v);
                st.set_len_keep(top);
            }
            _ => self.move_results_to(func, len - n, n, nresults, Some(top)),
        }
    }

    /// The Rust function of the native closure `h`, read from a stack slot
    /// below the stack's length.
    #[inline(always)]
    pub(crate) fn native_fn(&self, h: RustFnRef) -> crate::state::NativeFn {
        // SAFETY: `h` is in a slot of the running stack, which the collector
        // reaches: a live closure (`Arena::get_unchecked`).
        let id = unsafe { self.heap.rust_fns.get_unchecked(h) }.id;
        self.natives[id.0 as usize].f
    }

    /// Carries out the action of the native frame on top.
    pub(crate) fn native_action(&mut self, mut act: Action) -> Result<Pre, Error> {
        loop {
            match act {
                Action::Return(n) => {
                    let len = self.ex.stack.len();
                    // A native's results are within its own stack window.
                    let base = u(self.ex.frames.last().map_or(0, |ci| ci.base));
                    let n = n.min(len.saturating_sub(base));
                    if self.hooks.any {
                        self.hook_return(len - n, n)?;
                    }
                    self.poscall(len - n, n)?;
                    return Ok(Pre::Continue);
                }
                Action::Call { nargs, nresults, k } => {
                    let me = self.ex.frames.len() - 1;
                    let callee = self.ex.stack.len() - nargs - 1;
                    {
                        let ci = &mut self.ex.frames[me];
                        ci.k = k;
                        ci.pc = callee as u32;
                    }
                    // The callee's frame holds a C-call level, as the
                    // reference's `lua_callk` (`ccount.rs`).
                    self.enter_frame_ccall()?;
                    let r = self.precall(callee, nresults, MetaRet::Call);
                    if r.is_err() {
                        self.abort_frame_ccall(me + 1);
                    }
                    match r? {
                        Pre::Yield => return Ok(Pre::Yield),
                        Pre::Switch => return Ok(Pre::Switch),
                        Pre::Continue => {
                            if self.ex.frames.len() - 1 != me {
                                return Ok(Pre::Continue);
                            }
                            act = self.resume_k(Status::Ok)?;
                        }
                    }
                }
                Action::Yield { nvalues, k } => return self.native_yield(nvalues, k),
                Action::Resume(q) => act = self.resume_nested(q)?,
            }
        }
    }

    /// [`Action::Yield`] of the native frame on top.
    #[inline]
    fn native_yield(&mut self, nvalues: usize, k: Option<(KFn, i64)>) -> Result<Pre, Error> {
        self.check_yield()?;
        // Invariant: the native whose action this is is on top.
        let ci = self.ex.frames.last_mut().expect("frame");
        ci.k = k;
        ci.status |= cist::YIELDED;
        let len = self.ex.stack.len();
        self.ex.open_top = (len - nvalues.min(len)) as u32;
        Ok(Pre::Yield)
    }

    /// Errors if the running thread cannot yield now.
    fn check_yield(&mut self) -> Result<(), Error> {
        if self.running == self.main_thread {
            return Err(self.error_string(b"attempt to yield from outside a coroutine"));
        }
        if self.ex.nny > 0 {
            return Err(self.error_string(b"attempt to yield across a C-call boundary"));
        }
        Ok(())
    }

    /// Runs the continuation of the native frame on top (after its callee
    /// returned, or after a resume with `Status::Yield`). Without a
    /// continuation, the native returns the values above its callee slot
    /// (the resume arguments after a yield).
    pub(crate) fn resume_k(&mut self, status: Status) -> Result<Action, Error> {
        // Invariant: only called with that native frame on top.
        let ci = self.ex.frames.last_mut().expect("frame");
        ci.status &= !cist::YIELDED;
        match ci.k.take() {
            Some((k, ctx)) => k(self, status, ctx),
            None => {
                let from = if status == Status::Yield { self.ex.open_top } else { ci.pc };
                Ok(Action::Return(self.ex.stack.len().saturating_sub(u(from))))
            }
        }
    }

    /// The return of the loop's running frame when `return_fast` declined
    /// it. A metamethod frame whose one result goes to a register or a
    /// jump of its caller, or is dropped (`__newindex`), the frequent
    /// case, takes `return_meta_value` (inline here), without `poscall`'s
    /// entry (six registers saved); a frame entered from Rust
    /// `return_fresh`, one `pcall` called `pcall_return`; any other frame
    /// [`State::poscall`].
    #[inline(never)]
    pub(crate) fn poscall_loop(&mut self, first: usize, n: usize) -> Result<(), Error> {
        // Invariant: only called by the returning frame, which is on top.
        // `ret` is matched in place, each payload read as the byte it is:
        // a copy of the whole `MetaRet` reads its two payload bytes in one
        // load, which spans two of the stores that wrote the frame (a
        // store-forwarding stall when the frame is young, as a small
        // metamethod's is: 25 % of `x = o.z`'s time with a function
        // `__index`, RESULTS part 28).
        let ret = match self.ex.frames.last().expect("frame").ret {
            MetaRet::Reg(a) => MetaRet::Reg(a),
            MetaRet::Cond(k) => MetaRet::Cond(k),
            MetaRet::Discard => MetaRet::Discard,
            _ => {
                // A frame entered from Rust or by `pcall` (both ordinary
                // calls): a metamethod's return, above, does not pay the
                // tests.
                if self.return_fresh(first, n) || self.pcall_return(first, n) {
                    return Ok(());
                }
                return self.poscall(first, n);
            }
        };
        self.return_meta_value(first, n, ret);
        Ok(())
    }

    /// The return of a function that `pcall` or `xpcall` called, when no
    /// hook is set: both frames are popped at once, the callee's results
    /// going to `pcall`'s caller behind `true`. This is what the general
    /// path does in four steps — the callee's `poscall` to the native
    /// frame, the loop's `continue_native`, the continuation (`pcall_k`,
    /// `xpcall_k`) and the native's `poscall` — for a quarter of their
    /// instructions (`pcall(f)` of a Lua `f`: about 250 of 985 a call).
    /// False, with nothing changed, for any other frame: a callee that was
    /// not an ordinary call, a caller that is not a protected frame of
    /// `pcall`'s own continuations called by an ordinary call (`pcall` as
    /// a metamethod), or one that is recovering or yielded.
    #[inline]
    fn pcall_return(&mut self, first: usize, n: usize) -> bool {
        let frames = &self.ex.frames;
        let fl = frames.len();
        if self.hooks.any || fl < 2 {
            return false;
        }
        let (ci, p) = (&frames[fl - 1], &frames[fl - 2]);
        if ci.ret != MetaRet::Call || ci.status & cist::FRESH != 0 {
            return false;
        }
        let flags = p.status & (cist::PCALL | cist::YIELDED | cist::RECOVER);
        if flags != cist::PCALL || p.ret != MetaRet::Call || !matches!(p.callee, Callee::Rust(_)) {
            return false;
        }
        let Some((k, _)) = p.k else { return false };
        let kfn: KFn = if p.status & cist::XPCALL != 0 {
            crate::baselib::xpcall_k
        } else {
            crate::baselib::pcall_k
        };
        if !std::ptr::fn_addr_eq(k, kfn) {
            return false;
        }
        // Invariant: both continuations asked for all the callee's
        // results, which they return behind the `true` just below the
        // callee's slot; the slot below `first` is the callee's (its
        // function slot or one of its registers), dead now that it returns
        // (RETURN closed its upvalues and variables before coming here).
        debug_assert!(ci.nresults < 0 && first > u(ci.func));
        debug_assert!(matches!(self.ex.stack[u(ci.func) - 1], Value::Bool(true)));
        let (status, func, nresults) = (p.status, u(p.func), p.nresults);
        self.release_top_ccall();
        self.ex.frames.truncate(fl - 1);
        self.release_top_ccall();
        self.ex.frames.truncate(fl - 2);
        self.ex.stack[first - 1] = Value::Bool(true);
        self.move_results_parts(status, func, nresults, first - 1, n + 1);
        true
    }

    /// Pops the top frame; its results are `stack[first..first+n]`.
    pub(crate) fn poscall(&mut self, first: usize, n: usize) -> Result<(), Error> {
        // Invariant: only called by the returning frame, which is on top.
        let top = self.ex.frames.len().checked_sub(1).expect("frame");
        // An ordinary call's frame, the common case, is read field by
        // field where it is, then dropped: a copy of the whole `CallInfo`
        // reads it with 16-byte loads, which wait for a young frame's
        // narrower stores (store forwarding: a sixth of `pcall(f)`'s time,
        // RESULTS part 28).
        let ci = &self.ex.frames[top];
        if let MetaRet::Call = ci.ret {
            let (func, status, nresults) = (u(ci.func), ci.status, ci.nresults);
            self.release_top_ccall();
            self.ex.frames.truncate(top);
            self.move_results_parts(status, func, nresults, first, n);
            return Ok(());
        }
        self.release_top_ccall();
        let ci = self.ex.frames.pop().expect("frame");
        let func = u(ci.func);
        match ci.ret {
            MetaRet::Call => {
                self.move_results(&ci, first, n);
                Ok(())
            }
            MetaRet::Close => {
                self.close_returned(func);
                Ok(())
            }
            ret => {
                // Word by word (`execute::load`): the result was just
                // written by the metamethod's RETURN.
                let v =
                    if n > 0 { crate::execute::load(&self.ex.stack[first]) } else { Value::Nil };
                // Invariant: metamethod frames are pushed by an instruction
                // of the Lua frame below them (`call_meta`).
                let caller = self.ex.frames.last().expect("caller");
                let (cbase, ctop) = (u(caller.base), u(caller.top));
                if func >= ctop {
                    // Pushed above the caller's registers, as `call_meta`
                    // does: back to its extent, the slots above kept, as
                    // an ordinary return keeps them (`move_results`).
                    self.ex.stack.set_len_keep(ctop);
                } else {
                    self.ex.stack.truncate(func);
                    self.ex.stack.resize(ctop, Value::Nil);
                }
                match ret {
                    MetaRet::Reg(a) => {
                        crate::execute::store(&mut self.ex.stack[cbase + a as usize], v)
                    }
                    MetaRet::Cond(k) => {
                        if v.truthy() != k {
                            self.ex.frames.last_mut().expect("caller").pc += 1;
                        }
                    }
                    MetaRet::Concat { a, n } => {
                        self.ex.stack[cbase + a as usize + n as usize - 2] = v;
                        self.concat(a, n as usize - 1)?;
                    }
                    MetaRet::Discard | MetaRet::Call | MetaRet::Close => {}
                }
                Ok(())
            }
        }
    }

    /// Moves the results of the frame `ci`, just popped, to its function
    /// slot and sets the stack extent for the caller. A frame entered from
    /// Rust (`FRESH`) leaves its results on top.
    #[inline]
    pub(crate) fn move_results(&mut self, ci: &CallInfo, first: usize, n: usize) {
        self.move_results_parts(ci.status, u(ci.func), ci.nresults, first, n);
    }

    /// [`State::move_results`] given the popped frame's `status`, `func`
    /// and `nresults`.
    #[inline(always)]
    pub(crate) fn move_results_parts(
        &mut self,
        status: u8,
        func: usize,
        nresults: i32,
        first: usize,
        n: usize,
    ) {
        let fresh = status & cist::FRESH != 0;
        let lua_top = match self.ex.frames.last() {
            Some(c) if !fresh && matches!(c.callee, Callee::Lua(_)) => Some(u(c.top)),
            _ => None,
        };
        self.move_results_to(func, first, n, nresults, lua_top);
    }

    /// [`State::move_results`] to a caller that is a Lua frame with top
    /// `lua_top` (`Some`: the stack goes back to that top), or to anything
    /// else (`None`: a native, Rust, a fresh frame; the results end the
    /// stack). The missing results are nil; the slots above them keep
    /// what they hold (`Stack::set_len_keep`): the caller's dead
    /// registers, written before they are read, as 5.4's `luaD_poscall`
    /// leaves them (clearing them cost 2–4 % of `fib` and `queens`); the
    /// collector clears them at its safe points (`gc.rs`'s
    /// `gc_safe_point`), so that they keep no garbage alive.
    #[inline(always)]
    fn move_results_to(
        &mut self,
        func: usize,
        first: usize,
        n: usize,
        wanted: i32,
        lua_top: Option<usize>,
    ) {
        let st = &mut self.ex.stack;
        let count = if wanted < 0 { n } else { wanted as usize };
        let ncopy = n.min(count);
        if ncopy == 1 {
            // Word by word: the native just wrote the value (see `load`).
            let v = crate::execute::load(&st[first]);
            crate::execute::store(&mut st[func], v);
        } else if ncopy > 1 && first != func {
            st.copy_within(first..first + ncopy, func);
        }
        let end = func + count;
        let len = match lua_top {
            Some(top) => {
                if wanted < 0 {
                    self.ex.open_top = end as u32;
                }
                end.max(top)
            }
            None => end,
        };
        let st = &mut self.ex.stack;
        st.set_len_keep(len);
        if ncopy < count {
            st[func + ncopy..end].fill(Value::Nil);
        }
    }

    // ----- upvalues and to-be-closed variables ------------------------

    /// Finds or creates the open upvalue for stack slot `slot` of the
    /// running thread.
    pub(crate) fn find_upval(&mut self, slot: usize) -> crate::func::UpvalRef {
        let list = &self.ex.open_upvals;
        let pos = list.partition_point(|&(s, _)| (s as usize) < slot);
        if let Some(&(s, uv)) = list.get(pos) {
            if s as usize == slot {
                return uv;
            }
        }
        let uv = self.heap.new_upval(UpVal::Open { thread: self.running, slot: slot as u32 });
        self.ex.open_upvals.insert(pos, (slot as u32, uv));
        uv
    }

    /// Closes the open upvalues at or above `level` (`luaF_closeupval`).
    #[inline]
    pub(crate) fn close_upvals(&mut self, level: usize) {
        while let Some(&(slot, uv)) = self.ex.open_upvals.last() {
            if (slot as usize) < level {
                break;
            }
            let v = self.ex.stack.get(slot as usize).copied().unwrap_or(Value::Nil);
            let obj = crate::schema::ObjRef::of(v).is_some();
            *self.heap.upvals.get_mut_storing(uv, obj) = UpVal::Closed(v);
            self.ex.open_upvals.pop();
        }
    }

    /// Marks stack slot `slot` as to-be-closed (`TBC`): its value must be
    /// false, nil, or have a `__close` metamethod.
    #[cold]
    #[inline(never)]
    pub(crate) fn new_tbc(&mut self, slot: usize) -> Result<(), Error> {
        let v = self.ex.stack[slot];
        if !v.truthy() {
            return Ok(());
        }
        if self.tm_of(v, TM_CLOSE).is_nil() {
            let base = self.reg_slot(0);
            let name = self
                .ex
                .frames
                .last()
                .and_then(|ci| self.frame_proto(ci))
                .and_then(|p| {
                    let pc = self.ex.frames.last().map_or(0, |c| c.pc as usize);
                    p.local_name(slot - base + 1, pc.saturating_sub(1))
                        .map(|n| String::from_utf8_lossy(n).into_owned())
                })
                .unwrap_or_else(|| "?".into());
            return Err(self.rt_error(format!("variable '{name}' got a non-closable value")));
        }
        self.ex.tbc.push(slot as u32);
        Ok(())
    }

    /// Pops the innermost to-be-closed variable at or above `level`.
    fn pop_tbc(&mut self, level: usize) -> Option<usize> {
        let slot = *self.ex.tbc.last()? as usize;
        if slot < level {
            return None;
        }
        self.ex.tbc.pop();
        Some(slot)
    }

    /// Starts the call of the `__close` metamethod of the variable in
    /// `slot` with error `err` as a frame of the loop (`MetaRet::Close`).
    fn call_close(&mut self, slot: usize, err: Value) -> Result<Pre, Error> {
        let v = self.ex.stack.get(slot).copied().unwrap_or(Value::Nil);
        let tm = self.tm_of(v, TM_CLOSE);
        let func = self.ex.stack.len();
        if func + 3 >= MAX_STACK {
            self.check_stack_reserve(func + 3)?;
        }
        self.ex.stack.extend_from_slice(&[tm, v, err]);
        let i = self.ex.frames.len();
        self.enter_frame_ccall()?;
        let r = self.precall(func, 1, MetaRet::Close);
        if r.is_err() {
            self.abort_frame_ccall(i);
        }
        r
    }

    /// One step of `CLOSE`, or of `RETURN` in a function with variables to
    /// close (`luaF_close` with `yy = 1`): closes the upvalues at or above
    /// `level`, then starts the `__close` of the innermost variable still
    /// open at or above `level`, if any, with a nil error. When that call
    /// returns, the instruction runs again (see [`MetaRet::Close`]) and
    /// closes the next one, so closing happens in the loop and may yield.
    /// `None`: nothing left to close.
    #[cold]
    #[inline(never)]
    pub(crate) fn close_step(&mut self, level: usize) -> Result<Option<Pre>, Error> {
        self.close_upvals(level);
        match self.pop_tbc(level) {
            Some(slot) => self.call_close(slot, Value::Nil).map(Some),
            None => Ok(None),
        }
    }

    /// The return path of a `__close` frame whose function slot was
    /// `func`: drops its results and, for a Lua caller, rewinds to the
    /// instruction that closed (`CLOSE`/`RETURN`, as `luaV_finishOp`).
    /// `open_top` is set to `func`: a `RETURN` with B = 0 truncated the
    /// stack to the end of its results before closing, so this restores
    /// its result count. A native caller is a recovering protected frame;
    /// the loop continues its recovery.
    fn close_returned(&mut self, func: usize) {
        self.ex.stack.truncate(func);
        self.ex.open_top = func as u32;
        if let Some(c) = self.ex.frames.last_mut() {
            if matches!(c.callee, Callee::Lua(_)) {
                c.pc = c.pc.saturating_sub(1);
                let top = u(c.top);
                if self.ex.stack.len() < top {
                    self.ex.stack.resize(top, Value::Nil);
                }
            }
        }
    }

    /// Closes upvalues and calls `__close` of the to-be-closed variables at
    /// or above `level`, in reverse order, with `err` (nil for a normal
    /// exit), as nested non-yieldable calls (`luaD_closeprotected`): used
    /// where the reference closes from C (`lua_pcall`, `lua_closethread`,
    /// `lua_close`). An error in a `__close` replaces the error and the
    /// remaining variables (including any the failed call left open) are
    /// still closed. Returns the final error value.
    pub(crate) fn close_level(&mut self, level: usize, err: Option<Value>) -> Option<Value> {
        let mut err = err;
        loop {
            self.close_upvals(level);
            let Some(slot) = self.pop_tbc(level) else { return err };
            let v = self.ex.stack.get(slot).copied().unwrap_or(Value::Nil);
            let tm = self.tm_of(v, TM_CLOSE);
            let depth = self.ex.frames.len();
            if let Err(e2) = self.call_value(tm, &[v, err.unwrap_or(Value::Nil)]) {
                // Drop the failed call's frames but keep its stack slots:
                // its open upvalues and to-be-closed variables are closed
                // by the next iterations.
                self.unwind_frames(depth);
                err = Some(e2.value);
            }
        }
    }

    // ----- nested calls -------------------------------------------------

    /// Calls `f(args)` from Rust and returns all its results. The call is
    /// nested on the Rust stack: code inside it cannot yield (`attempt to
    /// yield across a C-call boundary`) and the nesting depth is limited
    /// (`C stack overflow`). Errors propagate; the frames of the failed call
    /// are left for the catching protected call to unwind.
    pub fn call_value(&mut self, f: Value, args: &[Value]) -> Result<Vec<Value>, Error> {
        let func = self.call_nested(f, args, -1)?;
        let out = self.ex.stack[func..].to_vec();
        self.ex.stack.truncate(func);
        Ok(out)
    }

    /// [`State::call_value`] keeping only the first result.
    #[inline(always)]
    pub fn call_value1(&mut self, f: Value, args: &[Value]) -> Result<Value, Error> {
        let func = self.call_nested(f, args, 1)?;
        let v = self.ex.stack[func];
        self.ex.stack.truncate(func);
        Ok(v)
    }

    /// Pushes `f` and `args` and runs the call to completion; the results
    /// are left at `stack[func..]`. Returns `func`.
    ///
    /// Inlined, so that `f` goes from the caller's registers to its slot:
    /// passed on, it was spilled to a temporary in pieces (a 4-byte
    /// handle, padding copied as two 4-byte words) and read back as whole
    /// words, which waited for those stores to reach the cache — a
    /// quarter of `call_nested`'s time in `gsub(s, ".", f)`, a twelfth of
    /// `table.sort`'s with a Lua comparator.
    #[inline(always)]
    pub(crate) fn call_nested(
        &mut self,
        f: Value,
        args: &[Value],
        nresults: i32,
    ) -> Result<usize, Error> {
        let func = self.ex.stack.len();
        if func + args.len() + 1 >= MAX_STACK {
            self.check_stack_reserve(func + args.len() + 1)?;
        }
        self.ex.stack.push_call_words(f, args);
        self.run_pushed(func, nresults)?;
        Ok(func)
    }

    /// [`State::call_nested`] of the function and arguments already pushed
    /// at `stack[func..]` (by the embedding API); on an error before the
    /// call starts, they are popped.
    pub(crate) fn call_pushed(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        let top = self.ex.stack.len();
        if top >= MAX_STACK {
            if let Err(e) = self.check_stack_reserve(top) {
                self.ex.stack.truncate(func);
                return Err(e);
            }
        }
        self.run_pushed(func, nresults)
    }

    /// Runs the call of `stack[func]` with the arguments above it, nested.
    #[inline(never)]
    fn run_pushed(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        // Charged once `f` and `args` are rooted (the check may collect).
        if let Err(e) = self.charge(crate::limits::CALL_COST) {
            self.ex.stack.truncate(func);
            return Err(e);
        }
        // One C-call level for the nested call (`ccount.rs`).
        if let Err(e) = self.enter_ccall() {
            self.ex.stack.truncate(func);
            return Err(e);
        }
        self.ex.nny += 1;
        let r = self.call_at(func, nresults);
        self.ex.nny -= 1;
        self.n_ccalls -= 1;
        r
    }

    /// Calls the value at `func` (arguments above it) and runs until it
    /// returns; marks the new frame fresh so its results stay on top.
    pub(crate) fn call_at(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        let depth = self.ex.frames.len();
        let r = self.call_at_depth(func, nresults, depth);
        if depth == 0 {
            // Back at rest: nothing kept above the stack's length, so that
            // snapshots, saved states and the hash need not carry it
            // (`stack.rs`); the stacks in their threads forget theirs when
            // they run again.
            self.ex.stack.forget_kept();
            self.stack_epoch += 1;
        }
        r
    }

    fn call_at_depth(&mut self, func: usize, nresults: i32, depth: usize) -> Result<(), Error> {
        self.precall_fresh(func, nresults)?;
        if self.ex.frames.len() > depth {
            // The loop first, and `run_with` only for an error to catch:
            // its frame and the moves of its pending error cost a nested
            // call of a small function a tenth of its instructions.
            let mine = self.loop_resumes.len();
            let exit = match self.execute(depth, mine) {
                Ok(x) => x,
                Err(e) => self.run_with_at(depth, mine, Some(e))?,
            };
            if let Exit::Yield = exit {
                return Err(self.error_string(b"attempt to yield across a C-call boundary"));
            }
        }
        Ok(())
    }

    /// `precall` for a frame entered from Rust: flags the frame so that
    /// its results are left on top of the stack.
    fn precall_fresh(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        let depth = self.ex.frames.len();
        let mut chain = 0;
        // Resolve __call first so the flag lands on the real frame.
        loop {
            match self.ex.stack[func] {
                Value::LuaFn(cl) => {
                    self.push_lua_frame::<true>(func, cl, nresults, MetaRet::Call)?;
                    self.ex.frames[depth].status |= cist::FRESH;
                    return Ok(());
                }
                Value::RustFn(h) => {
                    let f = self.native_fn(h);
                    let mut ci = CallInfo::rust(func, nresults, MetaRet::Call, h);
                    ci.status = cist::FRESH;
                    self.ex.frames.push(ci);
                    if self.hooks.any {
                        self.hook_call()?;
                    }
                    let act = f(self)?;
                    match self.native_action(act)? {
                        Pre::Continue | Pre::Switch => return Ok(()),
                        Pre::Yield => {
                            return Err(
                                self.error_string(b"attempt to yield across a C-call boundary")
                            )
                        }
                    }
                }
                _ => self.insert_call_tm(func, &mut chain)?,
            }
        }
    }

    /// Like [`State::call_value`] but catching errors: on failure the
    /// frames and stack above the call are unwound (upvalues and
    /// to-be-closed variables closed) and the error is returned.
    pub fn pcall_value(&mut self, f: Value, args: &[Value]) -> Result<Vec<Value>, Error> {
        let depth = self.ex.frames.len();
        let level = self.ex.stack.len();
        match self.call_value(f, args) {
            Ok(v) => Ok(v),
            Err(mut e) => {
                self.unwind_frames(depth);
                if let Some(v) = self.close_level(level, Some(e.value)) {
                    e.value = v;
                }
                self.ex.stack.truncate(level);
                Err(e)
            }
        }
    }

    // ----- the driver ---------------------------------------------------

    /// Runs the frames above depth `stop` until they all return (or the
    /// coroutine yields), catching errors at protected frames.
    pub(crate) fn run(&mut self, stop: usize) -> Result<Exit, Error> {
        self.run_with(stop, None)
    }

    /// [`State::run`], starting with the handling of a pending error.
    pub(crate) fn run_with(&mut self, stop: usize, pending: Option<Error>) -> Result<Exit, Error> {
        self.run_with_at(stop, self.loop_resumes.len(), pending)
    }

    /// [`State::run_with`] of the loop activation that owns the resumes
    /// of `loop_resumes` above `mine` (`coswitch.rs`): an error that no
    /// frame of such a coroutine catches ends its resume, and goes on in
    /// the resumer if it is a wrap's.
    pub(crate) fn run_with_at(
        &mut self,
        stop: usize,
        mine: usize,
        mut pending: Option<Error>,
    ) -> Result<Exit, Error> {
        loop {
            let err = match pending.take() {
                Some(e) => e,
                None => match self.execute(stop, mine) {
                    Ok(x) => return Ok(x),
                    Err(e) => e,
                },
            };
            let in_loop = self.loop_resumes.len() > mine;
            let stop = self.loop_stop(stop, mine);
            let mut e = err;
            // Limit errors go to the host (`limits.rs`).
            let prot =
                if crate::limits::passes_protection(&e) { None } else { self.find_protected() };
            if !e.handled {
                e.handled = true;
                match prot {
                    Some(i) if self.ex.frames[i].status & cist::XPCALL != 0 => {
                        e.value = self.call_handler(i, e.value);
                    }
                    None if self.running == self.main_thread => {
                        e.traceback = self.traceback(None, 0, true);
                    }
                    _ => {}
                }
            }
            match prot {
                // An error while recovering (a failing native `__close`, a
                // continuation) is handled like any other.
                Some(i) if i >= stop => match self.recover(i, e) {
                    Ok(Pre::Continue | Pre::Switch) => {}
                    Ok(Pre::Yield) if in_loop => pending = self.end_in_loop(Ok(Exit::Yield)).err(),
                    Ok(Pre::Yield) => return Ok(Exit::Yield),
                    Err(e2) => pending = Some(e2),
                },
                _ if in_loop => pending = self.end_in_loop(Err(e)).err(),
                _ => return Err(e),
            }
        }
    }

    /// The innermost protected frame of the running thread.
    fn find_protected(&self) -> Option<usize> {
        self.ex.frames.iter().rposition(|ci| ci.status & cist::PCALL != 0)
    }

    /// Calls the message handler of the `xpcall` frame `i` on `err`, one
    /// C level deeper (`ccount.rs`). As `luaG_errormsg`, an error inside
    /// the handler comes back here (`run_with` finds the same frame) and
    /// calls it again, a level deeper each time, until the level where
    /// the reference gives up with `error in error handling`; and when the
    /// call itself fails its test at the 200th level, the handler runs on
    /// that `C stack overflow`, at the 201st.
    fn call_handler(&mut self, i: usize, err: Value) -> Value {
        let next = self.c_level() + 1;
        if next >= crate::ccount::MAX_CCALLS_ERRERR {
            return Value::Str(self.heap.intern(b"error in error handling"));
        }
        if next == MAX_CCALLS {
            let e = self.rt_error("C stack overflow");
            self.n_ccalls += 1;
            let v = self.call_handler(i, e.value);
            self.n_ccalls -= 1;
            return v;
        }
        let base = u(self.ex.frames[i].base);
        let h = self.ex.stack.get(base).copied().unwrap_or(Value::Nil);
        self.in_msgh += 1;
        let r = self.call_nested(h, &[err], 1);
        self.in_msgh -= 1;
        match r {
            Ok(func) => {
                let v = self.ex.stack.get(func).copied().unwrap_or(Value::Nil);
                self.ex.stack.truncate(func);
                v
            }
            Err(e2) => e2.value,
        }
    }

    /// Unwinds to the protected frame `i` after error `e`: drops the frames
    /// above it, puts the error value on top of the stack and starts
    /// closing the variables above its error level ([`State::recover_step`]).
    /// The frame keeps its `PCALL`/`XPCALL` flags while it recovers, so an
    /// error in a `__close` comes back here (through the message handler of
    /// an `xpcall`) and replaces the error, as in `finishpcallk`.
    fn recover(&mut self, i: usize, e: Error) -> Result<Pre, Error> {
        self.unwind_frames(i + 1);
        self.caught_ccall();
        self.ex.frames[i].status |= cist::RECOVER;
        self.ex.stack.push(e.value);
        self.recover_step()
    }

    /// Continues the recovery of the protected native frame on top, whose
    /// error value is on top of the stack: starts the `__close` of the next
    /// variable above its error level as a frame of the loop (which comes
    /// back here when it returns, see [`MetaRet::Close`]; it may yield), or,
    /// when none is left, leaves the error value at the error level and
    /// runs the frame's continuation with [`Status::Error`].
    pub(crate) fn recover_step(&mut self) -> Result<Pre, Error> {
        let level = u(self.ex.frames.last().map_or(0, |ci| ci.errlevel));
        let err = self.ex.stack.last().copied().unwrap_or(Value::Nil);
        self.close_upvals(level);
        if let Some(slot) = self.pop_tbc(level) {
            // As `prepcallclosemth`: the error goes just above the variable
            // (everything above it is dead: upvalues closed, inner variables
            // already closed).
            self.ex.stack.truncate(slot + 1);
            self.ex.stack.push(err);
            return self.call_close(slot, err);
        }
        self.ex.stack.resize(level, Value::Nil);
        self.ex.stack.push(err);
        if let Some(ci) = self.ex.frames.last_mut() {
            ci.status &= !(cist::PCALL | cist::XPCALL | cist::RECOVER);
        }
        let act = self.resume_k(Status::Error)?;
        self.native_action(act)
    }

    /// Continues the native frame on top when the loop reaches it again:
    /// it yielded (a native metamethod such as `coroutine.yield` was called
    /// directly by an instruction: the coroutine yields), it is recovering
    /// from an error, or the function it asked to call returned (its
    /// continuation runs).
    pub(crate) fn continue_native(&mut self) -> Result<Pre, Error> {
        let status = self.ex.frames.last().map_or(0, |ci| ci.status);
        if status & cist::YIELDED != 0 {
            return Ok(Pre::Yield);
        }
        if status & cist::RECOVER != 0 {
            return self.recover_step();
        }
        let act = self.resume_k(Status::Ok)?;
        self.native_action(act)
    }

    /// Prepares the native frame on top as a protected call whose errors
    /// unwind to stack level `level` (for `pcall`-like natives).
    pub fn protect_frame(&mut self, level: usize, with_handler: bool) {
        let Some(ci) = self.ex.frames.last_mut() else { return };
        ci.status |= cist::PCALL;
        if with_handler {
            ci.status |= cist::XPCALL;
        }
        ci.errlevel = level as u32;
    }
}
