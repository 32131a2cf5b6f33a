//! The C-call count: `ldo.c`'s `nCcalls` and its `LUAI_MAXCCALLS` limit.
//!
//! The reference counts the calls nested on its C stack and fails with
//! `C stack overflow` when the count reaches [`MAX_CCALLS`] (200). Plain
//! Lua-to-Lua calls are not counted (the stack size limits them), nor is a
//! Lua call of a C function; what counts is every call made *from C*:
//!
//! * `luaD_call`/`luaD_callnoyield` (`ccall`), one level for the whole call:
//!   a C function's `lua_call` or `lua_pcall` (`pcall`, `xpcall`,
//!   `table.sort`'s comparator, `string.gsub`'s function...), a metamethod
//!   (`luaT_callTMres`, `luaT_callTM`), a `__close`, a finalizer, a message
//!   handler, the generic `for`'s iterator;
//! * `lua_resume`, which sets the coroutine's count to its resumer's plus
//!   one (whatever the coroutine held before it last yielded), and starts
//!   a coroutine body with `ccall`'s test but no increment;
//! * the host: `lua.c` runs a script two levels deep (`pmain` under one
//!   `lua_pcall`, the chunk under another).
//!
//! `ccall` increments, then tests: a count of exactly 200 raises `C stack
//! overflow` (a runtime error at the calling instruction); above it, while
//! that error is being handled, calls go on up to 220, where the error
//! becomes `error in error handling`. An error restores the count saved by
//! the protected call that catches it, or, in a coroutine with no C
//! boundary since its resume, the resume's.
//!
//! Here many of those calls are frames of the dispatch loop, not Rust
//! recursion, so the count is kept in two parts. Rust-level nesting
//! ([`State::call_value`], `resume`) increments `n_ccalls` around the Rust
//! call. A frame of the loop *holds* a level when the reference would have
//! reached it through `ccall`: a metamethod frame (its `ret` is not an
//! ordinary call) or a frame whose caller is a native (a native's call
//! request, [`crate::state::Action::Call`], as `pcall` makes), unless the
//! frame was entered from Rust (`FRESH`: the Rust nesting counted it).
//! Which frames hold is a function of the frames ([`holds_ccall`]), so no
//! frame carries a flag: `n_ccalls` is incremented when such a frame is
//! pushed ([`State::enter_frame_ccall`]) and decremented when it pops
//! ([`State::release_top_ccall`]) or an error unwinds it
//! ([`State::unwind_frames`]). A tail call keeps the frame's `ret` and
//! caller, hence its level, as the reference's `luaD_pretailcall` does.
//!
//! A resume leaves the frames the coroutine already had (those pending
//! since it yielded) holding nothing, since the reference resets the
//! count: `ccall_mark` is the index below which the running thread's
//! frames are such leftovers. Their pops release nothing; a frame pushed
//! at or below the mark lowers it, its index being free by then.
//!
//! **Not modeled:** the generic `for` calls its Lua iterators as ordinary
//! frames (RETURN's fast path pops them), so an iterator does not hold a
//! level; a recursion that goes through the iterator *call* itself (not
//! the loop's body) is limited by the stack size instead. The parser's
//! levels start at the compiler's fixed `BASE_LEVEL`, not at the count of
//! the calling `load`.

use crate::error::Error;
use crate::state::{State, MAX_CCALLS};
use crate::thread::{cist, CallInfo, Callee, MetaRet};

/// Count at which an error while handling a `C stack overflow` becomes
/// `error in error handling` (`LUAI_MAXCCALLS / 10 * 11`).
pub(crate) const MAX_CCALLS_ERRERR: u32 = MAX_CCALLS / 10 * 11;

/// Whether frame `ci`, called by `caller` (`None`: the thread's first
/// frame), holds a C-call level (see the module docs).
#[inline(always)]
fn holds(ci: &CallInfo, caller: Option<&CallInfo>) -> bool {
    ci.status & cist::FRESH == 0
        && match caller {
            None => false,
            Some(c) => !matches!(ci.ret, MetaRet::Call) || matches!(c.callee, Callee::Rust(_)),
        }
}

/// [`holds`] for frame `i` of `frames`.
#[inline(always)]
fn holds_ccall(frames: &[CallInfo], i: usize) -> bool {
    holds(&frames[i], i.checked_sub(1).map(|j| &frames[j]))
}

impl State {
    /// The count as `getCcalls` reads it.
    #[inline]
    pub(crate) fn c_level(&self) -> u32 {
        self.n_ccalls + self.host_ccalls
    }

    /// `ccall`'s increment and test (`luaE_checkcstack`): on an error, the
    /// count is back as it was.
    #[inline(always)]
    pub(crate) fn enter_ccall(&mut self) -> Result<(), Error> {
        self.test_ccall()?;
        self.n_ccalls += 1;
        Ok(())
    }

    /// `ccall`'s test for the count it is about to take (one more than
    /// now), without taking it.
    #[inline(always)]
    pub(crate) fn test_ccall(&mut self) -> Result<(), Error> {
        if self.c_level() + 1 >= MAX_CCALLS {
            return self.check_cstack();
        }
        Ok(())
    }

    /// `luaE_checkcstack` for a count of one more than now, at least 200.
    #[cold]
    #[inline(never)]
    fn check_cstack(&mut self) -> Result<(), Error> {
        self.check_cstack_at(self.c_level() + 1)
    }

    /// `luaE_checkcstack` for count `n`: `C stack overflow` at exactly
    /// 200, `error in error handling` from 220, nothing in between (an
    /// overflow being handled) or below.
    pub(crate) fn check_cstack_at(&mut self, n: u32) -> Result<(), Error> {
        if n == MAX_CCALLS {
            return Err(self.rt_error("C stack overflow"));
        }
        if n >= MAX_CCALLS_ERRERR {
            return Err(self.error_string(b"error in error handling"));
        }
        Ok(())
    }

    /// [`State::test_ccall`] for a holding frame about to be pushed at
    /// index `frames.len()` (see the module docs on the mark); the caller
    /// takes the level (`n_ccalls += 1`) when it pushes the frame, or
    /// before a native that may run at once ([`State::abort_frame_ccall`]
    /// then gives it back if the start fails).
    #[inline(always)]
    pub(crate) fn test_frame_ccall(&mut self) -> Result<(), Error> {
        let i = self.ex.frames.len() as u32;
        if i < self.ccall_mark {
            self.ccall_mark = i;
        }
        self.test_ccall()
    }

    /// [`State::test_frame_ccall`] and the level taken at once.
    #[inline(always)]
    pub(crate) fn enter_frame_ccall(&mut self) -> Result<(), Error> {
        self.test_frame_ccall()?;
        self.n_ccalls += 1;
        Ok(())
    }

    /// After a failed start of a holding frame that [`State::enter_frame_ccall`]
    /// counted: gives the level back unless the frame (index `i`) was
    /// pushed, in which case it holds it until it is unwound.
    #[cold]
    pub(crate) fn abort_frame_ccall(&mut self, i: usize) {
        if self.ex.frames.len() <= i {
            self.n_ccalls -= 1;
        }
    }

    /// [`State::release_top_ccall`] of a metamethod frame, index `i` (not
    /// `FRESH`, `ret` not an ordinary call: it holds a level unless it is
    /// a leftover).
    #[inline(always)]
    pub(crate) fn release_meta_ccall(&mut self, i: usize) {
        debug_assert!(holds_ccall(&self.ex.frames, i));
        if i as u32 >= self.ccall_mark {
            self.n_ccalls -= 1;
        }
    }

    /// Before the top frame pops: gives back the level it holds, if any
    /// (the test of [`holds_ccall`], on the frame where it is).
    #[inline(always)]
    pub(crate) fn release_top_ccall(&mut self) {
        let i = self.ex.frames.len() - 1;
        if i as u32 >= self.ccall_mark && holds_ccall(&self.ex.frames, i) {
            self.n_ccalls -= 1;
        }
    }

    /// Drops the frames from index `k` up (an error unwinding them),
    /// releasing the levels they hold.
    pub(crate) fn unwind_frames(&mut self, k: usize) {
        for i in (k.max(self.ccall_mark as usize)..self.ex.frames.len()).rev() {
            if holds_ccall(&self.ex.frames, i) {
                self.n_ccalls -= 1;
            }
        }
        self.ex.frames.truncate(k);
    }

    /// An error caught by the protected frame on top: in a coroutine with
    /// no C boundary since its resume, the reference's count is back at
    /// the resume's (its `luaD_rawrunprotected`), and the frames left hold
    /// nothing; elsewhere the catching `lua_pcall` restored its own, which
    /// [`State::unwind_frames`] already gave.
    pub(crate) fn caught_ccall(&mut self) {
        if self.running != self.main_thread && self.ex.nny == 0 {
            self.n_ccalls = self.ccall_base;
            self.ccall_mark = self.ex.frames.len() as u32;
        }
    }

    /// Declares that the host runs the state's entry points ([`State::call`]
    /// and the like) under `n` C calls of its own, which count toward the
    /// 200 nested C calls as the reference's do: `lua.c` runs its scripts
    /// under one (`pmain`, called by `lua_pcall`), so the `luprex-lua`
    /// interpreter declares 1, and a chunk it runs starts, as there, with
    /// 2 (the call of the chunk being the second).
    pub fn set_host_c_calls(&mut self, n: u32) {
        self.host_ccalls = n.min(MAX_CCALLS - 1);
    }
}
