//! Coroutine switches inside the dispatch loop.
//!
//! A nested resume ([`State::resume`], `corolib.rs`) runs the coroutine in
//! a new activation of the loop, one level deeper on the Rust stack, and
//! comes back when it yields or ends. In a chain of generators, where each
//! coroutine resumes the next (a sieve of filters, a pipeline), every link
//! added a loop activation, a `run_with`, a resume and the native's frames:
//! about 2 KB of Rust stack a link, so that a chain of 50 went through
//! twice as many cache lines as lua5.4 on every value it passed along
//! (RESULTS part 37). Lua 5.4 nests on the C stack too, less deeply.
//!
//! So when the loop itself calls `coroutine.resume` or a function of
//! `coroutine.wrap` (a CALL, TAILCALL or TFORCALL; no hook), the switch
//! happens in place: the native returns [`Action::Resume`], the states
//! move as in a nested resume ([`State::switch_in`]), the coroutine's
//! frame is readied (its body pushed, or its plain yield returned from),
//! and the loop goes on at `'newframe` with the coroutine's top frame
//! ([`Pre::Switch`]). A [`LoopResume`] keeps what the nested resume keeps
//! in its locals. The loop activation that switched ends the resume: when
//! the coroutine yields or its body returns (`execute` sees the loop stop
//! while one of its own resumes is open), or when an error finds no
//! protected frame in it (`run_with_at`). Then the states move back
//! ([`State::finish_resume`]) and the native's frame, still on top of the
//! resumer's frames, returns the outcome as the nested path would
//! ([`State::resume_outcome`]); a wrap's error goes on in the resumer.
//!
//! Whatever the loop does not know to continue (a coroutine not yet
//! started whose body is not a Lua function, one stopped anywhere but at a
//! plain `coroutine.yield`, a refused resume, a hook) takes the nested
//! path, as does every resume asked from Rust or through `pcall`.
//!
//! **Invariants.** Which resumes an activation owns is a matter of depth:
//! a loop activation (`execute`, `run_with_at`) notes the length of
//! `loop_resumes` when it starts (`mine`); the entries above are its own,
//! since a nested activation ends its own before it returns, and while one
//! is open the running thread is the last entry's coroutine, whose frames
//! run with stop depth 0. Everything else is as in a nested resume: the
//! same statuses, moves, byte counts and C-call counts (`ccount.rs`: the
//! count goes up by one and comes back), so the heap, its hash and every
//! observable answer are the same either way; only the Rust stack differs.
//! An open entry makes the state busy (`schema.rs`: scratch), as the
//! nested resume's Rust frames do.

use crate::call::Pre;
use crate::error::Error;
use crate::state::{Action, ResumeRequest, State};
use crate::thread::CoStatus;
use crate::value::{ThreadRef, Value};

/// A resume the loop carries out in place, open until the coroutine
/// yields or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopResume {
    /// The coroutine.
    co: ThreadRef,
    /// Its resumer.
    prev: ThreadRef,
    /// The C-call counts to restore ([`State::enter_resume`]).
    saved: (u32, u32, u32),
    /// As `coroutine.resume` (see [`ResumeRequest`]).
    lead: bool,
    /// The resumer ran in the same activation of the loop function, with
    /// stop depth 0, so that the loop can go on with it when the resume
    /// ends ([`State::resumer_in_place`]).
    in_place: bool,
}

impl crate::schema::ScratchField for Vec<LoopResume> {
    fn at_rest(&self) -> bool {
        self.is_empty()
    }
}

impl State {
    /// [`Action::Resume`] of the native frame on top, called by the loop
    /// (`OP`: a CALL, TAILCALL or TFORCALL) or not: in place when it can
    /// ([`Pre::Switch`]), else nested.
    #[inline(never)]
    pub(crate) fn resume_action<const OP: bool>(&mut self, q: ResumeRequest) -> Result<Pre, Error> {
        if OP && self.switch_in_loop(q)? {
            return Ok(Pre::Switch);
        }
        let act = self.resume_nested(q)?;
        self.native_action(act)
    }

    /// Whether suspended coroutine `co` can continue in the loop: started
    /// and stopped at a plain yield, or not started and its body a Lua
    /// function.
    fn continues_in_loop(&self, co: ThreadRef) -> bool {
        let th = self.heap.threads.get(co);
        if th.started {
            Self::plain_yield(&th.ex, false)
        } else {
            matches!(th.ex.stack.first(), Some(Value::LuaFn(_)))
        }
    }

    /// Starts resume `q` in place, if nothing needs the nested path: the
    /// states switch, and the coroutine's top frame is ready to run. An
    /// error after the switch is the coroutine's (its caller, the loop,
    /// hands it to `run_with_at`, which ends the resume with it).
    fn switch_in_loop(&mut self, q: ResumeRequest) -> Result<bool, Error> {
        if self.hooks.any || self.resume_refusal(q.co).is_some() || !self.continues_in_loop(q.co) {
            return Ok(false);
        }
        let (prev, started) = self.switch_in(q.co, q.nargs);
        let saved = self.enter_resume();
        self.loop_resumes.push(LoopResume { co: q.co, prev, saved, lead: q.lead, in_place: false });
        if started {
            let plain = self.continue_plain_yield(q.nargs);
            debug_assert!(plain, "checked by continues_in_loop");
            return Ok(true);
        }
        // A Lua body (`continues_in_loop`): its frame, nothing run yet.
        self.start_body()?;
        Ok(true)
    }

    /// The stop depth of a loop activation whose own is `outer` and whose
    /// resumes are those of `loop_resumes` above `mine` (`coswitch.rs`):
    /// 0 while one is open, the running coroutine's whole stack being
    /// its.
    #[inline(always)]
    pub(crate) fn loop_stop(&self, outer: usize, mine: usize) -> usize {
        if self.loop_resumes.len() > mine {
            0
        } else {
            outer
        }
    }

    /// Whether a yield of the running thread, at a call instruction of the
    /// innermost loop activation, ends a resume that activation made in
    /// place: the last entry of `loop_resumes` is the running thread's.
    /// An entry of an outer activation cannot be: a coroutine that a
    /// nested activation runs (`call_value`, which makes it
    /// non-yieldable) never yields there, and a coroutine resumed nested
    /// has no entry (one resume at a time).
    #[inline(always)]
    pub(crate) fn yields_in_place(&self) -> bool {
        self.loop_resumes.last().is_some_and(|r| r.co == self.running)
    }

    /// After a switch in the loop function running with stop depth
    /// `stop`: whether the coroutine can run there (`stop` is 0, as its
    /// own), in which case the resume notes that its resumer ran in
    /// place, so that [`State::end_in_loop`] tells the loop it can go on
    /// with the resumer.
    #[inline(always)]
    pub(crate) fn resumer_in_place(&mut self, stop: usize) -> bool {
        stop == 0 && self.note_in_place()
    }

    /// [`State::resumer_in_place`]'s note, out of the loop's code.
    #[inline(never)]
    fn note_in_place(&mut self) -> bool {
        if let Some(rec) = self.loop_resumes.last_mut() {
            rec.in_place = true;
        }
        true
    }

    /// Ends the innermost open resume of the loop with the coroutine's
    /// outcome: `Ok(Exit::Yield)`, `Ok(Exit::Return)` or the error no
    /// frame of it caught. The resumer runs again, the native's frame on
    /// top having returned; an error returned is the resumer's to handle
    /// (a wrap's, or a limit error going on). Returns whether the
    /// resumer ran in place ([`State::resumer_in_place`]).
    pub(crate) fn end_in_loop(
        &mut self,
        r: Result<crate::call::Exit, Error>,
    ) -> Result<bool, Error> {
        let Some(rec) = self.loop_resumes.pop() else {
            return r.map(|_| false);
        };
        let out = self.end_resume(rec.co, rec.prev, rec.saved, r, rec.lead)?;
        debug_assert!(self.heap.threads.get(rec.co).status != CoStatus::Running);
        match out {
            // The values (after a `true` for `coroutine.resume`), returned
            // by the native as the loop's call of it returns them.
            Ok(n) if !self.hooks.any => {
                let Some(ci) = self.ex.frames.last() else { return Ok(false) };
                let (func, nresults) = (crate::thread::u(ci.func), ci.nresults);
                self.native_return_op(func, n + usize::from(rec.lead), nresults);
                Ok(rec.in_place)
            }
            out => {
                let act: Action = self.resume_outcome(rec.co, rec.lead, out)?;
                self.native_action(act)?;
                Ok(rec.in_place)
            }
        }
    }
}

#[cfg(test)]
impl LoopResume {
    /// An entry for the schema's tests (a busy state).
    pub(crate) fn for_test(co: ThreadRef) -> LoopResume {
        LoopResume { co, prev: co, saved: (0, 0, 0), lead: false, in_place: false }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::state::{Action, State};
    use crate::value::Value;

    /// `probe()`: how many resumes the loop holds in place.
    fn probe(st: &mut State) -> Result<Action, Error> {
        let n = st.loop_resumes.len() as i64;
        st.push(Value::Int(n));
        Ok(Action::Return(1))
    }

    /// A sieve of `coroutine.wrap` filters; the generator at the chain's
    /// end notes `probe()` for each number. Returns the primes below 60,
    /// the deepest reading, and a table of garbage made along the way.
    const SIEVE: &str = r#"
        local deepest, junk = 0, {}
        -- A link of the chain: the numbers from 2 to 60 without `p`, else
        -- those of `g` that `p` does not divide.
        local function link(p, g)
          return coroutine.wrap(function()
            if p == nil then
              for i = 2, 60 do
                deepest = math.max(deepest, probe())
                junk[#junk + 1] = { i, tostring(i) }
                coroutine.yield(i)
              end
            else
              for n in g do
                if n % p ~= 0 then coroutine.yield(n) end
              end
            end
          end)
        end
        local primes, x = {}, link(nil)
        for n in function() return x() end do
          primes[#primes + 1] = n
          x = link(n, x)
        end
        local late = coroutine.wrap(function() coroutine.yield(); error("late") end)
        late()
        local ok, e = pcall(late)
        local c = coroutine.create(function(a) return a, coroutine.yield(a + 1) end)
        local r = { coroutine.resume(c, 1) }
        local r2 = { coroutine.resume(c, 9) }
        local s = tostring(primes[1])
        for i = 2, #primes do s = s .. " " .. primes[i] end
        return s, deepest, #junk, ok, e, r[2], r2[2], r2[3]
    "#;

    fn state() -> State {
        let mut st = State::new();
        let p = st.register_native("probe", probe);
        st.set_global("probe", p);
        // Math is not opened by `State::new`: what the script needs of it.
        st.exec(b"math = { max = function(a, b) return a > b and a or b end }", b"=m").unwrap();
        st
    }

    fn texts(st: &mut State, vs: &[Value]) -> Vec<String> {
        vs.iter().map(|&v| String::from_utf8_lossy(&st.tostring(v)).into_owned()).collect()
    }

    #[test]
    fn a_chain_of_generators_runs_in_one_loop_activation() {
        let mut st = state();
        let r = st.exec(SIEVE.as_bytes(), b"=sieve").unwrap_or_else(|e| panic!("{e}"));
        let r = texts(&mut st, &r);
        assert_eq!(r[0], "2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 53 59");
        // The generator under the 17 filters of the primes below 60, for
        // 60: 18 resumes held in place.
        assert_eq!(r[1], "18", "the chain's resumes were not made in place");
        assert_eq!(&r[3..], ["false", "sieve:25: late", "2", "1", "9"]);
        assert!(st.loop_resumes.is_empty() && st.busy_scratch().is_none());
    }

    #[test]
    fn in_place_and_nested_resumes_leave_the_same_state() {
        let mut a = state();
        let mut b = state();
        // A count hook on a thread that never runs: every resume of `b`
        // takes the nested path, and no hook is ever called.
        let idle_a = a.new_thread(Value::Nil);
        let idle_b = b.new_thread(Value::Nil);
        let pins = (a.pin(Value::Thread(idle_a)), b.pin(Value::Thread(idle_b)));
        fn never(_: &mut State, _: crate::debug::HookEvent, _: Option<u32>) -> Result<(), Error> {
            panic!("the idle thread's hook ran")
        }
        b.set_hook(idle_b, Some(never), crate::debug::hookmask::COUNT, 1);
        let ra = a.exec(SIEVE.as_bytes(), b"=sieve").unwrap_or_else(|e| panic!("{e}"));
        let rb = b.exec(SIEVE.as_bytes(), b"=sieve").unwrap_or_else(|e| panic!("{e}"));
        b.set_hook(idle_b, None, 0, 0);
        let (ta, tb) = (texts(&mut a, &ra), texts(&mut b, &rb));
        assert_eq!(ta[1], "18");
        assert_eq!(tb[1], "0", "the hook did not force the nested path");
        assert_eq!(ta[0], tb[0]);
        assert_eq!(ta[2..], tb[2..]);
        drop((ra, rb));
        a.unpin(pins.0);
        b.unpin(pins.1);
        a.collect_garbage();
        b.collect_garbage();
        assert_eq!(a.heap_hash(), b.heap_hash());
        assert_eq!(a.state_hash(), b.state_hash());
    }
}
