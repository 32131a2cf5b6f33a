//! The `table` library, a port of Lua 5.4.4's `ltablib.c`: `concat`,
//! `insert`, `move`, `pack`, `remove`, `sort`, `unpack`.
//!
//! # Design
//!
//! Element access goes through `geti` / `seti`, the equivalents of
//! `lua_geti` / `lua_seti`: a raw access when the table has no metatable,
//! otherwise the full `__index` / `__newindex` protocol (a nested call for
//! function metamethods, as in C). Lengths use `len_of` (`luaL_len`:
//! `__len`, whose result must be an integer). The first argument may also
//! be a non-table whose metatable has the needed metamethods (`check_tab`,
//! C's `checktab`).
//!
//! # Sorting
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
//! The algorithm is written as a state machine (`Sorter`) that stops at
//! every comparison and asks for its result. Without a comparator the
//! driver answers at once with `lua_compare(a, b, LT)` (`__lt` metamethods
//! run as nested calls). With a comparator function the driver returns
//! [`Action::Call`] and resumes in a continuation, so the comparator runs
//! as an ordinary frame of the interpreter loop and **a coroutine can yield
//! inside it** (C Lua cannot). Between comparisons everything lives in the
//! native's stack window, as plain Lua values (so a snapshot of a
//! coroutine suspended inside a comparator captures the sort); a
//! comparison costs a few slot writes, not a copy of the machine:
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
//! # Work
//!
//! Each element moved by `insert`/`remove`/`move`, read by `concat` or
//! `unpack`, packed by `pack`, and each comparison of `sort` charges one
//! instruction to the budget (`charge_work`), and `concat` also the bytes
//! it appends (one per 64), so a huge range stops at the instruction limit
//! or the interrupt flag instead of running for hours.
//!
//! # Invariants
//!
//! * Indices stay within `[lo - 1, up]` of the interval being sorted; all
//!   index arithmetic is on `i64` in a range bounded by `n < INT_MAX`.
//! * Each comparison that returns consumes one step; the machine never
//!   re-reads a result, so a comparator with side effects sees exactly the
//!   calls C would make.

use luprex_vm::raw::{Action, Error, NativeFn, State, Status, Value};

type R = Result<Action, Error>;

/// `checktab` needs: read (`__index`), write (`__newindex`), length.
const TAB_R: u8 = 1;
const TAB_W: u8 = 2;
const TAB_L: u8 = 4;
const TAB_RW: u8 = TAB_R | TAB_W;

/// `INT_MAX`, C's limit on array sizes in `sort` and `unpack`.
const INT_MAX: i64 = i32::MAX as i64;

/// Opens the library: the `table` global and `package.loaded.table`.
pub fn open(st: &mut State) -> Result<(), Error> {
    let t = st.new_table_sized(0, 8);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("concat", "table.concat", concat),
        ("insert", "table.insert", insert),
        ("pack", "table.pack", pack),
        ("unpack", "table.unpack", unpack),
        ("remove", "table.remove", remove),
        ("move", "table.move", move_),
        ("sort", "table.sort", sort),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    st.register_continuation("table.sort_k", sort_k);
    st.set_global("table", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"table");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

// ----- element access --------------------------------------------------------

/// `lua_geti`: `t[i]` with `__index`.
fn geti(st: &mut State, t: Value, i: i64) -> Result<Value, Error> {
    if let Value::Table(h) = t {
        let tab = st.table(h);
        let v = tab.get_int(i);
        if !v.is_nil() || tab.meta.is_none() {
            return Ok(v);
        }
    }
    st.index_value(t, Value::Int(i))
}

/// `lua_seti`: `t[i] = v` with `__newindex`.
fn seti(st: &mut State, t: Value, i: i64, v: Value) -> Result<(), Error> {
    if let Value::Table(h) = t {
        if st.table(h).meta.is_none() {
            return st.try_table_set(t, Value::Int(i), v);
        }
    }
    st.set_index_value(t, Value::Int(i), v)
}

/// `checktab`: argument `arg` is a table or has the metamethods `what`
/// asks for; otherwise `table expected, got X`.
fn check_tab(st: &mut State, arg: usize, what: u8) -> Result<(), Error> {
    let v = st.arg(arg);
    if matches!(v, Value::Table(_)) {
        return Ok(());
    }
    let ok = st.metatable(v).is_some()
        && (what & TAB_R == 0 || st.get_metafield(v, b"__index").is_some())
        && (what & TAB_W == 0 || st.get_metafield(v, b"__newindex").is_some())
        && (what & TAB_L == 0 || st.get_metafield(v, b"__len").is_some());
    if ok {
        Ok(())
    } else {
        Err(st.arg_type_error(arg, "table"))
    }
}

/// `luaL_len` of argument `arg`.
fn len_of(st: &mut State, arg: usize) -> Result<i64, Error> {
    let v = st.arg(arg);
    if let Value::Table(h) = v {
        let tab = st.table(h);
        if tab.meta.is_none() {
            return Ok(tab.len());
        }
    }
    let l = st.len_value(v)?;
    match st.to_integer(l) {
        Some(n) => Ok(n),
        None => Err(st.native_error("object length is not an integer")),
    }
}

/// `aux_getn`: `checktab` with length, then `luaL_len`.
fn aux_getn(st: &mut State, arg: usize, what: u8) -> Result<i64, Error> {
    check_tab(st, arg, what | TAB_L)?;
    len_of(st, arg)
}

// ----- insert, remove, move, concat, pack, unpack ----------------------------

fn insert(st: &mut State) -> R {
    let t = st.arg(1);
    let e = aux_getn(st, 1, TAB_RW)?.wrapping_add(1);
    let pos = match st.nargs() {
        2 => e,
        3 => {
            let pos = st.check_int(2)?;
            if (pos as u64).wrapping_sub(1) >= e as u64 {
                return Err(st.arg_error(2, "position out of bounds"));
            }
            let mut i = e;
            while i > pos {
                st.charge_work(1)?;
                let v = geti(st, t, i - 1)?;
                seti(st, t, i, v)?;
                i -= 1;
            }
            pos
        }
        _ => return Err(st.native_error("wrong number of arguments to 'insert'")),
    };
    let v = st.arg(st.nargs());
    seti(st, t, pos, v)?;
    Ok(Action::Return(0))
}

fn remove(st: &mut State) -> R {
    let t = st.arg(1);
    let size = aux_getn(st, 1, TAB_RW)?;
    let mut pos = st.opt_int(2, size)?;
    if pos != size && (pos as u64).wrapping_sub(1) > size as u64 {
        return Err(st.arg_error(1, "position out of bounds"));
    }
    let result = geti(st, t, pos)?;
    while pos < size {
        st.charge_work(1)?;
        let v = geti(st, t, pos + 1)?;
        seti(st, t, pos, v)?;
        pos += 1;
    }
    seti(st, t, pos, Value::Nil)?;
    st.push(result);
    Ok(Action::Return(1))
}

fn move_(st: &mut State) -> R {
    let f = st.check_int(2)?;
    let e = st.check_int(3)?;
    let t = st.check_int(4)?;
    let tt = if st.arg(5).is_nil() { 1 } else { 5 };
    check_tab(st, 1, TAB_R)?;
    check_tab(st, tt, TAB_W)?;
    let (src, dst) = (st.arg(1), st.arg(tt));
    if e >= f {
        if !(f > 0 || e < i64::MAX.wrapping_add(f)) {
            return Err(st.arg_error(3, "too many elements to move"));
        }
        let n = e - f + 1;
        if t > i64::MAX - n + 1 {
            return Err(st.arg_error(4, "destination wrap around"));
        }
        let forward = t > e || t <= f || (tt != 1 && !st.equal_value(src, dst)?);
        for k in 0..n {
            let i = if forward { k } else { n - 1 - k };
            st.charge_work(1)?;
            let v = geti(st, src, f + i)?;
            seti(st, dst, t + i, v)?;
        }
    }
    st.push(dst);
    Ok(Action::Return(1))
}

/// `addfield` of `tconcat`: appends `t[i]`, which must be a string or a
/// number. Charges one instruction per element and one per
/// [`WORK_BYTES`](luprex_vm::raw::WORK_BYTES) bytes appended (with the
/// separator).
fn add_field(st: &mut State, t: Value, i: i64, out: &mut Vec<u8>, sep: usize) -> Result<(), Error> {
    st.charge_work(1)?;
    match geti(st, t, i)? {
        Value::Str(s) => {
            st.charge_bytes(st.str_bytes(s).len() + sep)?;
            out.extend_from_slice(st.str_bytes(s));
        }
        v @ (Value::Int(_) | Value::Float(_)) => luprex_vm::raw::number::fmt_number(v, out),
        v => {
            let msg =
                format!("invalid value ({}) at index {i} in table for 'concat'", v.type_name());
            return Err(st.native_error(msg));
        }
    }
    Ok(())
}

fn concat(st: &mut State) -> R {
    let t = st.arg(1);
    let last = aux_getn(st, 1, TAB_R)?;
    let sep = match st.opt_str(2)? {
        Some(s) => st.str_bytes(s).to_vec(),
        None => Vec::new(),
    };
    let mut i = st.opt_int(3, 1)?;
    let last = st.opt_int(4, last)?;
    let mut out = Vec::new();
    while i < last {
        add_field(st, t, i, &mut out, sep.len())?;
        out.extend_from_slice(&sep);
        i += 1;
    }
    if i == last {
        add_field(st, t, i, &mut out, 0)?;
    }
    let v = st.new_string(&out);
    st.push(v);
    Ok(Action::Return(1))
}

fn pack(st: &mut State) -> R {
    let n = st.nargs();
    st.charge_work(n as u64)?;
    let h = st.new_table_sized(n, 1);
    for i in 1..=n {
        let v = st.arg(i);
        st.raw_set_int(h, i as i64, v);
    }
    let k = st.intern(b"n");
    st.raw_set_str(h, k, Value::Int(n as i64));
    st.push(Value::Table(h));
    Ok(Action::Return(1))
}

fn unpack(st: &mut State) -> R {
    let t = st.arg(1);
    let i = st.opt_int(2, 1)?;
    let e = if st.arg(3).is_nil() { len_of(st, 1)? } else { st.check_int(3)? };
    if i > e {
        return Ok(Action::Return(0));
    }
    let n = (e as u64).wrapping_sub(i as u64);
    if n >= INT_MAX as u64 || st.check_stack(n as usize + 1, "").is_err() {
        return Err(st.native_error("too many results to unpack"));
    }
    let mut k = i;
    while k < e {
        st.charge_work(1)?;
        let v = geti(st, t, k)?;
        st.push(v);
        k += 1;
    }
    let v = geti(st, t, e)?;
    st.push(v);
    Ok(Action::Return(n as usize + 1))
}

// ----- sort ----------------------------------------------------------------

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

fn sort(st: &mut State) -> R {
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
    let mut sorter = Sorter::new(st, n);
    if f.is_nil() {
        let mut res = false;
        while let Next::Less(a, b) = sorter.step(st, res)? {
            st.charge_work(1)?;
            res = st.less_value(a, b, false)?;
        }
        return Ok(Action::Return(0));
    }
    sort_next(st, sorter, false)
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
fn sort_k(st: &mut State, _status: Status, ctx: i64) -> R {
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
