//! `table.sort`: `ltablib.c`'s quicksort.
//!
//! `table.sort` is `ltablib.c`'s quicksort, step for step: the same
//! median-of-three, the same partition loop, the same comparisons in the
//! same order, the same recursion into the smaller half, the same
//! `invalid order function for sorting` checks (raised exactly where C
//! raises them, and a bad comparator can never make it loop forever or
//! index outside `[lo - 1, up]`). The one difference: C re-randomizes the
//! pivot choice from the clock when a partition is badly unbalanced; we
//! use a deterministic value derived from the interval bounds instead.
//! Results are therefore identical to lua5.4 whenever lua5.4 itself does
//! not randomize, and always reproducible.
//!
//! There are two drivers of the same algorithm.
//!
//! **The direct driver** (`auxsort`, `partition`) is C's code as C writes
//! it: a loop and a recursion into the smaller half, values in Rust
//! locals. Without a comparator, `lua_compare(a, b, LT)` is answered
//! inline for two numbers or two strings and by `less_value` otherwise
//! (`__lt` metamethods run as nested calls, as in C); with one, the
//! comparator is a nested call (`call_value1`, C's `lua_call`). It runs
//! whenever nothing could yield: no comparator, or code that is not
//! yieldable (`State::is_yieldable`: the main thread, or below a nested
//! call), where a yield in the comparator is the same error either way.
//! Rust may hold a handle only until Lua code runs (ARCHITECTURE.md):
//! before a comparator or a metamethod may run (`__lt`, `__index`,
//! `__newindex`), the values the driver still needs are written into the
//! window (`root`), as C keeps them on its stack. The differential cases
//! `lib_sort_nocomp` and `lib_sort_drivers` collect garbage inside those
//! calls while the sort holds values nothing else references.
//!
//! **In a coroutine, with a comparator function,** the algorithm is a
//! state machine (`Sorter`) that stops at every comparison: the driver
//! returns [`Action::Call`] and resumes in a continuation, so the
//! comparator runs as an ordinary frame of the interpreter loop and **a
//! coroutine can yield inside it** (C Lua cannot). Between comparisons
//! everything lives in the native's stack window, as plain Lua values (so
//! a snapshot of a coroutine suspended inside a comparator captures the
//! sort); a comparison costs a few slot writes, not a copy of the machine:
//!
//! | slot | content |
//! |---|---|
//! | 1 | the table |
//! | 2 | the comparator (or nil) |
//! | 3 | the pivot `P` |
//! | 4, 5 | the two elements held by the current step (`a[i]`, `a[j]`, ...) |
//! | 6-9 | the machine's registers: phase, `p`, `i`, `j` |
//! | 10.. | `(lo, up, rnd)` per `auxsort` activation, the running one last |
//!
//! The direct driver uses slot 3 for its pivot and slots 4-7 for the
//! values it roots. Both make the same reads, writes and comparisons in
//! the same order; the differential cases `lib_table_sort`,
//! `lib_sort_nocomp` and `lib_sort_drivers` compare them with lua5.4 and
//! with each other, call by call. Sorting 1,000 integers costs about
//! 0.55× lua5.4's instructions without a comparator (the machine took
//! 2.05×) and 1.3× with one (the machine: 2.0×; benches/RESULTS.md).
//!
//! # Invariants
//!
//! * Indices stay within `[lo - 1, up]` of the interval being sorted; all
//!   index arithmetic is on `i64` in a range bounded by `n < INT_MAX`.
//! * Each comparison that returns consumes one step; the machine never
//!   re-reads a result, so a comparator with side effects sees exactly the
//!   calls C would make.

use super::{aux_getn, geti, seti, INT_MAX, R, TAB_RW};
use luprex_vm::raw::{Action, Error, State, Status, Value};

/// Slots of the sort window (see the module docs).
const SLOT_PIVOT: usize = 3;
const SLOT_A: usize = 4;
const SLOT_B: usize = 5;
const SLOT_MACHINE: usize = 6;
const SLOT_FRAMES: usize = SLOT_MACHINE + 4;

/// Intervals at least this long may use a "randomized" pivot (`RANLIMIT`).
const RANLIMIT: i64 = 100;

/// Where the machine stopped: the comparison whose result it awaits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// At the top of a frame's loop (no comparison pending).
    Start = 0,
    /// `a[up] < a[lo]`?
    LoUp,
    /// `a[p] < a[lo]`?
    PLo,
    /// `a[up] < a[p]`?
    UpP,
    /// `a[i] < P`? (partition, upward scan)
    ScanI,
    /// `P < a[j]`? (partition, downward scan)
    ScanJ,
}

impl Phase {
    fn from_i64(n: i64) -> Phase {
        match n {
            1 => Phase::LoUp,
            2 => Phase::PLo,
            3 => Phase::UpP,
            4 => Phase::ScanI,
            5 => Phase::ScanJ,
            _ => Phase::Start,
        }
    }
}

/// One activation of `auxsort` (the interval still to sort and its pivot
/// randomization value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frame {
    lo: i64,
    up: i64,
    rnd: i64,
}

/// The quicksort of `ltablib.c` as a resumable machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sorter {
    phase: Phase,
    p: i64,
    i: i64,
    j: i64,
    /// Number of `auxsort` activations, kept in the stack window from
    /// slot [`SLOT_FRAMES`] on (three integers each); the last is running.
    depth: usize,
}

/// What the machine needs next.
enum Next {
    /// The result of `a < b`.
    Less(Value, Value),
    /// Nothing: the array is sorted.
    Done,
}

impl Sorter {
    /// A machine sorting `[1, n]`; the window must end at slot
    /// `SLOT_FRAMES - 1`.
    fn new(st: &mut State, n: i64) -> Sorter {
        let mut s = Sorter { phase: Phase::Start, p: 0, i: 0, j: 0, depth: 0 };
        s.push_frame(st, Frame { lo: 1, up: n, rnd: 0 });
        s
    }

    /// First slot of frame `k`.
    fn frame_slot(k: usize) -> usize {
        SLOT_FRAMES + 3 * k
    }

    /// The running activation, if any.
    fn top(&self, st: &State) -> Option<Frame> {
        let k = Self::frame_slot(self.depth.checked_sub(1)?);
        Some(Frame { lo: int_at(st, k), up: int_at(st, k + 1), rnd: int_at(st, k + 2) })
    }

    /// Replaces the running activation.
    fn set_top_frame(&self, st: &mut State, fr: Frame) {
        if let Some(d) = self.depth.checked_sub(1) {
            let k = Self::frame_slot(d);
            st.set_arg(k, Value::Int(fr.lo));
            st.set_arg(k + 1, Value::Int(fr.up));
            st.set_arg(k + 2, Value::Int(fr.rnd));
        }
    }

    /// Starts a new activation (the window ends with the running one).
    fn push_frame(&mut self, st: &mut State, fr: Frame) {
        for v in [fr.lo, fr.up, fr.rnd] {
            st.push(Value::Int(v));
        }
        self.depth += 1;
    }

    /// Feeds the result of the pending comparison (ignored in
    /// [`Phase::Start`]) and runs to the next comparison.
    fn step(&mut self, st: &mut State, res: bool) -> Result<Next, Error> {
        let t = st.arg(1);
        let mut res = res;
        while let Some(fr) = self.top(st) {
            let next = match self.phase {
                Phase::Start => self.start(st, t, fr)?,
                Phase::LoUp => self.after_lo_up(st, t, fr, res)?,
                Phase::PLo => self.after_p_lo(st, t, fr, res)?,
                Phase::UpP => self.after_up_p(st, t, fr, res)?,
                Phase::ScanI => Some(self.after_scan_i(st, t, fr, res)?),
                Phase::ScanJ => self.after_scan_j(st, t, fr, res)?,
            };
            if let Some(next) = next {
                return Ok(next);
            }
            res = false;
        }
        Ok(Next::Done)
    }

    /// Top of `auxsort`'s loop: ask `a[up] < a[lo]`.
    fn start(&mut self, st: &mut State, t: Value, fr: Frame) -> Result<Option<Next>, Error> {
        if fr.lo >= fr.up {
            self.end_frame(st);
            return Ok(None);
        }
        let a = geti(st, t, fr.lo)?;
        let b = geti(st, t, fr.up)?;
        Ok(Some(self.ask(st, Phase::LoUp, a, b, b, a)))
    }

    /// Swaps `a[lo]` and `a[up]` if needed; then ask `a[p] < a[lo]`.
    fn after_lo_up(
        &mut self,
        st: &mut State,
        t: Value,
        fr: Frame,
        res: bool,
    ) -> Result<Option<Next>, Error> {
        let Frame { lo, up, rnd } = fr;
        if res {
            let (a, b) = (st.arg(SLOT_A), st.arg(SLOT_B));
            seti(st, t, lo, b)?;
            seti(st, t, up, a)?;
        }
        if up - lo == 1 {
            self.end_frame(st);
            return Ok(None);
        }
        self.p =
            if up - lo < RANLIMIT || rnd == 0 { (lo + up) / 2 } else { choose_pivot(lo, up, rnd) };
        let vp = geti(st, t, self.p)?;
        let vlo = geti(st, t, lo)?;
        Ok(Some(self.ask(st, Phase::PLo, vp, vlo, vp, vlo)))
    }

    /// Swaps `a[p]` and `a[lo]` if needed, else ask `a[up] < a[p]`.
    fn after_p_lo(
        &mut self,
        st: &mut State,
        t: Value,
        fr: Frame,
        res: bool,
    ) -> Result<Option<Next>, Error> {
        let (vp, vlo) = (st.arg(SLOT_A), st.arg(SLOT_B));
        if !res {
            let vup = geti(st, t, fr.up)?;
            return Ok(Some(self.ask(st, Phase::UpP, vp, vup, vup, vp)));
        }
        seti(st, t, self.p, vlo)?;
        seti(st, t, fr.lo, vp)?;
        self.after_median(st, t)
    }

    /// Swaps `a[p]` and `a[up]` if needed.
    fn after_up_p(
        &mut self,
        st: &mut State,
        t: Value,
        fr: Frame,
        res: bool,
    ) -> Result<Option<Next>, Error> {
        if res {
            let (vp, vup) = (st.arg(SLOT_A), st.arg(SLOT_B));
            seti(st, t, self.p, vup)?;
            seti(st, t, fr.up, vp)?;
        }
        self.after_median(st, t)
    }

    /// The upward scan: continue while `a[i] < P`, then scan downward.
    fn after_scan_i(
        &mut self,
        st: &mut State,
        t: Value,
        fr: Frame,
        res: bool,
    ) -> Result<Next, Error> {
        if !res {
            return self.scan_j(st, t);
        }
        if self.i == fr.up - 1 {
            return Err(st.native_error("invalid order function for sorting"));
        }
        self.scan_i(st, t)
    }

    /// The downward scan: continue while `P < a[j]`; then either the
    /// partition is done (recurse) or `a[i]`, `a[j]` are swapped.
    fn after_scan_j(
        &mut self,
        st: &mut State,
        t: Value,
        fr: Frame,
        res: bool,
    ) -> Result<Option<Next>, Error> {
        if res {
            if self.j < self.i {
                return Err(st.native_error("invalid order function for sorting"));
            }
            return self.scan_j(st, t).map(Some);
        }
        let (ai, aj) = (st.arg(SLOT_A), st.arg(SLOT_B));
        if self.j < self.i {
            let pv = st.arg(SLOT_PIVOT);
            seti(st, t, fr.up - 1, ai)?;
            seti(st, t, self.i, pv)?;
            self.recurse(st, self.i);
            return Ok(None);
        }
        seti(st, t, self.i, aj)?;
        seti(st, t, self.j, ai)?;
        self.scan_i(st, t).map(Some)
    }

    /// Stores the values for the next step, asks for `x < y`.
    fn ask(
        &mut self,
        st: &mut State,
        phase: Phase,
        a: Value,
        b: Value,
        x: Value,
        y: Value,
    ) -> Next {
        st.set_arg(SLOT_A, a);
        st.set_arg(SLOT_B, b);
        self.phase = phase;
        Next::Less(x, y)
    }

    /// After the median of three: stop for 3 elements, else move the pivot
    /// to `up - 1` and start the partition.
    fn after_median(&mut self, st: &mut State, t: Value) -> Result<Option<Next>, Error> {
        let Some(Frame { lo, up, .. }) = self.top(st) else { return Ok(None) };
        if up - lo == 2 {
            self.end_frame(st);
            return Ok(None);
        }
        let pv = geti(st, t, self.p)?;
        st.set_arg(SLOT_PIVOT, pv);
        let x = geti(st, t, up - 1)?;
        seti(st, t, self.p, x)?;
        seti(st, t, up - 1, pv)?;
        self.i = lo;
        self.j = up - 1;
        self.scan_i(st, t).map(Some)
    }

    /// `lua_geti(++i)` and ask `a[i] < P`.
    fn scan_i(&mut self, st: &mut State, t: Value) -> Result<Next, Error> {
        self.i += 1;
        let ai = geti(st, t, self.i)?;
        let pv = st.arg(SLOT_PIVOT);
        let b = st.arg(SLOT_B);
        Ok(self.ask(st, Phase::ScanI, ai, b, ai, pv))
    }

    /// `lua_geti(--j)` and ask `P < a[j]`.
    fn scan_j(&mut self, st: &mut State, t: Value) -> Result<Next, Error> {
        self.j -= 1;
        let aj = geti(st, t, self.j)?;
        let pv = st.arg(SLOT_PIVOT);
        let ai = st.arg(SLOT_A);
        Ok(self.ask(st, Phase::ScanJ, ai, aj, pv, aj))
    }

    /// The partition ended at `p`: recurse into the smaller half (pushed as
    /// a new frame), continue this frame with the larger one.
    fn recurse(&mut self, st: &mut State, p: i64) {
        self.phase = Phase::Start;
        let Some(mut fr) = self.top(st) else { return };
        let (lo, up, rnd) = (fr.lo, fr.up, fr.rnd);
        let (child, n) = if p - lo < up - p {
            fr.lo = p + 1;
            (Frame { lo, up: p - 1, rnd }, p - lo)
        } else {
            fr.up = p - 1;
            (Frame { lo: p + 1, up, rnd }, up - p)
        };
        if (fr.up - fr.lo) / 128 > n {
            fr.rnd = deterministic_rnd(fr.lo, fr.up);
        }
        self.set_top_frame(st, fr);
        self.push_frame(st, child);
    }

    /// Ends the running `auxsort` activation.
    fn end_frame(&mut self, st: &mut State) {
        self.depth = self.depth.saturating_sub(1);
        st.set_top(Self::frame_slot(self.depth) - 1);
        self.phase = Phase::Start;
    }

    /// Writes the machine's registers into slots 6-9 (the frames are
    /// already in the window).
    fn save(&self, st: &mut State) {
        for (k, v) in [self.phase as i64, self.p, self.i, self.j].into_iter().enumerate() {
            st.set_arg(SLOT_MACHINE + k, Value::Int(v));
        }
    }

    /// Reads the machine back (its frame count was kept as the
    /// continuation context).
    fn load(st: &State, depth: usize) -> Sorter {
        let s = SLOT_MACHINE;
        Sorter {
            phase: Phase::from_i64(int_at(st, s)),
            p: int_at(st, s + 1),
            i: int_at(st, s + 2),
            j: int_at(st, s + 3),
            depth,
        }
    }
}

/// The integer in slot `i` of the window (0 if it is not one).
fn int_at(st: &State, i: usize) -> i64 {
    match st.arg(i) {
        Value::Int(n) => n,
        _ => 0,
    }
}

/// `choosePivot`: a pivot in the middle half of `[lo, up]` picked by `rnd`.
fn choose_pivot(lo: i64, up: i64, rnd: i64) -> i64 {
    let r4 = (up - lo) / 4;
    (rnd as u64 % (r4 as u64 * 2).max(1)) as i64 + lo + r4
}

/// Replaces C's clock-based `l_randomizePivot`: a non-zero value that
/// depends only on the interval.
fn deterministic_rnd(lo: i64, up: i64) -> i64 {
    let h = (lo as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (up as u64).rotate_left(29);
    i64::from((h >> 33) as u32 | 1)
}

pub(super) fn sort(st: &mut State) -> R {
    let n = aux_getn(st, 1, TAB_RW)?;
    if n <= 1 {
        return Ok(Action::Return(0));
    }
    if n >= INT_MAX {
        return Err(st.arg_error(1, "array too big"));
    }
    let f = st.arg(2);
    if !f.is_nil() && !f.is_function() {
        return Err(st.arg_type_error(2, "function"));
    }
    st.set_top(SLOT_FRAMES - 1);
    if f.is_nil() || !st.is_yieldable() {
        auxsort(st, Sort { t: st.arg(1), cmp: f }, 1, n, 0)?;
        return Ok(Action::Return(0));
    }
    let sorter = Sorter::new(st, n);
    sort_next(st, sorter, false)
}

// ----- the direct driver ------------------------------------------------------

/// What the direct driver sorts: the table, and the comparator (nil for
/// `<`).
#[derive(Clone, Copy)]
struct Sort {
    t: Value,
    cmp: Value,
}

/// `auxsort` as C writes it: the same reads, writes and comparisons in the
/// same order as [`Sorter`]'s.
fn auxsort(st: &mut State, s: Sort, lo: i64, up: i64, rnd: i64) -> Result<(), Error> {
    let t = s.t;
    let (mut lo, mut up, mut rnd) = (lo, up, rnd);
    while lo < up {
        let a = get(st, t, lo, &[])?;
        let b = get(st, t, up, &[a])?;
        if less(st, s.cmp, b, a, &[a, b])? {
            set(st, t, lo, b, &[a])?;
            set(st, t, up, a, &[])?;
        }
        if up - lo == 1 {
            break;
        }
        let p =
            if up - lo < RANLIMIT || rnd == 0 { (lo + up) / 2 } else { choose_pivot(lo, up, rnd) };
        let vp = get(st, t, p, &[])?;
        let vlo = get(st, t, lo, &[vp])?;
        if less(st, s.cmp, vp, vlo, &[vp, vlo])? {
            set(st, t, p, vlo, &[vp])?;
            set(st, t, lo, vp, &[])?;
        } else {
            let vup = get(st, t, up, &[vp])?;
            if less(st, s.cmp, vup, vp, &[vp, vup])? {
                set(st, t, p, vup, &[vp])?;
                set(st, t, up, vp, &[])?;
            }
        }
        if up - lo == 2 {
            break;
        }
        let pv = get(st, t, p, &[])?;
        st.set_arg(SLOT_PIVOT, pv);
        let x = get(st, t, up - 1, &[])?;
        set(st, t, p, x, &[])?;
        set(st, t, up - 1, pv, &[])?;
        let p = partition(st, s, lo, up, pv)?;
        let n;
        if p - lo < up - p {
            auxsort(st, s, lo, p - 1, rnd)?;
            n = p - lo;
            lo = p + 1;
        } else {
            auxsort(st, s, p + 1, up, rnd)?;
            n = up - p;
            up = p - 1;
        }
        if (up - lo) / 128 > n {
            rnd = deterministic_rnd(lo, up);
        }
    }
    Ok(())
}

/// C's `partition` of `[lo, up]` around the pivot `pv` (kept in slot
/// [`SLOT_PIVOT`], and at `up - 1`): its final place.
fn partition(st: &mut State, s: Sort, lo: i64, up: i64, pv: Value) -> Result<i64, Error> {
    let t = s.t;
    let (mut i, mut j) = (lo, up - 1);
    loop {
        let ai = loop {
            i += 1;
            let ai = get(st, t, i, &[])?;
            if !less(st, s.cmp, ai, pv, &[ai])? {
                break ai;
            }
            if i == up - 1 {
                return Err(st.native_error("invalid order function for sorting"));
            }
        };
        let aj = loop {
            j -= 1;
            let aj = get(st, t, j, &[ai])?;
            if !less(st, s.cmp, pv, aj, &[ai, aj])? {
                break aj;
            }
            if j < i {
                return Err(st.native_error("invalid order function for sorting"));
            }
        };
        if j < i {
            set(st, t, up - 1, ai, &[])?;
            set(st, t, i, pv, &[])?;
            return Ok(i);
        }
        set(st, t, i, aj, &[ai])?;
        set(st, t, j, ai, &[])?;
    }
}

/// Puts the values the driver still holds into the window before Lua code
/// may run (a metamethod), so that the collector sees them.
fn root(st: &mut State, hold: &[Value]) {
    for (k, &v) in hold.iter().enumerate() {
        st.set_arg(SLOT_A + k, v);
    }
}

/// `lua_geti`, rooting `hold` before a metamethod may run. The value is
/// read back word by word where the fast and slow paths meet
/// ([`Value::copy_words`]): copied whole, it waited on the two stores
/// that had just written it (two fifths of `partition`'s time with a Lua
/// comparator).
#[inline(always)]
fn get(st: &mut State, t: Value, i: i64, hold: &[Value]) -> Result<Value, Error> {
    let v = get_paths(st, t, i, hold)?;
    Ok(v.copy_words())
}

/// [`get`]'s two paths.
#[inline(always)]
fn get_paths(st: &mut State, t: Value, i: i64, hold: &[Value]) -> Result<Value, Error> {
    if let Value::Table(h) = t {
        let tab = st.table(h);
        let v = tab.get_int(i);
        if !v.is_nil() || tab.meta.is_none() {
            return Ok(v);
        }
    }
    root(st, hold);
    geti(st, t, i)
}

/// `lua_seti`, rooting `hold` and `v` before a metamethod may run.
#[inline(always)]
fn set(st: &mut State, t: Value, i: i64, v: Value, hold: &[Value]) -> Result<(), Error> {
    if let Value::Table(h) = t {
        if st.set_int_in_array(h, i, v) {
            return Ok(());
        }
    }
    root(st, hold);
    st.set_arg(SLOT_A + hold.len(), v);
    seti(st, t, i, v)
}

/// `a < b` (`lua_lessthan`), charged one step; roots `hold` before an
/// `__lt` metamethod runs.
#[inline(always)]
fn less(st: &mut State, cmp: Value, a: Value, b: Value, hold: &[Value]) -> Result<bool, Error> {
    st.charge_work(1)?;
    if !cmp.is_nil() {
        root(st, hold);
        return Ok(st.call_value1(cmp, &[a, b])?.truthy());
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => return Ok(x < y),
        (Value::Float(x), Value::Float(y)) => return Ok(x < y),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_))
        | (Value::Str(_), Value::Str(_)) => {}
        _ => root(st, hold),
    }
    st.less_value(a, b, false)
}

/// Runs the machine with a comparator function: at the next comparison,
/// saves the machine and asks the VM to call the comparator.
fn sort_next(st: &mut State, mut sorter: Sorter, res: bool) -> R {
    match sorter.step(st, res)? {
        Next::Done => {
            st.set_top(0);
            Ok(Action::Return(0))
        }
        Next::Less(a, b) => {
            st.charge_work(1)?;
            sorter.save(st);
            let f = st.arg(2);
            st.push(f);
            st.push(a);
            st.push(b);
            let ctx = sorter.depth as i64;
            Ok(Action::Call { nargs: 2, nresults: 1, k: Some((sort_k, ctx)) })
        }
    }
}

/// Continuation after the comparator returned; `ctx` is the frame count.
pub(super) fn sort_k(st: &mut State, _status: Status, ctx: i64) -> R {
    let res = st.arg(st.nargs()).truthy();
    let depth = usize::try_from(ctx).unwrap_or(0);
    st.set_top(Sorter::frame_slot(depth) - 1);
    let sorter = Sorter::load(st, depth);
    sort_next(st, sorter, res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivot_in_middle_half() {
        for rnd in [1, 7, 12345, i64::from(u32::MAX)] {
            let p = choose_pivot(10, 210, rnd);
            assert!((60..=160).contains(&p), "{p}");
        }
        assert_ne!(deterministic_rnd(1, 1000), 0);
    }
}
