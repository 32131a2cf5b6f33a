//! Calls, returns, protected execution and the native-function protocol
//! (the counterpart of `ldo.c`).
//!
//! * [`State::precall`] starts a call of the value at a stack slot: a Lua
//!   function gets a frame and is left for the dispatch loop to run (no
//!   Rust recursion: Lua-to-Lua calls and returns are frame pushes and
//!   pops); a native runs at once and its [`Action`] is carried out by
//!   [`State::native_action`]; any other value goes through `__call`.
//! * [`State::poscall`] pops a frame and delivers its results to the
//!   caller according to the frame's [`MetaRet`]: ordinary calls move them
//!   to the function slot (adjusting to the wanted count), metamethod frames
//!   store them in a register, decide a jump or continue a concatenation.
//! * [`State::run`] drives the loop for the frames above a given depth and
//!   implements protected calls: an `Err` coming out of the loop is caught
//!   here, the innermost `pcall`/`xpcall` frame of the running thread is
//!   found, its message handler runs (with the stack intact, so tracebacks
//!   see the failing frames), then the stack is unwound to it —
//!   upvalues closed, to-be-closed variables closed with the error — and
//!   execution continues in the protected frame's continuation.
//! * [`State::call_value`] is the nested, non-yieldable call for natives
//!   that must call Lua from Rust (the `LUAI_MAXCCALLS` limit applies).
//!
//! **Invariant:** while a Lua frame runs, `stack.len() >= frame.top`; a
//! frame being entered has its arguments exactly at `stack[func+1..len]`.

use crate::error::Error;
use crate::func::UpVal;
use crate::meta::{TM_CALL, TM_CLOSE};
use crate::state::{Action, State, Status, MAX_CCALLS, MAX_STACK};
use crate::thread::{cist, u, CallInfo, Callee, MetaRet};
use crate::value::{LuaFnRef, RustFnRef, Value};

/// What the dispatch loop does after a call was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pre {
    /// Continue with whatever frame is on top.
    Continue,
    /// The running coroutine yielded.
    Yield,
}

/// Runs `f` with enough Rust stack for one more level of nested
/// interpretation, growing the stack onto the heap if needed (`stacker`):
/// the nesting limit is then the logical `MAX_CCALLS`, never the size of
/// the host thread's stack.
#[inline]
pub(crate) fn grow_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, f)
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
        loop {
            match self.ex.stack[func] {
                Value::LuaFn(cl) => {
                    self.push_lua_frame(func, cl, nresults, ret)?;
                    return Ok(Pre::Continue);
                }
                Value::RustFn(h) => return self.call_native(func, h, nresults, ret),
                v => {
                    let tm = self.tm_of(v, TM_CALL);
                    if tm.is_nil() {
                        return Err(self.call_error(func));
                    }
                    if self.ex.stack.len() >= MAX_STACK {
                        return Err(self.rt_error("stack overflow"));
                    }
                    self.ex.stack.insert(func, tm);
                }
            }
        }
    }

    /// `attempt to call a X value (...)` (`luaG_callerror`).
    #[cold]
    fn call_error(&mut self, func: usize) -> Error {
        let v = self.ex.stack[func];
        let n = self.ex.frames.len();
        let named = match self.ex.frames.last() {
            Some(ci) if matches!(ci.callee, Callee::Lua(_)) => {
                let p = self.frame_proto(ci).expect("lua frame");
                let pc = (ci.pc as usize).saturating_sub(1);
                let i = p.code.get(pc).copied();
                match i.and_then(|i| i.opcode()) {
                    Some(luprex_compiler::OpCode::TForCall) => {
                        Some(("for iterator".to_string(), "for iterator".to_string()))
                    }
                    _ => {
                        let base = u(ci.base);
                        if func >= base && n > 0 {
                            crate::debug::getobjname(self, p, pc, (func - base) as u32)
                                .map(|(k, nm)| (k.to_string(), nm))
                        } else {
                            None
                        }
                    }
                }
            }
            _ => None,
        };
        let t = self.obj_typename(v);
        let extra = named.map(|(k, nm)| format!(" ({k} '{nm}')")).unwrap_or_default();
        self.rt_error(format!("attempt to call a {t} value{extra}"))
    }

    /// Pushes the frame of a Lua function whose arguments are in place.
    #[inline]
    pub(crate) fn push_lua_frame(
        &mut self,
        func: usize,
        cl: LuaFnRef,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<(), Error> {
        let ph = self.heap.lua_fns.get(cl).proto;
        let p = self.heap.protos.get(ph);
        let nargs = self.ex.stack.len() - func - 1;
        let fixed = p.num_params as usize;
        let maxstack = p.max_stack as usize;
        if !p.is_vararg {
            let base = func + 1;
            let top = base + maxstack;
            if top > MAX_STACK {
                return Err(self.rt_error("stack overflow"));
            }
            self.ex.stack.resize(top, Value::Nil);
            self.ex.frames.push(CallInfo {
                func: func as u32,
                base: base as u32,
                top: top as u32,
                pc: 0,
                nextra: 0,
                nresults,
                status: 0,
                ret,
                callee: Callee::Lua(cl),
                k: None,
                errlevel: 0,
            });
            return Ok(());
        }
        let nextra = nargs.saturating_sub(fixed);
        let nadj = nargs.max(fixed);
        let base = func + nadj + 2;
        let top = base + maxstack;
        if top > MAX_STACK {
            return Err(self.rt_error("stack overflow"));
        }
        // Pad missing fixed parameters, then copy the function and the fixed
        // parameters above the varargs.
        self.ex.stack.resize(top, Value::Nil);
        let st = &mut self.ex.stack;
        st[base - 1] = st[func];
        for i in 0..fixed {
            st[base + i] = st[func + 1 + i];
            st[func + 1 + i] = Value::Nil;
        }
        self.ex.frames.push(CallInfo {
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
        });
        Ok(())
    }

    /// Calls a native whose arguments are in place, then carries out its
    /// action.
    fn call_native(
        &mut self,
        func: usize,
        h: RustFnRef,
        nresults: i32,
        ret: MetaRet,
    ) -> Result<Pre, Error> {
        let id = self.heap.rust_fns.get(h).id;
        let f = self.natives[id.0 as usize].f;
        self.ex.frames.push(CallInfo {
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
        });
        let act = f(self)?;
        self.native_action(act)
    }

    /// Carries out the action of the native frame on top.
    pub(crate) fn native_action(&mut self, mut act: Action) -> Result<Pre, Error> {
        loop {
            match act {
                Action::Return(n) => {
                    let len = self.ex.stack.len();
                    let n = n.min(len - u(self.ex.frames.last().expect("frame").base));
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
                    if self.n_ccalls >= MAX_CCALLS {
                        return Err(self.rt_error("C stack overflow"));
                    }
                    self.n_ccalls += 1;
                    let r = grow_stack(|| self.precall(callee, nresults, MetaRet::Call));
                    self.n_ccalls -= 1;
                    match r? {
                        Pre::Yield => return Ok(Pre::Yield),
                        Pre::Continue => {
                            if self.ex.frames.len() - 1 != me {
                                return Ok(Pre::Continue);
                            }
                            act = self.resume_k(Status::Ok)?;
                        }
                    }
                }
                Action::Yield { nvalues, k } => {
                    self.check_yield()?;
                    let ci = self.ex.frames.last_mut().expect("frame");
                    ci.k = k;
                    ci.status |= cist::YIELDED;
                    let len = self.ex.stack.len();
                    self.ex.open_top = (len - nvalues.min(len)) as u32;
                    return Ok(Pre::Yield);
                }
            }
        }
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
        let ci = self.ex.frames.last_mut().expect("frame");
        ci.status &= !cist::YIELDED;
        match ci.k.take() {
            Some((k, ctx)) => k(self, status, ctx),
            None => {
                let from = if status == Status::Yield { self.ex.open_top } else { ci.pc };
                Ok(Action::Return(self.ex.stack.len() - u(from)))
            }
        }
    }

    /// Pops the top frame; its results are `stack[first..first+n]`.
    pub(crate) fn poscall(&mut self, first: usize, n: usize) -> Result<(), Error> {
        let ci = self.ex.frames.pop().expect("frame");
        let func = u(ci.func);
        match ci.ret {
            MetaRet::Call => {
                self.move_results(func, first, n, ci.nresults, ci.status & cist::FRESH != 0);
                Ok(())
            }
            ret => {
                let v = if n > 0 { self.ex.stack[first] } else { Value::Nil };
                let caller = *self.ex.frames.last().expect("caller");
                let (cbase, ctop) = (u(caller.base), u(caller.top));
                self.ex.stack.truncate(func);
                self.ex.stack.resize(ctop, Value::Nil);
                match ret {
                    MetaRet::Reg(a) => self.ex.stack[cbase + a as usize] = v,
                    MetaRet::Cond(k) => {
                        if v.truthy() != k {
                            self.ex.frames.last_mut().expect("caller").pc += 1;
                        }
                    }
                    MetaRet::Concat { a, n } => {
                        self.ex.stack[cbase + a as usize + n as usize - 2] = v;
                        self.concat(a, n as usize - 1)?;
                    }
                    MetaRet::Discard | MetaRet::Call => {}
                }
                Ok(())
            }
        }
    }

    /// Moves results to `func` and sets the stack extent for the caller.
    /// `fresh`: the frame was entered from Rust (results stay on top).
    #[inline]
    fn move_results(&mut self, func: usize, first: usize, n: usize, wanted: i32, fresh: bool) {
        let st = &mut self.ex.stack;
        let count = if wanted < 0 { n } else { wanted as usize };
        let ncopy = n.min(count);
        if first != func {
            st.copy_within(first..first + ncopy, func);
        }
        let end = func + count;
        if end > st.len() {
            st.resize(end, Value::Nil);
        }
        for slot in &mut st[func + ncopy..end] {
            *slot = Value::Nil;
        }
        match self.ex.frames.last() {
            Some(c) if !fresh && matches!(c.callee, Callee::Lua(_)) => {
                let top = u(c.top);
                if wanted < 0 {
                    self.ex.open_top = end as u32;
                }
                st.truncate(end);
                if st.len() < top {
                    st.resize(top, Value::Nil);
                }
            }
            _ => st.truncate(end),
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
            *self.heap.upvals.get_mut(uv) = UpVal::Closed(v);
            self.ex.open_upvals.pop();
        }
    }

    /// Marks stack slot `slot` as to-be-closed (`TBC`): its value must be
    /// false, nil, or have a `__close` metamethod.
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

    /// Closes upvalues and calls `__close` of the to-be-closed variables at
    /// or above `level`, in reverse order, with `err` (nil for a normal
    /// exit). Returns the error value, replaced by any error a `__close`
    /// raises (`luaF_close`). Metamethods run as nested calls.
    pub(crate) fn close_level(
        &mut self,
        level: usize,
        err: Option<Value>,
    ) -> Result<Option<Value>, Error> {
        self.close_upvals(level);
        let mut err = err;
        while let Some(&slot) = self.ex.tbc.last() {
            if (slot as usize) < level {
                break;
            }
            self.ex.tbc.pop();
            let v = self.ex.stack.get(slot as usize).copied().unwrap_or(Value::Nil);
            let tm = self.tm_of(v, TM_CLOSE);
            let e = err.unwrap_or(Value::Nil);
            let r = if tm.is_nil() {
                Err(self.rt_error("attempt to call a nil value (metamethod 'close')"))
            } else {
                self.call_value(tm, &[v, e]).map(|_| ())
            };
            match (r, err.is_some()) {
                (Ok(()), _) => {}
                (Err(e2), true) => err = Some(e2.value),
                (Err(e2), false) => return Err(e2),
            }
        }
        Ok(err)
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
    pub fn call_value1(&mut self, f: Value, args: &[Value]) -> Result<Value, Error> {
        let func = self.call_nested(f, args, 1)?;
        let v = self.ex.stack[func];
        self.ex.stack.truncate(func);
        Ok(v)
    }

    /// Pushes `f` and `args` and runs the call to completion; the results
    /// are left at `stack[func..]`. Returns `func`.
    pub(crate) fn call_nested(
        &mut self,
        f: Value,
        args: &[Value],
        nresults: i32,
    ) -> Result<usize, Error> {
        if self.n_ccalls >= MAX_CCALLS {
            return Err(self.rt_error("C stack overflow"));
        }
        let func = self.ex.stack.len();
        if func + args.len() + 1 >= MAX_STACK {
            return Err(self.rt_error("stack overflow"));
        }
        self.ex.stack.push(f);
        self.ex.stack.extend_from_slice(args);
        self.n_ccalls += 1;
        self.ex.nny += 1;
        let r = grow_stack(|| self.call_at(func, nresults));
        self.ex.nny -= 1;
        self.n_ccalls -= 1;
        r?;
        Ok(func)
    }

    /// Calls the value at `func` (arguments above it) and runs until it
    /// returns; marks the new frame fresh so its results stay on top.
    pub(crate) fn call_at(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        let depth = self.ex.frames.len();
        self.precall_fresh(func, nresults)?;
        if self.ex.frames.len() > depth {
            match self.run(depth)? {
                Exit::Return => {}
                Exit::Yield => {
                    return Err(self.error_string(b"attempt to yield across a C-call boundary"))
                }
            }
        }
        Ok(())
    }

    /// `precall` for a frame entered from Rust: flags the frame so that
    /// its results are left on top of the stack.
    fn precall_fresh(&mut self, func: usize, nresults: i32) -> Result<(), Error> {
        let depth = self.ex.frames.len();
        // Resolve __call first so the flag lands on the real frame.
        loop {
            match self.ex.stack[func] {
                Value::LuaFn(cl) => {
                    self.push_lua_frame(func, cl, nresults, MetaRet::Call)?;
                    self.ex.frames[depth].status |= cist::FRESH;
                    return Ok(());
                }
                Value::RustFn(h) => {
                    let id = self.heap.rust_fns.get(h).id;
                    let f = self.natives[id.0 as usize].f;
                    self.ex.frames.push(CallInfo {
                        func: func as u32,
                        base: func as u32 + 1,
                        top: 0,
                        pc: 0,
                        nextra: 0,
                        nresults,
                        status: cist::FRESH,
                        ret: MetaRet::Call,
                        callee: Callee::Rust(h),
                        k: None,
                        errlevel: 0,
                    });
                    let act = f(self)?;
                    match self.native_action(act)? {
                        Pre::Continue => return Ok(()),
                        Pre::Yield => {
                            return Err(
                                self.error_string(b"attempt to yield across a C-call boundary")
                            )
                        }
                    }
                }
                v => {
                    let tm = self.tm_of(v, TM_CALL);
                    if tm.is_nil() {
                        return Err(self.call_error(func));
                    }
                    self.ex.stack.insert(func, tm);
                }
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
                self.ex.frames.truncate(depth);
                if let Ok(Some(v)) = self.close_level(level, Some(e.value)) {
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
    pub(crate) fn run_with(
        &mut self,
        stop: usize,
        mut pending: Option<Error>,
    ) -> Result<Exit, Error> {
        loop {
            let err = match pending.take() {
                Some(e) => e,
                None => match self.execute(stop) {
                    Ok(x) => return Ok(x),
                    Err(e) => e,
                },
            };
            let mut e = err;
            let prot = self.find_protected();
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
                Some(i) if i >= stop => {
                    if self.recover(i, e)? == Pre::Yield {
                        return Ok(Exit::Yield);
                    }
                }
                _ => return Err(e),
            }
        }
    }

    /// The innermost protected frame of the running thread.
    fn find_protected(&self) -> Option<usize> {
        self.ex.frames.iter().rposition(|ci| ci.status & cist::PCALL != 0)
    }

    /// Calls the message handler of the `xpcall` frame `i` on `err`.
    fn call_handler(&mut self, i: usize, err: Value) -> Value {
        if self.n_ccalls >= MAX_CCALLS - 10 {
            let s = self.heap.intern(b"error in error handling");
            return Value::Str(s);
        }
        let base = u(self.ex.frames[i].base);
        let h = self.ex.stack[base];
        match self.call_nested(h, &[err], 1) {
            Ok(func) => {
                let v = self.ex.stack[func];
                self.ex.stack.truncate(func);
                v
            }
            Err(e2) => e2.value,
        }
    }

    /// Unwinds to the protected frame `i` and runs its continuation with
    /// the error.
    fn recover(&mut self, i: usize, e: Error) -> Result<Pre, Error> {
        let level = u(self.ex.frames[i].errlevel);
        self.ex.frames.truncate(i + 1);
        self.ex.frames[i].status &= !(cist::PCALL | cist::XPCALL);
        let ev = match self.close_level(level, Some(e.value)) {
            Ok(v) => v.unwrap_or(e.value),
            Err(e2) => e2.value,
        };
        self.ex.stack.truncate(level);
        self.ex.stack.push(ev);
        let act = self.resume_k(Status::Error)?;
        self.native_action(act)
    }

    /// Prepares the native frame on top as a protected call whose errors
    /// unwind to stack level `level` (for `pcall`-like natives).
    pub fn protect_frame(&mut self, level: usize, with_handler: bool) {
        let ci = self.ex.frames.last_mut().expect("frame");
        ci.status |= cist::PCALL;
        if with_handler {
            ci.status |= cist::XPCALL;
        }
        ci.errlevel = level as u32;
    }
}
