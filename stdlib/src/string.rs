//! The `string` library, the glue of Lua 5.4.4's `lstrlib.c` over the
//! byte-level cores: [`crate::pattern`] (find, match, gmatch, gsub),
//! [`crate::pack`] (pack, unpack, packsize) and `luprex_vm::raw::format`
//! (`string.format`'s numeric conversions, byte-identical to glibc).
//!
//! # Design
//!
//! Every native reproduces its C counterpart's argument handling in the
//! same order, because the order decides which error a bad call reports
//! (`string.format("%d", "x")` checks the number before the conversion
//! specification; `%c` checks the specification first). Strings are byte
//! strings: nothing here assumes UTF-8, `lower`/`upper` use the C locale.
//!
//! **Calling Lua without nesting.** `gsub` with a function replacement,
//! where the running code can yield (in a coroutine, no nested call below),
//! calls the function through the native ABI ([`Action::Call`] with a
//! continuation), so a coroutine can yield inside the replacement function
//! (an extension: C Lua raises `attempt to yield across a C-call
//! boundary`). Where nothing could yield (the main thread, or below a
//! nested call, where a yield is the same error either way) it calls the
//! function nested (`call_value1`, C's `lua_call`), the state in Rust
//! locals: a continuation per match cost `gsub(s, ".", f)` 2.35× lua5.4's
//! time, the nested call 1.31×. On the continuation's path, the state of
//! the substitution — the [`pattern::Gsub`] driver, the output built so far
//! and the current match — lives in a private userdata in slot 5 of the
//! native's stack window (the subject, pattern and function stay in slots
//! 1-3, rooted), created only when a function replacement is first called.
//! Its payload is host data, so a heap snapshot taken while a coroutine is
//! suspended *inside* a replacement function would not capture it (unlike
//! `table.sort`, whose machine is plain Lua values). String and table
//! replacements run inline (a table's `__index` is a nested call, as
//! `lua_gettable` is in C).
//!
//! **gmatch** keeps its whole state in the iterator's upvalues: the
//! subject, the pattern, the next start offset and the end of the last
//! match (`-1` for none), all plain Lua values, so an iterator survives a
//! heap snapshot.
//!
//! **The string metatable** (the per-type metatable of strings) has
//! `__index` = the `string` table, so `("x"):rep(3)` works, and the
//! arithmetic metamethods of `lstrlib.c` (`__add` ... `__unm`): they
//! convert numeric strings and fall back to the other operand's
//! metamethod, with the same results and messages as C (`attempt to add
//! a 'string' with a 'table'`; `attempt to divide by zero` without a
//! position, since it is raised inside a C function).
//!
//! **Work.** Every function whose work can grow beyond a small constant
//! charges it to the instruction budget (`limits.rs` in the VM, "Work done
//! by natives"): the matcher per step through a `WorkMeter` borrowed beside
//! the subject and pattern bytes; `rep` as it copies (in 64 KB pieces);
//! `sub`, `upper`, `lower`, `reverse`, `format`, `pack`, `unpack` and
//! gsub's output per 64 bytes; `byte` and `char` per value.
//!
//! # Invariants
//!
//! * No input panics: positions are clamped as `posrelatI`/`getendpos`
//!   do before any slicing; sizes that C limits to `INT_MAX` are checked
//!   before allocating, and large results are reserved with `try_reserve`.
//! * Error messages are built from bytes (`error_bytes`) where they may
//!   contain non-UTF-8 bytes (`invalid conversion '%\xff' to 'format'`).

use crate::pack::{self, PackArgs, PackError, PackValue};
use crate::pattern::{self, Capture, Fuel, Gsub, Matcher, PatternError};
use luprex_vm::raw::format::{format_char, format_float, format_int, Spec};
use luprex_vm::raw::number;
use luprex_vm::raw::string_arith_metamethods;
use luprex_vm::raw::Payload;
use luprex_vm::raw::{Action, Error, NativeFn, State, Status, Type, Value};
use luprex_vm::raw::{StrRef, TableRef, WorkMeter};
use std::borrow::Cow;

type R = Result<Action, Error>;

/// Largest string size C's `lstrlib.c` produces (`MAXSIZE` = `INT_MAX`).
const MAX_SIZE: usize = i32::MAX as usize;

/// Bytes copied per charge by `string.rep`.
const REP_CHUNK: usize = 1 << 16;

/// [`luprex_vm::raw::WORK_BYTES`] as a `usize`.
const WORK_BYTES: usize = luprex_vm::raw::WORK_BYTES as usize;

/// Opens the library: the `string` global, `package.loaded.string` and
/// the string metatable.
pub fn open(st: &mut State) -> Result<(), Error> {
    let t = st.new_table_sized(0, 24);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("byte", "string.byte", byte),
        ("char", "string.char", char_),
        ("dump", "string.dump", dump),
        ("find", "string.find", find),
        ("format", "string.format", format),
        ("gmatch", "string.gmatch", gmatch),
        ("gsub", "string.gsub", gsub),
        ("len", "string.len", len),
        ("lower", "string.lower", lower),
        ("match", "string.match", match_),
        ("rep", "string.rep", rep),
        ("reverse", "string.reverse", reverse),
        ("sub", "string.sub", sub),
        ("upper", "string.upper", upper),
        ("pack", "string.pack", pack),
        ("packsize", "string.packsize", packsize),
        ("unpack", "string.unpack", unpack),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    st.native_id("string.gmatch_iterator", gmatch_aux);
    st.register_continuation("string.gsub_k", gsub_k);
    st.register_payload_loader(GSUB_PAYLOAD, load_gsub_payload);
    open_metatable(st, t);
    st.set_global("string", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"string");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

/// Creates the string metatable (`createmetatable` in C).
fn open_metatable(st: &mut State, lib: TableRef) {
    let mt = st.new_table_sized(0, 10);
    for (field, name, f) in string_arith_metamethods() {
        st.set_native_field(mt, field, name, f);
    }
    let k = st.intern(b"__index");
    st.raw_set_str(mt, k, Value::Table(lib));
    st.set_type_metatable(Type::String, Some(mt));
}

// ----- helpers -----------------------------------------------------------

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

/// Pushes a new string and returns it as the single result: loose past
/// 40 bytes (`State::new_loose_string`), as lstrlib's results are long
/// strings there, not interned (a million distinct `format` results kept
/// in a table cost 1.30× lua5.4's time interned).
fn ret_bytes(st: &mut State, b: &[u8]) -> R {
    let v = st.new_loose_string(b);
    ret1(st, v)
}

/// A `luaL_error` whose message is given as bytes.
fn error_bytes(st: &mut State, msg: &[u8]) -> Error {
    let mut text = Vec::with_capacity(64 + msg.len());
    st.where_into(1, &mut text);
    text.extend_from_slice(msg);
    st.error_string(&text)
}

/// A pattern error, raised as `luaL_error` (or the limit error that
/// stopped the matcher).
fn pattern_error(st: &mut State, e: PatternError) -> Error {
    match e {
        PatternError::Stopped(w) => st.work_error(w),
        e => st.native_error(e.to_string()),
    }
}

/// The memory error (`not enough memory`, no position).
fn memory_error(st: &mut State) -> Error {
    st.error_string(b"not enough memory").with_kind(luprex_vm::raw::ErrorKind::Memory)
}

/// `luaL_checknumber`: the argument as a float.
fn check_float(st: &mut State, i: usize) -> Result<f64, Error> {
    Ok(match st.check_number(i)? {
        Value::Int(n) => n as f64,
        Value::Float(f) => f,
        _ => 0.0,
    })
}

/// `posrelatI`: a start position, 1-based, clipped below to 1.
fn posrelat_start(pos: i64, len: usize) -> usize {
    if pos > 0 {
        usize::try_from(pos).unwrap_or(usize::MAX)
    } else if pos == 0 || pos.unsigned_abs() > len as u64 {
        1
    } else {
        len - pos.unsigned_abs() as usize + 1
    }
}

/// `getendpos`: an end position clipped to `[0, len]`.
fn end_pos(pos: i64, len: usize) -> usize {
    if pos > len as i64 {
        len
    } else if pos >= 0 {
        pos as usize
    } else if pos.unsigned_abs() > len as u64 {
        0
    } else {
        len - pos.unsigned_abs() as usize + 1
    }
}

/// Converts a capture to its Lua value (`push_onecapture`).
fn capture_value(st: &mut State, s: StrRef, c: Capture) -> Value {
    match c {
        Capture::Range(a, b) => {
            // Interned where the bytes are (see `sub`); a range outside the
            // subject (which the matcher does not produce) is empty.
            let len = st.str_bytes(s).len();
            let range = if a <= b && b <= len { a..b } else { 0..0 };
            st.new_substring(s, range)
        }
        Capture::Position(p) => Value::Int(p as i64 + 1),
    }
}

/// Pushes captures and returns their count.
fn push_captures(st: &mut State, s: StrRef, caps: &[Capture]) -> Result<usize, Error> {
    st.check_stack(caps.len(), "too many captures")?;
    for &c in caps {
        let v = capture_value(st, s, c);
        st.push(v);
    }
    Ok(caps.len())
}

/// Pushes a match's captures, or the whole match if the pattern has none
/// (`push_captures` with the whole-match range), and returns their count.
/// An unfinished capture raises its error where C raises it.
fn push_match(st: &mut State, s: StrRef, m: &pattern::Match) -> Result<usize, Error> {
    st.check_stack(m.capture_count().max(1), "too many captures")?;
    each_match_value(st, s, m, |st, _, v| st.push(v))
}

/// Hands each value of a match's captures (or of the whole match) to
/// `f` with its index, and returns their count (at most
/// `MAX_CAPTURES`). An unfinished capture raises its error where C
/// raises it.
#[inline(always)]
fn each_match_value(
    st: &mut State,
    s: StrRef,
    m: &pattern::Match,
    mut f: impl FnMut(&mut State, usize, Value),
) -> Result<usize, Error> {
    // (The matcher never holds more than `MAX_CAPTURES` captures.)
    let n = m.capture_count().clamp(1, pattern::MAX_CAPTURES);
    for i in 0..n {
        let c = m.capture(i).map_err(|e| pattern_error(st, e))?;
        let v = capture_value(st, s, c);
        f(st, i, v);
    }
    Ok(n)
}

/// [`push_match`] into `out` instead of the stack, their count returned.
/// They are handed to a call at once (no collection runs in between:
/// natives allocate without reaching a safe point).
fn match_values(
    st: &mut State,
    s: StrRef,
    m: &pattern::Match,
    out: &mut [Value; pattern::MAX_CAPTURES],
) -> Result<usize, Error> {
    each_match_value(st, s, m, |_, i, v| out[i] = v)
}

// ----- simple functions ----------------------------------------------------

fn len(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let n = st.str_bytes(s).len() as i64;
    ret1(st, Value::Int(n))
}

fn sub(st: &mut State) -> R {
    // The common calls, `s:sub(i)` and `s:sub(i, j)` with integers, read
    // their arguments at once (k-nucleotide: 5.25 M calls).
    let (s, i, j) = match *st.args() {
        [Value::Str(s), Value::Int(i)] => (s, i, -1),
        [Value::Str(s), Value::Int(i), Value::Int(j)] => (s, i, j),
        _ => (st.check_str(1)?, st.check_int(2)?, st.opt_int(3, -1)?),
    };
    let l = st.str_bytes(s).len();
    let start = posrelat_start(i, l);
    let end = end_pos(j, l);
    if start > end {
        return ret_bytes(st, b"");
    }
    let n = end + 1 - start;
    st.charge_bytes(n)?;
    // Interned where the bytes are: copied only into a new string.
    let v = st.new_substring(s, start - 1..end);
    ret1(st, v)
}

/// Results up to this many bytes are built in a buffer on the Rust stack,
/// as `luaL_Buffer` starts in one: a short string's `upper` or `char`
/// allocates nothing but the result (`opcost.py --lib`: `s:upper()` 844
/// -> 732 instructions against lua5.4's 745, `string.char(65, 66)` 809 ->
/// 681 against 748).
const SMALL: usize = 128;

/// `n` bytes of `small` if they fit, else of `big`, grown to `n`.
fn result_buffer<'a>(small: &'a mut [u8; SMALL], big: &'a mut Vec<u8>, n: usize) -> &'a mut [u8] {
    if n <= SMALL {
        &mut small[..n]
    } else {
        big.resize(n, 0);
        &mut big[..]
    }
}

/// Returns a copy of string `s`'s bytes changed in place by `f`.
fn ret_mapped(st: &mut State, s: StrRef, f: impl FnOnce(&mut [u8])) -> R {
    let n = st.str_bytes(s).len();
    st.charge_bytes(n)?;
    let (mut small, mut big) = ([0u8; SMALL], Vec::new());
    let buf = result_buffer(&mut small, &mut big, n);
    buf.copy_from_slice(st.str_bytes(s));
    f(buf);
    ret_bytes(st, buf)
}

fn reverse(st: &mut State) -> R {
    let s = st.check_str(1)?;
    ret_mapped(st, s, |b| b.reverse())
}

fn lower(st: &mut State) -> R {
    let s = st.check_str(1)?;
    ret_mapped(st, s, |b| b.make_ascii_lowercase())
}

fn upper(st: &mut State) -> R {
    let s = st.check_str(1)?;
    ret_mapped(st, s, |b| b.make_ascii_uppercase())
}

fn rep(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let n = st.check_int(2)?;
    let sep = st.opt_str(3)?;
    if n <= 0 {
        return ret_bytes(st, b"");
    }
    let l = st.str_bytes(s).len();
    let lsep = sep.map_or(0, |x| st.str_bytes(x).len());
    let unit = l + lsep;
    if unit == 0 {
        return ret_bytes(st, b"");
    }
    let limit = usize::try_from(n).map_or(0, |n| MAX_SIZE / n);
    if unit > limit {
        return Err(st.native_error("resulting string too large"));
    }
    let n = n as usize;
    let total = n * l + (n - 1) * lsep;
    // Past the state's memory limit: fail before allocating.
    st.check_alloc(total)?;
    let mut out = Vec::new();
    if out.try_reserve_exact(total).is_err() {
        return Err(memory_error(st));
    }
    // The copy is charged as it goes, in chunks of at least REP_CHUNK
    // bytes, so that a limit stops it part way.
    if lsep == 0 {
        // Doubling up to a chunk, then a chunk at a time.
        // Every piece but the last is a multiple of `l`, so `out` stays a
        // repetition of `s`.
        out.extend_from_slice(st.str_bytes(s));
        let chunk = (REP_CHUNK / l).max(1) * l;
        while out.len() < total {
            let k = out.len().min(total - out.len()).min(chunk);
            st.charge_bytes(k)?;
            out.extend_from_within(..k);
        }
    } else {
        let mut charged = 0;
        let (heap, mut meter) = st.work_meter();
        let (sb, sepb) = (heap.str_bytes(s), sep.map_or(&[][..], |x| heap.str_bytes(x)));
        for i in 0..n {
            if i > 0 {
                out.extend_from_slice(sepb);
            }
            out.extend_from_slice(sb);
            if out.len() - charged >= REP_CHUNK {
                let stop = meter.charge(((out.len() - charged) / WORK_BYTES) as u64);
                charged = out.len();
                if let Err(w) = stop {
                    return Err(st.work_error(w));
                }
            }
        }
    }
    ret_bytes(st, &out)
}

fn byte(st: &mut State) -> R {
    // The common calls read their arguments at once (see `sub`).
    let (s, pi, pj) = match *st.args() {
        [Value::Str(s)] => (s, 1, 1),
        [Value::Str(s), Value::Int(i)] => (s, i, i),
        [Value::Str(s), Value::Int(i), Value::Int(j)] => (s, i, j),
        _ => {
            let s = st.check_str(1)?;
            let pi = st.opt_int(2, 1)?;
            (s, pi, st.opt_int(3, pi)?)
        }
    };
    let l = st.str_bytes(s).len();
    let posi = posrelat_start(pi, l);
    let pose = end_pos(pj, l);
    if posi > pose {
        return Ok(Action::Return(0));
    }
    if pose - posi >= i32::MAX as usize {
        return Err(st.native_error("string slice too long"));
    }
    let n = pose - posi + 1;
    st.check_stack(n, "string slice too long")?;
    st.charge_work(n as u64)?;
    for i in 0..n {
        let b = st.str_bytes(s)[posi - 1 + i];
        st.push(Value::Int(i64::from(b)));
    }
    Ok(Action::Return(n))
}

fn char_(st: &mut State) -> R {
    let n = st.nargs();
    st.charge_work(n as u64)?;
    let (mut small, mut big) = ([0u8; SMALL], Vec::new());
    let out = result_buffer(&mut small, &mut big, n);
    // Integers in range, the common case, read from the arguments' slice
    // at once (fasta passes 2,047 at a time); anything else one by one,
    // with `check_int`'s conversions and errors.
    let fast = st
        .args()
        .iter()
        .zip(out.iter_mut())
        .map_while(|(v, o)| match *v {
            Value::Int(c @ 0..=255) => {
                *o = c as u8;
                Some(())
            }
            _ => None,
        })
        .count();
    for i in fast + 1..=n {
        let c = st.check_int(i)? as u64;
        if c > 255 {
            return Err(st.arg_error(i, "value out of range"));
        }
        out[i - 1] = c as u8;
    }
    ret_bytes(st, out)
}

/// `string.dump(f [, strip])`: the binary chunk of Lua function `f`
/// (`str_dump`); Rust functions cannot be dumped.
fn dump(st: &mut State) -> R {
    let strip = st.arg(2).truthy();
    let f = st.arg(1);
    if !f.is_function() {
        return Err(st.arg_type_error(1, "function"));
    }
    match st.dump_function(f, strip) {
        Ok(bytes) => {
            // Bounded by the function, but a loop can repeat it.
            st.charge_bytes(bytes.len())?;
            let v = st.new_string(&bytes);
            ret1(st, v)
        }
        Err(_) => Err(st.native_error("unable to dump given function")),
    }
}

// ----- find, match, gmatch ------------------------------------------------

/// `str_find_aux`: `string.find` (`find = true`) and `string.match`.
fn find_aux(st: &mut State, find: bool) -> R {
    let s = st.check_str(1)?;
    let p = st.check_str(2)?;
    let init = st.opt_int(3, 1)?;
    let Some(init) = pattern::start_offset(init, st.str_bytes(s).len()) else {
        return ret1(st, Value::Nil);
    };
    if find {
        let plain = st.arg(4).truthy();
        let (heap, mut meter) = st.work_meter();
        let r = pattern::find(heap.str_bytes(s), heap.str_bytes(p), init, plain, &mut meter);
        match r {
            Err(e) => Err(pattern_error(st, e)),
            Ok(None) => ret1(st, Value::Nil),
            Ok(Some(f)) => {
                st.push(Value::Int(f.start as i64 + 1));
                st.push(Value::Int(f.end as i64));
                let n = push_captures(st, s, &f.captures)?;
                Ok(Action::Return(n + 2))
            }
        }
    } else {
        let (heap, mut meter) = st.work_meter();
        let (anchored, pat) = pattern::split_anchor(heap.str_bytes(p));
        let r = Matcher::new(heap.str_bytes(s), pat).search(init, anchored, &mut meter);
        match r {
            Err(e) => Err(pattern_error(st, e)),
            Ok(None) => ret1(st, Value::Nil),
            Ok(Some(m)) => {
                let n = push_match(st, s, &m)?;
                Ok(Action::Return(n))
            }
        }
    }
}

fn find(st: &mut State) -> R {
    find_aux(st, true)
}

fn match_(st: &mut State) -> R {
    find_aux(st, false)
}

fn gmatch(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let p = st.check_str(2)?;
    let init = st.opt_int(3, 1)?;
    let len = st.str_bytes(s).len();
    let src = pattern::start_offset(init, len).unwrap_or(len + 1);
    let id = st.native_id("string.gmatch_iterator", gmatch_aux);
    let ups = vec![Value::Str(s), Value::Str(p), Value::Int(src as i64), Value::Int(-1)];
    let f = st.new_rust_closure(id, ups);
    ret1(st, f)
}

/// One step of a gmatch iteration (`gmatch_aux`): the upvalues are the
/// subject, the pattern, the start offset and the last match end (-1).
fn gmatch_aux(st: &mut State) -> R {
    // The four upvalues read at one lookup of the closure.
    let (s, p, start, last) = match *st.native_upvalues() {
        [Value::Str(s), Value::Str(p), start, last, ..] => (s, p, start, last),
        _ => return Ok(Action::Return(0)),
    };
    let int_up = |v| match v {
        Value::Int(n) => n,
        _ => -1,
    };
    let start = usize::try_from(int_up(start)).unwrap_or(usize::MAX);
    let last = usize::try_from(int_up(last)).ok();
    let (heap, mut meter) = st.work_meter();
    let found = gmatch_search(heap.str_bytes(s), heap.str_bytes(p), start, last, &mut meter);
    match found {
        Err(e) => Err(pattern_error(st, e)),
        Ok(None) => Ok(Action::Return(0)),
        Ok(Some(m)) => {
            let end = m.end() as i64;
            st.set_native_upvalue(2, Value::Int(end));
            st.set_native_upvalue(3, Value::Int(end));
            let n = push_match(st, s, &m)?;
            Ok(Action::Return(n))
        }
    }
}

/// Searches from `start` for a match not ending at `last` (the 5.4
/// `lastmatch` rule).
fn gmatch_search(
    subject: &[u8],
    pat: &[u8],
    start: usize,
    last: Option<usize>,
    meter: &mut WorkMeter<'_>,
) -> Result<Option<pattern::Match>, PatternError> {
    Matcher::new(subject, pat).search_not_ending_at(start, last, meter)
}

// ----- gsub ------------------------------------------------------------------

/// The state of a substitution in progress (kept in a userdata while a
/// replacement function runs).
#[derive(Clone)]
struct GsubState {
    g: Gsub,
    out: Vec<u8>,
    changed: bool,
    /// The current match, `(start, end)`.
    cur: (usize, usize),
}

/// Stack slot of the gsub state userdata.
const GSUB_SLOT: usize = 5;

/// The name under which a suspended gsub's state is written to bytes.
const GSUB_PAYLOAD: &str = "string.gsub_state";

/// The userdata payload holding a gsub suspended in its replacement
/// function: copied for snapshots, written to bytes for `save_state`
/// (format: a `u8` 0/1 for none/some, then the six [`Gsub::to_words`]
/// as little-endian `i64`, `changed` as a `u8`, the current match's two
/// offsets and the output's length as `u64`, and the output's bytes).
struct GsubPayload(Option<GsubState>);

impl Payload for GsubPayload {
    fn as_any(&self) -> &dyn std::any::Any {
        &self.0
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        &mut self.0
    }
    fn type_name(&self) -> &'static str {
        "GsubState"
    }
    fn clone_payload(&self) -> Option<Box<dyn Payload>> {
        Some(Box::new(GsubPayload(self.0.clone())))
    }
    fn persist_name(&self) -> Option<&'static str> {
        Some(GSUB_PAYLOAD)
    }
    fn persist(&self, out: &mut Vec<u8>) -> bool {
        let Some(gs) = &self.0 else {
            out.push(0);
            return true;
        };
        out.push(1);
        gs.g.to_words().iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        out.push(u8::from(gs.changed));
        for x in [gs.cur.0, gs.cur.1, gs.out.len()] {
            out.extend_from_slice(&(x as u64).to_le_bytes());
        }
        out.extend_from_slice(&gs.out);
        true
    }
}

/// Reads a [`GsubPayload`] back (the loader registered as
/// [`GSUB_PAYLOAD`]); `None` for bytes it cannot have written.
fn load_gsub_payload(b: &[u8]) -> Option<Box<dyn Payload>> {
    let word =
        |i: usize| -> Option<u64> { Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?)) };
    match b.first()? {
        0 if b.len() == 1 => return Some(Box::new(GsubPayload(None))),
        1 => {}
        _ => return None,
    }
    let mut w = [0i64; 6];
    for (k, x) in w.iter_mut().enumerate() {
        *x = word(1 + 8 * k)? as i64;
    }
    let g = Gsub::from_words(w)?;
    let changed = match b.get(49)? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let (a, e, n) = (word(50)?, word(58)?, word(66)?);
    let out = b.get(74..)?;
    if out.len() as u64 != n || a > e {
        return None;
    }
    let cur = (usize::try_from(a).ok()?, usize::try_from(e).ok()?);
    Some(Box::new(GsubPayload(Some(GsubState { g, out: out.to_vec(), changed, cur }))))
}

fn gsub(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let p = st.check_str(2)?;
    let srcl = st.str_bytes(s).len();
    let max = st.opt_int(4, srcl as i64 + 1)?;
    match st.arg(3) {
        Value::Int(_) | Value::Float(_) => {
            st.check_str(3)?;
        }
        Value::Str(_) | Value::Table(_) | Value::LuaFn(_) | Value::RustFn(_) => {}
        _ => return Err(st.arg_type_error(3, "string/function/table")),
    }
    st.set_top(GSUB_SLOT);
    let g = Gsub::new(srcl, st.str_bytes(p), Some(max));
    // The result is built in the state's scratch buffer (a new vector
    // grew by doubling for every call).
    let out = st.take_buf();
    gsub_run(st, GsubState { g, out, changed: false, cur: (0, 0) })
}

/// Runs the substitution until it needs to call the replacement function
/// or is done.
fn gsub_run(st: &mut State, mut gs: GsubState) -> R {
    let (Value::Str(s), Value::Str(p)) = (st.arg(1), st.arg(2)) else {
        return Err(st.native_error("invalid gsub state"));
    };
    let repl = st.arg(3);
    loop {
        let (heap, mut meter) = st.work_meter();
        let (subj, pat) = (heap.str_bytes(s), heap.str_bytes(p));
        let r = gs.g.next(subj, pat, &mut gs.out, &mut meter);
        let m = match r {
            Err(e) => return Err(pattern_error(st, e)),
            Ok(None) => return gsub_finish(st, s, gs),
            Ok(Some(m)) => m,
        };
        gs.cur = (m.start(), m.end());
        let v = match repl {
            Value::Str(r) => {
                let before = gs.out.len();
                let r = m
                    .expand_replacement(subj, heap.str_bytes(r), &mut gs.out)
                    .and_then(|()| meter.burn(((gs.out.len() - before) / WORK_BYTES) as u64));
                if let Err(e) = r {
                    return Err(pattern_error(st, e));
                }
                gs.changed = true;
                continue;
            }
            Value::Table(_) => {
                let c = m.capture(0).map_err(|e| pattern_error(st, e))?;
                let key = capture_value(st, s, c);
                st.index_value(repl, key)?
            }
            _ if !st.is_yieldable() => {
                // Nothing could yield: the replacement function is a
                // nested call (C's `lua_call`), the state stays here.
                let mut args = [Value::Nil; pattern::MAX_CAPTURES];
                let n = match_values(st, s, &m, &mut args)?;
                st.call_value1(repl, &args[..n])?
            }
            _ => {
                st.push(repl);
                let n = push_match(st, s, &m)?;
                put_gsub_state(st, gs);
                return Ok(Action::Call { nargs: n, nresults: 1, k: Some((gsub_k, 0)) });
            }
        };
        add_value(st, &mut gs, s, v)?;
    }
}

/// Continuation after a replacement function returned.
fn gsub_k(st: &mut State, _status: Status, _ctx: i64) -> R {
    let v = st.arg(st.nargs());
    st.set_top(GSUB_SLOT);
    let Some(mut gs) = take_gsub_state(st) else {
        return Err(st.native_error("invalid gsub state"));
    };
    let Value::Str(s) = st.arg(1) else { return Err(st.native_error("invalid gsub state")) };
    let len = st.str_bytes(s).len();
    if !gs.g.fits(len) || gs.cur.1 > len {
        // Only a state loaded from corrupt bytes can be out of range.
        return Err(st.native_error("invalid gsub state"));
    }
    add_value(st, &mut gs, s, v)?;
    gsub_run(st, gs)
}

/// Stores the state in the userdata of slot 5 (created on first use;
/// `gsub` reserved the slot).
fn put_gsub_state(st: &mut State, gs: GsubState) {
    let slot = st.arg(GSUB_SLOT);
    if let Some(slot) = st.userdata_mut::<Option<GsubState>>(slot) {
        *slot = Some(gs);
        return;
    }
    let u = st.new_userdata(Box::new(GsubPayload(Some(gs))), None);
    st.set_arg(GSUB_SLOT, u);
}

fn take_gsub_state(st: &mut State) -> Option<GsubState> {
    let slot = st.arg(GSUB_SLOT);
    st.userdata_mut::<Option<GsubState>>(slot)?.take()
}

/// `add_value` for table and function replacements: `nil`/`false` keeps
/// the original text; strings and numbers are appended.
fn add_value(st: &mut State, gs: &mut GsubState, s: StrRef, v: Value) -> Result<(), Error> {
    match v {
        Value::Nil | Value::Bool(false) => {
            let (a, b) = gs.cur;
            gs.out.extend_from_slice(st.str_bytes(s).get(a..b).unwrap_or(&[]));
        }
        Value::Str(r) => {
            st.charge_bytes(st.str_bytes(r).len())?;
            gs.out.extend_from_slice(st.str_bytes(r));
            gs.changed = true;
        }
        Value::Int(_) | Value::Float(_) => {
            number::fmt_number(v, &mut gs.out);
            gs.changed = true;
        }
        _ => {
            let msg = format!("invalid replacement value (a {})", v.type_name());
            return Err(st.native_error(msg));
        }
    }
    Ok(())
}

fn gsub_finish(st: &mut State, s: StrRef, mut gs: GsubState) -> R {
    let count = gs.g.count();
    let result = if gs.changed {
        gs.g.finish(st.str_bytes(s), &mut gs.out);
        st.charge_bytes(gs.out.len())?;
        st.new_loose_string(&gs.out)
    } else {
        Value::Str(s)
    };
    st.put_buf(gs.out);
    st.push(result);
    st.push(Value::Int(count));
    Ok(Action::Return(2))
}

// ----- format ----------------------------------------------------------------

/// Flags accepted by each kind of conversion (`L_FMTFLAGS*`).
const FLAGS_F: &[u8] = b"-+#0 ";
const FLAGS_X: &[u8] = b"-#0";
const FLAGS_I: &[u8] = b"-+0 ";
const FLAGS_U: &[u8] = b"-0";
const FLAGS_C: &[u8] = b"-";

/// Longest conversion specification (`MAX_FORMAT - 10`).
const MAX_SPEC: usize = 22;

/// `checkformat`: whether `form` (`%` ... conversion) has only the given
/// flags, a width of at most two digits not starting with `0`, and (if
/// allowed) a precision of at most two digits.
fn check_format(form: &[u8], flags: &[u8], precision: bool) -> bool {
    let at = |j: usize| form.get(j).copied().unwrap_or(0);
    let skip2 = |mut j: usize| {
        for _ in 0..2 {
            if at(j).is_ascii_digit() {
                j += 1;
            }
        }
        j
    };
    let mut j = 1;
    while j < form.len() && flags.contains(&form[j]) {
        j += 1;
    }
    if at(j) != b'0' {
        j = skip2(j);
        if at(j) == b'.' && precision {
            j = skip2(j + 1);
        }
    }
    at(j).is_ascii_alphabetic()
}

fn format(st: &mut State) -> R {
    let top = st.nargs();
    let fs = st.check_str(1)?;
    // The format is copied out of the heap (arguments are converted while
    // it is read): on the Rust stack when short.
    let mut short = [0u8; 128];
    let heap_copy;
    let fmt: &[u8] = match short.get_mut(..st.str_bytes(fs).len()) {
        Some(buf) => {
            buf.copy_from_slice(st.str_bytes(fs));
            buf
        }
        None => {
            heap_copy = st.str_bytes(fs).to_vec();
            &heap_copy
        }
    };
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut arg = 1;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        arg += 1;
        if arg > top {
            return Err(st.arg_error(arg, "no value"));
        }
        let rest = &fmt[i..];
        let span = rest.iter().take_while(|c| b"-+#0 123456789.".contains(c)).count();
        if span + 1 >= MAX_SPEC {
            return Err(st.native_error("invalid format (too long)"));
        }
        let conv = rest.get(span).copied().unwrap_or(0);
        let mut form = [0u8; MAX_SPEC + 1];
        form[0] = b'%';
        form[1..=span].copy_from_slice(&rest[..span]);
        form[span + 1] = conv;
        i += span + 1;
        format_item(st, &mut out, &form[..span + 2], arg)?;
    }
    st.charge_bytes(fmt.len() + out.len())?;
    ret_bytes(st, &out)
}

/// Formats one conversion of `string.format` for argument `arg`.
fn format_item(st: &mut State, out: &mut Vec<u8>, form: &[u8], arg: usize) -> Result<(), Error> {
    let conv = form[form.len() - 1];
    match conv {
        b'c' => {
            check_spec(st, form, FLAGS_C, false)?;
            let n = st.check_int(arg)?;
            format_char(out, &spec_of(form), n as u8);
        }
        b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
            let flags = match conv {
                b'd' | b'i' => FLAGS_I,
                b'u' => FLAGS_U,
                _ => FLAGS_X,
            };
            let n = st.check_int(arg)?;
            check_spec(st, form, flags, true)?;
            format_int(out, &spec_of(form), n);
        }
        b'a' | b'A' => {
            check_spec(st, form, FLAGS_F, true)?;
            let f = check_float(st, arg)?;
            format_float(out, &spec_of(form), f);
        }
        b'f' | b'e' | b'E' | b'g' | b'G' => {
            let f = check_float(st, arg)?;
            check_spec(st, form, FLAGS_F, true)?;
            format_float(out, &spec_of(form), f);
        }
        b'p' => {
            check_spec(st, form, FLAGS_C, false)?;
            let v = st.arg(arg);
            let id = luprex_vm::raw::object_id(v);
            let text = if id == 0 { "(null)".to_string() } else { format!("0x{id:012x}") };
            pad_str(out, &spec_of(form), text.as_bytes());
        }
        b'q' => {
            if form.len() > 2 {
                return Err(st.native_error("specifier '%q' cannot have modifiers"));
            }
            add_literal(st, out, arg)?;
        }
        b's' => format_s(st, out, form, arg)?,
        _ => {
            let shown = form.split(|&b| b == 0).next().unwrap_or(&[]);
            let mut msg = b"invalid conversion '".to_vec();
            msg.extend_from_slice(shown);
            msg.extend_from_slice(b"' to 'format'");
            return Err(error_bytes(st, &msg));
        }
    }
    Ok(())
}

/// `checkformat`, raising `invalid conversion specification: '%...'`.
fn check_spec(st: &mut State, form: &[u8], flags: &[u8], precision: bool) -> Result<(), Error> {
    if check_format(form, flags, precision) {
        return Ok(());
    }
    let mut msg = b"invalid conversion specification: '".to_vec();
    msg.extend_from_slice(form);
    msg.push(b'\'');
    Err(error_bytes(st, &msg))
}

/// The parsed spec of a validated form.
fn spec_of(form: &[u8]) -> Spec {
    Spec::parse(&form[1..], 2).map_or_else(|| Spec::new(form[form.len() - 1]), |(s, _)| s)
}

/// `%s`-style output: the first `precision` bytes, padded to the width.
fn pad_str(out: &mut Vec<u8>, spec: &Spec, s: &[u8]) {
    let s = &s[..spec.precision.map_or(s.len(), |p| p.min(s.len()))];
    let pad = spec.width.unwrap_or(0).saturating_sub(s.len());
    if !spec.minus {
        out.resize(out.len() + pad, b' ');
    }
    out.extend_from_slice(s);
    if spec.minus {
        out.resize(out.len() + pad, b' ');
    }
}

fn format_s(st: &mut State, out: &mut Vec<u8>, form: &[u8], arg: usize) -> Result<(), Error> {
    let v = st.arg(arg);
    if form.len() == 2 {
        return st.tostring_append(v, out);
    }
    let s = st.tostring_bytes(v)?;
    if s.contains(&0) {
        return Err(st.arg_error(arg, "string contains zeros"));
    }
    check_spec(st, form, FLAGS_C, true)?;
    if !form.contains(&b'.') && s.len() >= 100 {
        out.extend_from_slice(&s);
    } else {
        pad_str(out, &spec_of(form), &s);
    }
    Ok(())
}

/// `addliteral`: `%q`.
fn add_literal(st: &mut State, out: &mut Vec<u8>, arg: usize) -> Result<(), Error> {
    match st.arg(arg) {
        Value::Str(s) => add_quoted(out, st.str_bytes(s)),
        Value::Int(n) if n == i64::MIN => out.extend_from_slice(b"0x8000000000000000"),
        Value::Int(n) => number::fmt_int(n, out),
        Value::Float(f) => quote_float(out, f),
        v @ (Value::Nil | Value::Bool(_)) => {
            let s = st.tostring_bytes(v)?;
            out.extend_from_slice(&s);
        }
        _ => return Err(st.arg_error(arg, "value has no literal form")),
    }
    Ok(())
}

/// `addquoted`: a string as a Lua literal that reads back the same bytes.
fn add_quoted(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for (i, &c) in s.iter().enumerate() {
        match c {
            b'"' | b'\\' | b'\n' => {
                out.push(b'\\');
                out.push(c);
            }
            0..=31 | 127 => {
                let next_digit = s.get(i + 1).is_some_and(u8::is_ascii_digit);
                let text = if next_digit { format!("\\{c:03}") } else { format!("\\{c}") };
                out.extend_from_slice(text.as_bytes());
            }
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

/// `quotefloat`: a float as a literal (`%a`, `1e9999`, `(0/0)`).
fn quote_float(out: &mut Vec<u8>, f: f64) {
    if f == f64::INFINITY {
        out.extend_from_slice(b"1e9999");
    } else if f == f64::NEG_INFINITY {
        out.extend_from_slice(b"-1e9999");
    } else if f.is_nan() {
        out.extend_from_slice(b"(0/0)");
    } else {
        format_float(out, &Spec::new(b'a'), f);
    }
}

// ----- pack ------------------------------------------------------------------

/// Why `pack_with` stopped: a Lua error from an argument conversion, or a
/// pack error to be raised with the state.
enum PackFail {
    Lua(Error),
    Pack(PackError),
}

impl From<PackError> for PackFail {
    fn from(e: PackError) -> Self {
        PackFail::Pack(e)
    }
}

/// The arguments of `string.pack`, converted as `luaL_check*` does.
struct StateArgs<'a> {
    st: &'a mut State,
}

impl PackArgs for StateArgs<'_> {
    type Error = PackFail;

    fn integer(&mut self, arg: usize) -> Result<i64, PackFail> {
        self.st.check_int(arg).map_err(PackFail::Lua)
    }

    fn number(&mut self, arg: usize) -> Result<f64, PackFail> {
        check_float(self.st, arg).map_err(PackFail::Lua)
    }

    fn string(&mut self, arg: usize) -> Result<Cow<'_, [u8]>, PackFail> {
        let s = self.st.check_str(arg).map_err(PackFail::Lua)?;
        Ok(Cow::Borrowed(self.st.str_bytes(s)))
    }

    fn work(&mut self, bytes: usize) -> Result<(), PackFail> {
        // One instruction per item, and the bytes written.
        self.st.charge_work(1 + (bytes / WORK_BYTES) as u64).map_err(PackFail::Lua)
    }
}

/// Raises a pack error (`luaL_argerror` or `luaL_error`).
fn pack_error(st: &mut State, e: PackError) -> Error {
    match e {
        PackError::Arg(n, msg) => st.arg_error(n, &msg),
        PackError::Msg(msg) => error_bytes(st, &msg),
        PackError::Memory => memory_error(st),
    }
}

fn pack(st: &mut State) -> R {
    let f = st.check_str(1)?;
    let fmt = st.str_bytes(f).to_vec();
    // C pushes a nil mark after the arguments: a missing value is "nil".
    st.push(Value::Nil);
    match pack::pack_with(&fmt, &mut StateArgs { st }) {
        Ok(bytes) => ret_bytes(st, &bytes),
        Err(PackFail::Lua(e)) => Err(e),
        Err(PackFail::Pack(e)) => Err(pack_error(st, e)),
    }
}

fn packsize(st: &mut State) -> R {
    let f = st.check_str(1)?;
    st.charge_bytes(st.str_bytes(f).len())?;
    match pack::packsize(st.str_bytes(f)) {
        Ok(n) => ret1(st, Value::Int(n)),
        Err(e) => Err(pack_error(st, e)),
    }
}

fn unpack(st: &mut State) -> R {
    let f = st.check_str(1)?;
    let d = st.check_str(2)?;
    let init = st.opt_int(3, 1)?;
    let r = pack::unpack(st.str_bytes(f), st.str_bytes(d), init);
    let u = r.map_err(|e| pack_error(st, e))?;
    // Bounded by the format and the data; charged once done: one
    // instruction per value and the bytes read.
    let read = usize::try_from(u.next).unwrap_or(0);
    st.charge_work(u.values.len() as u64)?;
    st.charge_bytes(st.str_bytes(f).len() + read)?;
    st.check_stack(u.values.len() + 1, "too many results")?;
    let n = u.values.len() + 1;
    for v in u.values {
        let v = match v {
            PackValue::Int(i) => Value::Int(i),
            PackValue::Float(x) => Value::Float(x),
            PackValue::Str(b) => st.new_string(&b),
        };
        st.push(v);
    }
    st.push(Value::Int(u.next));
    Ok(Action::Return(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        assert_eq!(posrelat_start(-100, 5), 1);
        assert_eq!(posrelat_start(-2, 5), 4);
        assert_eq!(posrelat_start(0, 5), 1);
        assert_eq!(end_pos(100, 5), 5);
        assert_eq!(end_pos(-1, 5), 5);
        assert_eq!(end_pos(-6, 5), 0);
        assert_eq!(end_pos(i64::MIN, 5), 0);
    }

    #[test]
    fn checkformat_rules() {
        assert!(check_format(b"%-5d", FLAGS_I, true));
        assert!(!check_format(b"%05c", FLAGS_C, false));
        assert!(!check_format(b"%1.2.3d", FLAGS_I, true));
        assert!(!check_format(b"%#d", FLAGS_I, true));
        assert!(!check_format(b"%.3c", FLAGS_C, false));
        assert!(check_format(b"%.3s", FLAGS_C, true));
    }

    #[test]
    fn quoting() {
        let mut out = Vec::new();
        add_quoted(&mut out, b"a\0b\x001\r\n\"\\\x7fx");
        assert_eq!(out, b"\"a\\0b\\0001\\13\\\n\\\"\\\\\\127x\"");
    }
}
