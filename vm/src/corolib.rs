//! The coroutine library (`lcorolib.c`) and the resume machinery.
//!
//! `coroutine.resume` and the functions of `coroutine.wrap` ask the VM for
//! a resume ([`Action::Resume`]). Called by a loop instruction, it is made
//! in place (`coswitch.rs`); otherwise (from Rust, through `pcall`, under a
//! hook) it is nested: it moves the coroutine's execution state into the
//! `State` (see `thread.rs`) and runs the interpreter on it, one level
//! deeper on the Rust stack. Either way the count of C calls goes up by one
//! (limited to `LUAI_MAXCCALLS`, giving `C stack overflow`). Yielding
//! never nests: `coroutine.yield` returns [`Action::Yield`], the loop
//! unwinds to the resume with the coroutine's frames left in place, and
//! the next resume continues them. Because
//! `pcall`, metamethods and `for` iterators are frames of the same loop, a
//! coroutine can yield inside any of them; only nested Rust calls
//! (`call_value`) make it non-yieldable.

use crate::call::{Exit, Pre};
use crate::error::Error;
use crate::state::{Action, ResumeRequest, State, Status, MAX_CCALLS};
use crate::thread::{cist, u, CoStatus, ExecState, MetaRet, Thread};
use crate::value::{ThreadRef, Value};

type R = Result<Action, Error>;

/// Opens the coroutine library.
pub fn open(st: &mut State) {
    let t = st.heap.new_table(0, 8);
    let fns: &[(&str, &'static str, crate::state::NativeFn)] = &[
        ("create", "coroutine.create", create),
        ("resume", "coroutine.resume", resume),
        ("yield", "coroutine.yield", yield_),
        ("status", "coroutine.status", status),
        ("wrap", "coroutine.wrap", wrap),
        ("isyieldable", "coroutine.isyieldable", isyieldable),
        ("running", "coroutine.running", running),
        ("close", "coroutine.close", close),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    st.native_id("coroutine.wrap_function", auxwrap);
    st.set_global("coroutine", Value::Table(t));
    let k = st.heap.intern(b"coroutine");
    let loaded = st.loaded;
    st.raw_set_str(loaded, k, Value::Table(t));
}

impl State {
    /// Creates a coroutine whose body is `f`.
    pub fn new_thread(&mut self, f: Value) -> ThreadRef {
        self.heap.new_thread(Thread::new_coroutine(f))
    }

    /// The status of a thread as `coroutine.status` names it.
    pub fn thread_status(&self, co: ThreadRef) -> CoStatus {
        if co == self.running {
            CoStatus::Running
        } else {
            self.heap.threads.get(co).status
        }
    }

    /// Whether coroutine `co` died with an error (and was not closed
    /// since).
    pub fn thread_failed(&self, co: ThreadRef) -> bool {
        co != self.running && !self.heap.threads.get(co).error.is_nil()
    }

    /// Resumes `co` with the top `nargs` values of the running stack as
    /// arguments (they are removed). On success the results (yielded or
    /// returned values) are pushed and their count returned; on error the
    /// error value is returned (nothing pushed).
    pub fn resume(&mut self, co: ThreadRef, nargs: usize) -> Result<Result<usize, Value>, Error> {
        self.resume_lead(co, nargs, false)
    }

    /// [`State::resume`]; with `lead`, a `true` is pushed in front of the
    /// results on success (not counted), as `coroutine.resume` returns them.
    ///
    /// Each execution state moves once per direction: the coroutine's
    /// from its `Thread` into `self.ex`, the resumer's into its own
    /// `Thread`, whose slot holds an empty state while it runs; arguments
    /// and results are copied straight from one stack to the other.
    ///
    /// `heap.bytes` counts a thread object with the state it holds
    /// (`Thread::estimated_bytes`), and the running state apart
    /// (`State::stack_bytes`): each move adds the state parked and takes
    /// off the state taken out, as it was counted. Counted at creation
    /// only, a coroutine grown while it ran was freed for more than it had
    /// added, and a program making short-lived generators drove the count
    /// to zero and collected at every allocation (RESULTS part 33).
    #[inline]
    fn resume_lead(
        &mut self,
        co: ThreadRef,
        nargs: usize,
        lead: bool,
    ) -> Result<Result<usize, Value>, Error> {
        if let Some(m) = self.resume_refusal(co) {
            let len = self.ex.stack.len();
            self.ex.stack.truncate(len - nargs);
            return Ok(Err(self.new_string(m)));
        }
        let (prev, started) = self.switch_in(co, nargs);
        let saved = self.enter_resume();
        let r = self.resume_inner(started, nargs);
        self.end_resume(co, prev, saved, r, lead)
    }

    /// The second half of a resume, shared by the nested one and the
    /// loop's (`coswitch.rs`): the C-call counts saved by
    /// [`State::enter_resume`] come back, the outcome `r` is recorded and
    /// the resumer's state moves back in ([`State::finish_resume`]). A
    /// limit error kills the coroutine and goes on in the resumer
    /// (`limits.rs`: Lua cannot catch it).
    #[inline(always)]
    pub(crate) fn end_resume(
        &mut self,
        co: ThreadRef,
        prev: ThreadRef,
        saved: (u32, u32, u32),
        r: Result<Exit, Error>,
        lead: bool,
    ) -> Result<Result<usize, Value>, Error> {
        (self.n_ccalls, self.ccall_mark, self.ccall_base) = saved;
        let pass = match &r {
            Err(e) if crate::limits::passes_protection(e) => Some(e.clone()),
            _ => None,
        };
        let out = self.finish_resume(co, prev, r, lead);
        match pass {
            Some(e) => Err(e),
            None => out,
        }
    }

    /// The first half of a resume, shared by the nested one
    /// ([`State::resume_lead`]) and the loop's (`coswitch.rs`): the top
    /// `nargs` values move to the suspended coroutine `co`'s stack, the
    /// statuses change, and `co`'s execution state moves in. Returns the
    /// resumer and whether `co` had started.
    #[inline(always)]
    pub(crate) fn switch_in(&mut self, co: ThreadRef, nargs: usize) -> (ThreadRef, bool) {
        let prev = self.running;
        let args_start = self.ex.stack.len() - nargs;
        let epoch = self.stack_epoch;
        let (pth, th) = self.heap.threads.pair_mut_storing(prev, co);
        pth.status = CoStatus::Normal;
        th.status = CoStatus::Running;
        let started = std::mem::replace(&mut th.started, true);
        // The arguments go straight into the coroutine's stack, then each
        // state moves once: the resumer's into its own slot (which held an
        // empty state while it ran), the coroutine's out of its slot.
        let co_bytes = th.ex.logical_bytes();
        th.ex.stack.unpark(epoch);
        th.ex.stack.extend_from_words(&self.ex.stack[args_start..]);
        self.ex.stack.truncate(args_start);
        self.ex.stack.park(epoch);
        let prev_bytes = self.ex.logical_bytes();
        ExecState::rotate(&mut pth.ex, &mut self.ex, &mut th.ex);
        self.running = co;
        self.heap.bytes = self.heap.bytes.saturating_add(prev_bytes).saturating_sub(co_bytes);
        (prev, started)
    }

    /// `lua_resume`'s count: the resumer's plus one, the coroutine's
    /// pending frames holding nothing (`ccount.rs`). Returns the counts to
    /// restore when the resume ends.
    #[inline(always)]
    pub(crate) fn enter_resume(&mut self) -> (u32, u32, u32) {
        let saved = (self.n_ccalls, self.ccall_mark, self.ccall_base);
        self.n_ccalls += 1;
        (self.ccall_mark, self.ccall_base) = (self.ex.frames.len() as u32, self.n_ccalls);
        saved
    }

    /// The refusal of a resume of `co`, if any: `co` is not suspended, or
    /// the C-call count is at its limit.
    pub(crate) fn resume_refusal(&self, co: ThreadRef) -> Option<&'static [u8]> {
        let msg: Option<&'static [u8]> = if co == self.running {
            Some(b"cannot resume non-suspended coroutine")
        } else {
            match self.heap.threads.get(co).status {
                CoStatus::Suspended => None,
                CoStatus::Dead => Some(b"cannot resume dead coroutine"),
                _ => Some(b"cannot resume non-suspended coroutine"),
            }
        };
        match msg {
            None if self.c_level() >= MAX_CCALLS => Some(b"C stack overflow"),
            m => m,
        }
    }

    /// Starts or continues the coroutine whose state was just moved in.
    fn resume_inner(&mut self, started: bool, nargs: usize) -> Result<Exit, Error> {
        if !started {
            match self.start_body() {
                Ok(Pre::Yield) => Ok(Exit::Yield),
                Ok(Pre::Continue | Pre::Switch) => self.run(0),
                Err(e) => self.run_with(0, Some(e)),
            }
        } else {
            if self.continue_plain_yield(nargs) {
                return self.run(0);
            }
            match self.resume_k(Status::Yield).and_then(|a| self.native_action(a)) {
                Ok(Pre::Yield) => Ok(Exit::Yield),
                Ok(Pre::Continue | Pre::Switch) => self.run(0),
                Err(e) => self.run_with(0, Some(e)),
            }
        }
    }

    /// Starts the body of the coroutine just moved in, not started
    /// before: its `ccall` test (no increment; a failure kills the
    /// coroutine, with no frame yet, so no position), then its call, the
    /// frame of a Lua body marked fresh (its results stay on top).
    pub(crate) fn start_body(&mut self) -> Result<Pre, Error> {
        self.check_cstack_at(self.c_level())?;
        let pre = self.precall(0, -1, MetaRet::Call)?;
        if pre != Pre::Yield {
            if let Some(ci) = self.ex.frames.first_mut() {
                ci.status |= cist::FRESH;
            }
        }
        Ok(pre)
    }

    /// Whether the running coroutine, just moved in, stopped at a plain
    /// `coroutine.yield` (a native that yielded without a continuation,
    /// called by an ordinary call) and no hook runs: then its resume can
    /// skip `resume_k`, `native_action` and `poscall`.
    #[inline(always)]
    pub(crate) fn plain_yield(ex: &ExecState, hooked: bool) -> bool {
        ex.frames.last().is_some_and(|ci| {
            ci.status & cist::YIELDED != 0 && ci.k.is_none() && ci.ret == MetaRet::Call && !hooked
        })
    }

    /// The direct path of a resume: if the coroutine just moved in stopped
    /// at a plain yield ([`State::plain_yield`]), the yield returns the
    /// `nargs` resume arguments on top (what `resume_k`, `native_action`
    /// and `poscall` do, without their dispatch) and true is returned.
    /// (The frame's fields are read in place: a copy of the whole frame
    /// was three 16-byte loads and stores.)
    #[inline(always)]
    pub(crate) fn continue_plain_yield(&mut self, nargs: usize) -> bool {
        let len = self.ex.stack.len();
        self.ex.open_top = (len - nargs) as u32;
        if !Self::plain_yield(&self.ex, self.hooks.any) {
            return false;
        }
        let Some(ci) = self.ex.frames.pop() else { return false };
        let (status, func, nresults, base) = (ci.status, u(ci.func), ci.nresults, u(ci.base));
        let n = nargs.min(len.saturating_sub(base));
        self.move_results_parts(status, func, nresults, len - n, n);
        true
    }

    /// Records the outcome of a resume and moves the resumer's state back
    /// in (with `lead`, a `true` in front of the results).
    #[inline(always)]
    pub(crate) fn finish_resume(
        &mut self,
        co: ThreadRef,
        prev: ThreadRef,
        r: Result<Exit, Error>,
        lead: bool,
    ) -> Result<Result<usize, Value>, Error> {
        // Outcome, in the coroutine's stack.
        let (st, from, outcome) = match r {
            Ok(Exit::Return) => (CoStatus::Dead, 0, Ok(())),
            Ok(Exit::Yield) => (CoStatus::Suspended, self.ex.open_top as usize, Ok(())),
            Err(e) => (CoStatus::Dead, 0, Err(e.value)),
        };
        let epoch = self.stack_epoch;
        let (pth, th) = self.heap.threads.pair_mut_storing(prev, co);
        pth.status = CoStatus::Running;
        th.status = st;
        // The moves of `resume_lead` in reverse, the results copied first.
        let prev_bytes = pth.ex.logical_bytes();
        pth.ex.stack.unpark(epoch);
        let res = match outcome {
            Ok(()) => {
                let vals = &self.ex.stack[from.min(self.ex.stack.len())..];
                if lead {
                    pth.ex.stack.push(Value::Bool(true));
                }
                pth.ex.stack.extend_from_words(vals);
                let n = vals.len();
                self.ex.stack.truncate(from);
                Ok(n)
            }
            Err(ev) => Err(ev),
        };
        self.ex.stack.park(epoch);
        ExecState::rotate(&mut th.ex, &mut self.ex, &mut pth.ex);
        self.running = prev;
        match res {
            // A dead coroutine keeps its frames (for a traceback).
            Err(ev) => th.error = ev,
            Ok(_) if st == CoStatus::Dead => th.ex = Default::default(),
            Ok(_) => {}
        }
        let co_bytes = th.ex.logical_bytes();
        self.heap.bytes = self.heap.bytes.saturating_add(co_bytes).saturating_sub(prev_bytes);
        Ok(res)
    }

    /// [`Action::Resume`] as a nested run ([`State::resume_lead`]): the
    /// action of the requesting native.
    pub(crate) fn resume_nested(&mut self, q: ResumeRequest) -> Result<Action, Error> {
        let r = self.resume_lead(q.co, q.nargs, q.lead)?;
        self.resume_outcome(q.co, q.lead, r)
    }

    /// What the native that asked for a resume does with its outcome
    /// (pushed on the resumer's stack): `coroutine.resume` returns `true`
    /// and the values (the `true` is already in front, see
    /// [`State::finish_resume`]) or `false` and the error; a function of
    /// `coroutine.wrap` returns the values or raises the error, closing a
    /// coroutine that died with it and giving a string the position of
    /// the call (`auxwrap`).
    pub(crate) fn resume_outcome(
        &mut self,
        co: ThreadRef,
        lead: bool,
        r: Result<usize, Value>,
    ) -> Result<Action, Error> {
        match r {
            Ok(n) => Ok(Action::Return(n + usize::from(lead))),
            Err(e) if lead => {
                self.push(Value::Bool(false));
                self.push(e);
                Ok(Action::Return(2))
            }
            Err(mut ev) => {
                let th = self.heap.threads.get(co);
                if th.status == CoStatus::Dead && !th.error.is_nil() {
                    if let Some(e2) = self.close_thread(co) {
                        ev = e2;
                    }
                }
                if let Value::Str(s) = ev {
                    let mut w = Vec::new();
                    self.where_into(1, &mut w);
                    w.extend_from_slice(self.heap.str(s));
                    ev = self.new_string(&w);
                }
                Err(Error::from_value(ev))
            }
        }
    }

    /// Closes a suspended or dead coroutine: runs its pending `__close`
    /// metamethods and marks it dead. Returns the error (the coroutine's own
    /// or one raised by a `__close`), if any. While the metamethods run
    /// (in the coroutine, not yieldable), it is the running coroutine and
    /// its closer is `normal`, as in `lua_closethread`: resuming or closing
    /// either again fails.
    pub fn close_thread(&mut self, co: ThreadRef) -> Option<Value> {
        let prev = self.running;
        if co == prev {
            return Some(self.new_string(b"cannot close a running coroutine"));
        }
        self.ex.stack.park(self.stack_epoch);
        let prev_bytes = self.ex.logical_bytes();
        std::mem::swap(&mut self.ex, &mut self.heap.threads.get_mut(prev).ex);
        std::mem::swap(&mut self.ex, &mut self.heap.threads.get_mut(co).ex);
        self.ex.stack.unpark(self.stack_epoch);
        let co_bytes = self.ex.logical_bytes();
        self.heap.bytes = self.heap.bytes.saturating_add(prev_bytes).saturating_sub(co_bytes);
        self.running = co;
        self.heap.threads.get_mut(prev).status = CoStatus::Normal;
        let th = self.heap.threads.get_mut(co);
        let err0 = std::mem::replace(&mut th.error, Value::Nil);
        th.status = CoStatus::Running;
        let err0 = (!err0.is_nil()).then_some(err0);
        self.ex.frames.clear();
        self.ex.nny = 1;
        let mark = std::mem::replace(&mut self.ccall_mark, 0);
        let err = self.close_level(0, err0);
        self.ccall_mark = mark;
        self.ex = Default::default();
        std::mem::swap(&mut self.ex, &mut self.heap.threads.get_mut(co).ex);
        std::mem::swap(&mut self.ex, &mut self.heap.threads.get_mut(prev).ex);
        self.ex.stack.unpark(self.stack_epoch);
        self.heap.bytes = self.heap.bytes.saturating_sub(self.ex.logical_bytes());
        self.running = prev;
        self.heap.threads.get_mut(prev).status = CoStatus::Running;
        let th = self.heap.threads.get_mut(co);
        th.status = CoStatus::Dead;
        th.error = Value::Nil;
        err
    }
}

fn check_co(st: &mut State, i: usize) -> Result<ThreadRef, Error> {
    match st.arg(i) {
        Value::Thread(t) => Ok(t),
        _ => Err(st.arg_type_error(i, "thread")),
    }
}

fn create(st: &mut State) -> R {
    let f = st.arg(1);
    if !f.is_function() {
        return Err(st.arg_type_error(1, "function"));
    }
    let t = st.new_thread(f);
    st.push(Value::Thread(t));
    Ok(Action::Return(1))
}

fn resume(st: &mut State) -> R {
    let co = check_co(st, 1)?;
    let nargs = st.nargs() - 1;
    Ok(Action::Resume(ResumeRequest { co, nargs, lead: true }))
}

fn yield_(st: &mut State) -> R {
    Ok(Action::Yield { nvalues: st.nargs(), k: None })
}

fn status(st: &mut State) -> R {
    let co = check_co(st, 1)?;
    let s = st.thread_status(co).name();
    let v = st.new_string(s.as_bytes());
    st.push(v);
    Ok(Action::Return(1))
}

fn wrap(st: &mut State) -> R {
    let f = st.arg(1);
    if !f.is_function() {
        return Err(st.arg_type_error(1, "function"));
    }
    let t = st.new_thread(f);
    let id = st.native_id("coroutine.wrap_function", auxwrap);
    let w = st.new_rust_closure(id, vec![Value::Thread(t)]);
    st.push(w);
    Ok(Action::Return(1))
}

fn auxwrap(st: &mut State) -> R {
    let Value::Thread(co) = st.native_upvalue(0) else {
        return Err(st.native_error("invalid wrap"));
    };
    Ok(Action::Resume(ResumeRequest { co, nargs: st.nargs(), lead: false }))
}

fn isyieldable(st: &mut State) -> R {
    let r = if st.arg_is_none(1) {
        st.running != st.main_thread && st.ex.nny == 0
    } else {
        let co = check_co(st, 1)?;
        if co == st.running {
            co != st.main_thread && st.ex.nny == 0
        } else {
            !st.heap.threads.get(co).is_main && st.heap.threads.get(co).ex.nny == 0
        }
    };
    st.push(Value::Bool(r));
    Ok(Action::Return(1))
}

fn running(st: &mut State) -> R {
    let r = st.running;
    st.push(Value::Thread(r));
    st.push(Value::Bool(r == st.main_thread));
    Ok(Action::Return(2))
}

fn close(st: &mut State) -> R {
    let co = check_co(st, 1)?;
    match st.thread_status(co) {
        CoStatus::Suspended | CoStatus::Dead => match st.close_thread(co) {
            None => {
                st.push(Value::Bool(true));
                Ok(Action::Return(1))
            }
            Some(e) => {
                st.push(Value::Bool(false));
                st.push(e);
                Ok(Action::Return(2))
            }
        },
        CoStatus::Running => Err(st.native_error("cannot close a running coroutine")),
        CoStatus::Normal => Err(st.native_error("cannot close a normal coroutine")),
    }
}
