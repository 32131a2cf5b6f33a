//! Lua 5.4 pattern matching, a byte-for-byte port of the matcher in Lua
//! 5.4.4's `lstrlib.c`.
//!
//! # Design
//!
//! The matcher is the classic backtracking interpreter of `lstrlib.c`: a
//! recursive `do_match` walks the pattern, recursing for captures,
//! quantifiers and `?`, and looping (instead of C's `goto init`) for the
//! tail-call cases. Everything is expressed over byte offsets into the
//! subject and the pattern, never over pointers:
//!
//! * Reads go through `sbyte` / `pbyte`, which return `0` past the end of
//!   the slice. That reproduces exactly what C reads there: Lua strings are
//!   always followed by a `'\0'`, and `lstrlib.c` relies on it (for example
//!   `%f[%z]` matches at the end of the subject, and a pattern ending in `(`
//!   looks at the terminator to decide whether `()` is a position capture).
//!   No code path ever indexes past the terminator, so "0 past the end" is
//!   exact, and no read can panic.
//! * Recursion is bounded like C's `MAXCCALLS`: each `do_match` call
//!   consumes one unit of a budget of [`MAX_CALLS`] (200), and running out
//!   raises [`PatternError::TooComplex`] ("pattern too complex"). The Rust
//!   stack depth is therefore bounded by a constant on any input: measured
//!   at about 1 KB per level unoptimized (under 256 KB in the worst case)
//!   and about 200 bytes per level optimized (under 64 KB).
//! * Errors that C raises with `luaL_error` (a `longjmp`) are returned as
//!   [`PatternError`] values and propagated with `?`; their `Display` is the
//!   exact message `lstrlib.c` produces.
//!
//! # Work
//!
//! Depth is bounded, but time is not: backtracking is exponential in the
//! pattern (`string.rep('a?', 30) .. string.rep('a', 30)` against 30 `a`s
//! runs for minutes). So every entry point takes a [`Fuel`], and the
//! matcher charges one *step* per pattern item it tries at a subject
//! position (each iteration of `do_match`'s loop), one per byte a
//! repetition or `%b` scans, one per 64 bytes a back-reference compares; a
//! plain search charges one per candidate position and per 64 bytes
//! compared or skipped. The glue passes the VM's [`WorkMeter`], so the
//! instruction limit and the interrupt flag stop a match part way with a
//! [`PatternError::Stopped`], at the same step in every process; tests and
//! budget-less callers pass [`Unmetered`]. To stay fast the matcher does
//! not call the meter per step: it counts steps down from
//! [`Fuel::headroom`] in its own state and charges them in bulk when the
//! headroom is used up (the charge that makes the check) and when a search
//! ends. A search also keeps one matcher state across the start positions
//! it tries, resetting only the capture level and the depth (as C's
//! `do_match` caller does), instead of building one per position. A
//! pattern that is one single-character item without a suffix (`.`,
//! `%a`, `[%w_]`: every match is one byte) is searched without a matcher
//! state at all (`Matcher::one_byte_search`): a scan for the first byte
//! of the class, charged the steps the general search charges for the
//! same positions, and taken only where no budget check falls within
//! the charge, so that the charge, the check and every result are the
//! general search's (a property test compares them).
//!
//! # Invariants
//!
//! * Every subject offset handled by the matcher is `<= subject.len()`;
//!   every pattern offset is `<= pattern.len()`.
//! * At most [`MAX_CAPTURES`] captures are open or closed at a time.
//! * The matcher is deterministic and allocation-free except for the
//!   returned capture list.
//!
//! # How the library glue should use this module
//!
//! Positions exchanged with the glue are 0-based byte offsets; ranges are
//! half-open (`subject[start..end]`). Lua-visible positions are `offset + 1`.
//!
//! * `string.find(s, p, init, plain)`: compute `start_offset(init, s.len())`
//!   (`init` defaults to 1); `None` means "return fail". Otherwise call
//!   [`find`] with `plain = lua_toboolean(arg 4)`; [`find`] itself takes the
//!   plain path when `plain` is set or [`has_specials`] is false (the
//!   "no specials" fast path), exactly like `str_find_aux`. On
//!   `Some(found)` return `found.start + 1`, `found.end`, then each capture.
//! * `string.match(s, p, init)`: same `start_offset`, then
//!   [`match_pattern`]; return the captures (the whole match when the
//!   pattern has none).
//! * Pushing a [`Capture`]: `Range(a, b)` is the string `s[a..b]`;
//!   `Position(a)` is the integer `a + 1`.
//! * `string.gmatch(s, p, init)`: create a [`GMatch`] with
//!   [`GMatch::new`]`(s.len(), init)` and keep it (it is `Copy`) in the
//!   iterator closure together with `s` and `p`. Each call of the iterator
//!   calls [`GMatch::next`]; `None` means return nothing. A `^` at the start
//!   of the pattern is *not* an anchor in gmatch (it matches a literal `^`),
//!   as in 5.4.4. Empty matches right after the previous match are skipped
//!   (the 5.4 `lastmatch` rule).
//! * `string.gsub(s, p, repl, n)`: check the type of `repl` first
//!   (`string/function/table expected`). Then either use [`gsub_with`] with
//!   a closure that appends the replacement for one match, or drive
//!   [`Gsub`] step by step (useful if calling a Lua function from inside a
//!   Rust closure is not possible). For a string or number replacement call
//!   [`Match::expand_replacement`] (numbers converted to strings first). For
//!   a table, index it with `m.capture(0)?`; for a function, call it with
//!   `m.captures()?`. If the result is `false`/`nil`, append the original
//!   text `s[m.start()..m.end()]` and report "not changed"; if it is not a
//!   string or number, raise `invalid replacement value (a <type>)`. When
//!   nothing changed, gsub returns the original string object; the second
//!   result is the match count.
//! * Every [`PatternError`] is raised with `luaL_error` semantics: the
//!   message is the `Display` text, prefixed by `luaL_where(L, 1)`, i.e.
//!   `chunkname:currentline: ` of the function that called the library
//!   function when that caller is a Lua function (no prefix when it is
//!   called directly from C, e.g. by `pcall`).

use luprex_vm::raw::{WorkMeter, WorkStop, WORK_BYTES};
use std::fmt;

/// Maximum number of captures in a pattern (`LUA_MAXCAPTURES`).
pub const MAX_CAPTURES: usize = 32;

/// Maximum nesting of the recursive matcher (`MAXCCALLS` in `lstrlib.c`).
pub const MAX_CALLS: usize = 200;

/// Bytes a search's skip tests against its lead class one by one before
/// it builds the class's bit set (see `State::scan_class`).
const CLASS_SCAN: usize = 64;

/// The escape character of patterns.
const L_ESC: u8 = b'%';

/// Characters whose presence makes `string.find` use the matcher.
const SPECIALS: &[u8] = b"^$*+?.([%-";

/// An error raised while matching; `Display` gives `lstrlib.c`'s message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternError {
    /// `malformed pattern (ends with '%')`
    EndsWithEscape,
    /// `malformed pattern (missing ']')`
    MissingBracket,
    /// `malformed pattern (missing arguments to '%b')`
    MissingBalanceArgs,
    /// `missing '[' after '%f' in pattern`
    MissingFrontierBracket,
    /// `invalid capture index %N` (N is the digit as written, 0..=9).
    InvalidCaptureIndex(u8),
    /// `invalid pattern capture` (a `)` without an open capture).
    InvalidPatternCapture,
    /// `unfinished capture` (a capture still open when results are read).
    UnfinishedCapture,
    /// `too many captures` (more than [`MAX_CAPTURES`]).
    TooManyCaptures,
    /// `pattern too complex` (more than [`MAX_CALLS`] nested matcher calls).
    TooComplex,
    /// `invalid use of '%' in replacement string`
    InvalidReplacement,
    /// The [`Fuel`] ran out: the instruction limit or the interrupt flag
    /// stopped the match (the glue raises [`luprex_vm::raw::State::work_error`]).
    Stopped(WorkStop),
}

/// What the matcher charges its work to, in steps (see "Work" in the
/// module docs).
pub trait Fuel {
    /// Charges `units` steps; an error stops the match.
    fn burn(&mut self, units: u64) -> Result<(), PatternError>;
    /// Steps that can be charged before the next check is due (see
    /// [`WorkMeter::headroom`]): the matcher counts steps down from it
    /// locally and charges them in bulk.
    fn headroom(&self) -> u64;
}

/// Fuel that never runs out (for callers without a budget).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unmetered;

impl Fuel for Unmetered {
    #[inline(always)]
    fn burn(&mut self, _units: u64) -> Result<(), PatternError> {
        Ok(())
    }

    fn headroom(&self) -> u64 {
        i64::MAX as u64
    }
}

impl Fuel for WorkMeter<'_> {
    #[inline(always)]
    fn burn(&mut self, units: u64) -> Result<(), PatternError> {
        self.charge(units).map_err(PatternError::Stopped)
    }

    #[inline(always)]
    fn headroom(&self) -> u64 {
        WorkMeter::headroom(self)
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EndsWithEscape => f.write_str("malformed pattern (ends with '%')"),
            Self::MissingBracket => f.write_str("malformed pattern (missing ']')"),
            Self::MissingBalanceArgs => {
                f.write_str("malformed pattern (missing arguments to '%b')")
            }
            Self::MissingFrontierBracket => f.write_str("missing '[' after '%f' in pattern"),
            Self::InvalidCaptureIndex(n) => write!(f, "invalid capture index %{n}"),
            Self::InvalidPatternCapture => f.write_str("invalid pattern capture"),
            Self::UnfinishedCapture => f.write_str("unfinished capture"),
            Self::TooManyCaptures => f.write_str("too many captures"),
            Self::TooComplex => f.write_str("pattern too complex"),
            Self::InvalidReplacement => f.write_str("invalid use of '%' in replacement string"),
            Self::Stopped(w) => write!(f, "stopped ({:?})", w.kind()),
        }
    }
}

impl std::error::Error for PatternError {}

/// One capture value, as Lua would push it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// A substring capture: the bytes `subject[start..end]`.
    Range(usize, usize),
    /// A position capture `()`: Lua pushes the integer `offset + 1`.
    Position(usize),
}

/// The state of one capture slot during matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Opened at the given offset, not yet closed (`CAP_UNFINISHED`).
    Open(usize),
    /// A position capture at the given offset (`CAP_POSITION`).
    Position(usize),
    /// A closed capture covering `start..end`.
    Closed(usize, usize),
}

/// A successful match: its extent and the capture slots at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    start: usize,
    end: usize,
    slots: Vec<Slot>,
}

impl Match {
    /// Offset of the first matched byte.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Offset just past the last matched byte.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Number of captures in the pattern that took part in the match
    /// (`ms->level`).
    pub fn capture_count(&self) -> usize {
        self.slots.len()
    }

    /// The `i`-th capture (0-based), as `get_onecapture`: with no captures,
    /// index 0 is the whole match. Errors: `invalid capture index %<i+1>`
    /// when out of range, `unfinished capture` for an open capture.
    pub fn capture(&self, i: usize) -> Result<Capture, PatternError> {
        match self.slots.get(i) {
            None if i == 0 => Ok(Capture::Range(self.start, self.end)),
            None => Err(PatternError::InvalidCaptureIndex(digit_for(i + 1))),
            Some(Slot::Open(_)) => Err(PatternError::UnfinishedCapture),
            Some(Slot::Position(p)) => Ok(Capture::Position(*p)),
            Some(Slot::Closed(a, b)) => Ok(Capture::Range(*a, *b)),
        }
    }

    /// All captures, or the whole match if there are none (`push_captures`
    /// with a whole-match range): what `match`, `gmatch` and a gsub
    /// replacement function receive.
    pub fn captures(&self) -> Result<Vec<Capture>, PatternError> {
        let n = self.slots.len().max(1);
        (0..n).map(|i| self.capture(i)).collect()
    }

    /// Only the explicit captures (possibly none): the extra results of
    /// `string.find` (`push_captures(ms, NULL, 0)`).
    pub fn explicit_captures(&self) -> Result<Vec<Capture>, PatternError> {
        (0..self.slots.len()).map(|i| self.capture(i)).collect()
    }

    /// Appends the expansion of a gsub replacement string (`add_s`):
    /// `%0` is the whole match, `%1`-`%9` the captures (a position capture
    /// is written as its decimal Lua position), `%%` is `%`; any other use of
    /// `%` is an error.
    pub fn expand_replacement(
        &self,
        subject: &[u8],
        repl: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), PatternError> {
        let mut i = 0;
        while let Some(off) = repl.get(i..).and_then(|r| memchr::memchr(L_ESC, r)) {
            out.extend_from_slice(&repl[i..i + off]);
            let esc = i + off;
            match repl.get(esc + 1).copied().unwrap_or(0) {
                L_ESC => out.push(L_ESC),
                b'0' => out.extend_from_slice(slice(subject, self.start, self.end)),
                d @ b'1'..=b'9' => self.push_capture_text(subject, usize::from(d - b'1'), out)?,
                _ => return Err(PatternError::InvalidReplacement),
            }
            i = esc + 2;
        }
        out.extend_from_slice(repl.get(i..).unwrap_or(&[]));
        Ok(())
    }

    /// Appends the text of capture `i` as `add_s` does for `%<i+1>`.
    fn push_capture_text(
        &self,
        subject: &[u8],
        i: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), PatternError> {
        match self.capture(i)? {
            Capture::Range(a, b) => out.extend_from_slice(slice(subject, a, b)),
            Capture::Position(p) => out.extend_from_slice((p + 1).to_string().as_bytes()),
        }
        Ok(())
    }
}

/// Converts a capture number (1-based, at most 10 here) to the digit shown in
/// error messages.
fn digit_for(n: usize) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// `subject[a..b]`, or empty if the range is not valid (never happens for
/// ranges produced by the matcher).
fn slice(subject: &[u8], a: usize, b: usize) -> &[u8] {
    subject.get(a..b).unwrap_or(&[])
}

/// True if `pattern` contains any of the characters `^$*+?.([%-`, i.e. if
/// `string.find` must use the matcher instead of a plain substring search.
pub fn has_specials(pattern: &[u8]) -> bool {
    pattern.iter().any(|b| SPECIALS.contains(b))
}

/// Translates a Lua `init` argument (`posrelatI(init, len) - 1`) into a
/// 0-based start offset; `None` when it lies past the end of the subject
/// (then `find`/`match` return fail).
pub fn start_offset(init: i64, len: usize) -> Option<usize> {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let pos = if init > 0 {
        usize::try_from(init).unwrap_or(usize::MAX)
    } else if init == 0 || init < -len_i {
        1
    } else {
        // -len <= init < 0, so len + init + 1 is in 1..=len.
        usize::try_from(len_i + init + 1).unwrap_or(1)
    };
    let off = pos - 1;
    (off <= len).then_some(off)
}

/// Splits a leading `^` anchor off a pattern, as `find`/`match`/`gsub` do.
pub fn split_anchor(pattern: &[u8]) -> (bool, &[u8]) {
    match pattern.split_first() {
        Some((b'^', rest)) => (true, rest),
        _ => (false, pattern),
    }
}

/// A subject and a pattern ready for match attempts at arbitrary
/// positions. The pattern is used verbatim: a leading `^` is a literal
/// unless the caller strips it with [`split_anchor`].
#[derive(Debug, Clone, Copy)]
pub struct Matcher<'a> {
    subject: &'a [u8],
    pattern: &'a [u8],
}

impl<'a> Matcher<'a> {
    /// Creates a matcher.
    pub fn new(subject: &'a [u8], pattern: &'a [u8]) -> Self {
        Self { subject, pattern }
    }

    /// Tries to match the whole pattern starting exactly at offset `pos`
    /// (like one call of C's `match`, with a fresh capture state and call
    /// budget). Returns `Ok(None)` when there is no match or `pos` is past
    /// the end of the subject.
    pub fn match_at<F: Fuel>(
        &self,
        pos: usize,
        fuel: &mut F,
    ) -> Result<Option<Match>, PatternError> {
        self.run(fuel, |st| st.attempt(pos))
    }

    /// Runs `body` with one matcher state, whose steps are charged to
    /// `fuel` in bulk (also when `body` fails).
    fn run<F: Fuel, T>(
        &self,
        fuel: &mut F,
        body: impl FnOnce(&mut State<'a, '_, F>) -> Result<T, PatternError>,
    ) -> Result<T, PatternError> {
        let mut st = State::new(self.subject, self.pattern, fuel);
        let r = body(&mut st);
        st.settle()?;
        r
    }

    /// The first match at `start`, `start + 1`, ... whose end is not
    /// `last` (the 5.4 `lastmatch` rule of `gmatch` and `gsub`; `None`
    /// for no such rule), with its end.
    pub fn search_not_ending_at<F: Fuel>(
        &self,
        start: usize,
        last: Option<usize>,
        fuel: &mut F,
    ) -> Result<Option<Match>, PatternError> {
        if let Some(m) = self.one_byte_search(start, last, fuel) {
            return Ok(Some(m));
        }
        self.run(fuel, |st| {
            let lead = st.lead();
            let mut src = start;
            while src <= st.src.len() {
                src = st.skip(src, lead)?;
                if src > st.src.len() {
                    break;
                }
                if let Some(m) = st.attempt(src)? {
                    if Some(m.end()) != last {
                        return Ok(Some(m));
                    }
                }
                src += 1;
            }
            Ok(None)
        })
    }

    /// The search of a pattern that is one single-character item without
    /// a suffix (`.`, `x`, `%a`, `[%w_]`), whose every match is one byte:
    /// the first byte of the class at or after `start`, found by a scan,
    /// charged what the general search charges for it (a step per
    /// position passed over, two for the match) without building the
    /// matcher's state. `None`, with nothing charged, for any other
    /// pattern and wherever the general search must decide: no byte of the
    /// class left, a match ending at `last`, or a check of the budget due
    /// within the charge (the general search meets it at the step where
    /// it falls). `gmatch(s, ".")` spent 380 of its 880 instructions a
    /// match in that state and its searches.
    #[inline]
    fn one_byte_search<F: Fuel>(
        &self,
        start: usize,
        last: Option<usize>,
        fuel: &mut F,
    ) -> Option<Match> {
        #[cfg(test)]
        if tests::NO_LEAD.with(std::cell::Cell::get) {
            return None;
        }
        let pat = self.pattern;
        let first = *pat.first()?;
        match first {
            b'(' | b')' => return None,
            b'$' if pat.len() == 1 => return None,
            L_ESC if matches!(pbyte(pat, 1), b'b' | b'f' | b'0'..=b'9') => return None,
            _ => {}
        }
        if class_end(pat, 0).ok()? != pat.len() {
            return None;
        }
        let rest = self.subject.get(start..)?;
        let skipped = match first {
            b'.' => 0,
            b'[' | L_ESC => rest.iter().position(|&c| class_has(pat, c, 0, pat.len()))?,
            _ => memchr::memchr(first, rest)?,
        };
        let at = start + skipped;
        let steps = skipped as u64 + 2;
        if at >= self.subject.len() || Some(at + 1) == last || steps >= fuel.headroom() {
            return None;
        }
        // Below the headroom: no check is due, so the charge cannot fail.
        fuel.burn(steps).ok()?;
        Some(Match { start: at, end: at + 1, slots: Vec::new() })
    }

    /// Tries `match_at` at `start`, `start + 1`, ... up to the end of the
    /// subject (only at `start` if `anchored`), returning the first match.
    pub fn search<F: Fuel>(
        &self,
        start: usize,
        anchored: bool,
        fuel: &mut F,
    ) -> Result<Option<Match>, PatternError> {
        if !anchored {
            if let Some(m) = self.one_byte_search(start, None, fuel) {
                return Ok(Some(m));
            }
        }
        self.run(fuel, |st| {
            let lead = if anchored { Lead::Any } else { st.lead() };
            let mut pos = start;
            while pos <= st.src.len() {
                pos = st.skip(pos, lead)?;
                if pos > st.src.len() {
                    break;
                }
                if let Some(m) = st.attempt(pos)? {
                    return Ok(Some(m));
                }
                if anchored {
                    break;
                }
                pos += 1;
            }
            Ok(None)
        })
    }
}

/// The result of [`find`]: the matched range and the explicit captures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Offset of the first matched byte (Lua returns `start + 1`).
    pub start: usize,
    /// Offset just past the match (Lua returns `end` as is).
    pub end: usize,
    /// Explicit captures only (empty for plain searches).
    pub captures: Vec<Capture>,
}

/// `string.find` from the 0-based offset `init` (see [`start_offset`]).
/// Uses a plain substring search if `plain` or if the pattern has no
/// special characters; otherwise honours a leading `^` anchor.
pub fn find<F: Fuel>(
    subject: &[u8],
    pattern: &[u8],
    init: usize,
    plain: bool,
    fuel: &mut F,
) -> Result<Option<Found>, PatternError> {
    if init > subject.len() {
        return Ok(None);
    }
    if plain || !has_specials(pattern) {
        return Ok(memfind(&subject[init..], pattern, fuel)?.map(|at| Found {
            start: init + at,
            end: init + at + pattern.len(),
            captures: Vec::new(),
        }));
    }
    let (anchored, pat) = split_anchor(pattern);
    match Matcher::new(subject, pat).search(init, anchored, fuel)? {
        Some(m) => {
            Ok(Some(Found { start: m.start(), end: m.end(), captures: m.explicit_captures()? }))
        }
        None => Ok(None),
    }
}

/// `string.match` from the 0-based offset `init`: the captures (or the
/// whole match) of the first match, honouring a leading `^` anchor.
pub fn match_pattern<F: Fuel>(
    subject: &[u8],
    pattern: &[u8],
    init: usize,
    fuel: &mut F,
) -> Result<Option<Vec<Capture>>, PatternError> {
    if init > subject.len() {
        return Ok(None);
    }
    let (anchored, pat) = split_anchor(pattern);
    match Matcher::new(subject, pat).search(init, anchored, fuel)? {
        Some(m) => Ok(Some(m.captures()?)),
        None => Ok(None),
    }
}

/// Plain substring search (`lmemfind`): offset of the first occurrence of
/// `needle` in `hay`; the empty needle is found at 0. Charges one step per
/// candidate position (where the first byte matches) and per 64 bytes
/// compared there, plus one per 64 bytes skipped to find candidates.
fn memfind<F: Fuel>(
    hay: &[u8],
    needle: &[u8],
    fuel: &mut F,
) -> Result<Option<usize>, PatternError> {
    let Some((&first, rest)) = needle.split_first() else {
        return Ok(Some(0));
    };
    let Some(last) = hay.len().checked_sub(needle.len()) else {
        return Ok(None);
    };
    const CHUNK: usize = WORK_BYTES as usize;
    let mut i = 0;
    while i <= last {
        let Some(k) = memchr::memchr(first, &hay[i..=last]) else {
            fuel.burn(((last + 1 - i) / CHUNK) as u64)?;
            return Ok(None);
        };
        fuel.burn((k / CHUNK) as u64 + 1)?;
        i += k;
        let cand = &hay[i + 1..i + needle.len()];
        let mut found = true;
        for (a, b) in cand.chunks(CHUNK).zip(rest.chunks(CHUNK)) {
            fuel.burn(1)?;
            if a != b {
                found = false;
                break;
            }
        }
        if found {
            return Ok(Some(i));
        }
        i += 1;
    }
    Ok(None)
}

/// The state of a `string.gmatch` iterator: a plain value the glue keeps in
/// the iterator closure (together with the subject and pattern strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GMatch {
    /// Offset where the next search starts (may be `len + 1`).
    src: usize,
    /// End of the last match, to skip an empty match right after it.
    lastmatch: Option<usize>,
}

impl GMatch {
    /// Starts an iteration over a subject of `subject_len` bytes from the Lua
    /// `init` argument (default 1).
    pub fn new(subject_len: usize, init: i64) -> Self {
        let src = start_offset(init, subject_len).unwrap_or(subject_len + 1);
        Self { src, lastmatch: None }
    }

    /// The next match's captures (whole match if the pattern has none), or
    /// `None` when the iteration is over. `subject` and `pattern` must be
    /// the same on every call. The pattern is used verbatim (no anchor).
    pub fn next<F: Fuel>(
        &mut self,
        subject: &[u8],
        pattern: &[u8],
        fuel: &mut F,
    ) -> Result<Option<Vec<Capture>>, PatternError> {
        let found =
            Matcher::new(subject, pattern).search_not_ending_at(self.src, self.lastmatch, fuel)?;
        match found {
            Some(m) => {
                self.src = m.end();
                self.lastmatch = Some(m.end());
                m.captures().map(Some)
            }
            None => Ok(None),
        }
    }
}

/// The state of a `string.gsub` in progress, for glue that needs to run
/// each replacement itself (see [`gsub_with`] for the closure form).
///
/// Protocol: call [`Gsub::next`] repeatedly; for each returned match append
/// the replacement (or the original text) to `out`. When it returns `None`,
/// call [`Gsub::finish`] to append the rest of the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gsub {
    src: usize,
    lastmatch: Option<usize>,
    anchored: bool,
    count: i64,
    max: i64,
    done: bool,
}

impl Gsub {
    /// Starts a gsub over a subject of `subject_len` bytes with the full
    /// pattern (including any `^`) and the optional Lua `n` argument
    /// (default `len + 1`).
    pub fn new(subject_len: usize, pattern: &[u8], max: Option<i64>) -> Self {
        let default = i64::try_from(subject_len).unwrap_or(i64::MAX - 1) + 1;
        Self {
            src: 0,
            lastmatch: None,
            anchored: split_anchor(pattern).0,
            count: 0,
            max: max.unwrap_or(default),
            done: false,
        }
    }

    /// Number of matches found so far (gsub's second result).
    pub fn count(&self) -> i64 {
        self.count
    }

    /// The state as plain words (for writing a suspended gsub to bytes;
    /// [`Gsub::from_words`] reads them back).
    pub fn to_words(&self) -> [i64; 6] {
        [
            self.src as i64,
            self.lastmatch.map_or(-1, |l| l as i64),
            i64::from(self.anchored),
            self.count,
            self.max,
            i64::from(self.done),
        ]
    }

    /// A state from [`Gsub::to_words`], or `None` if the words cannot be
    /// one (negative offsets or count, flags other than 0 and 1). Offsets
    /// are checked against the subject by [`Gsub::fits`].
    pub fn from_words(w: [i64; 6]) -> Option<Gsub> {
        let [src, last, anchored, count, max, done] = w;
        let flag = |x: i64| match x {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        Some(Gsub {
            src: usize::try_from(src).ok()?,
            lastmatch: if last == -1 { None } else { Some(usize::try_from(last).ok()?) },
            anchored: flag(anchored)?,
            count: if count >= 0 { count } else { return None },
            max,
            done: flag(done)?,
        })
    }

    /// Whether the state's offsets lie within a subject of `len` bytes
    /// (always true of a state this module made for that subject).
    pub fn fits(&self, len: usize) -> bool {
        self.src <= len && self.lastmatch.is_none_or(|l| l <= len)
    }

    /// Finds the next match to replace, copying the skipped subject bytes to
    /// `out`. `subject` and `pattern` (the full pattern) must be the same on
    /// every call.
    pub fn next<F: Fuel>(
        &mut self,
        subject: &[u8],
        pattern: &[u8],
        out: &mut Vec<u8>,
        fuel: &mut F,
    ) -> Result<Option<Match>, PatternError> {
        let pat = if self.anchored { pattern.get(1..).unwrap_or(&[]) } else { pattern };
        let matcher = Matcher::new(subject, pat);
        if !self.anchored && !self.done && self.count < self.max {
            if let Some(m) = matcher.one_byte_search(self.src, self.lastmatch, fuel) {
                // The bytes passed over are copied, as the failed attempts
                // there would copy them.
                out.extend_from_slice(&subject[self.src..m.start()]);
                self.count += 1;
                self.src = m.end();
                self.lastmatch = Some(m.end());
                return Ok(Some(m));
            }
        }
        matcher.run(fuel, |st| {
            let lead = if self.anchored { Lead::Any } else { st.lead() };
            while !self.done && self.count < self.max {
                self.done = self.anchored;
                let next = st.skip(self.src, lead)?;
                if next > self.src {
                    // Positions where no match can start: their bytes are
                    // copied as the failed attempts there would copy them.
                    let to = next.min(subject.len());
                    out.extend_from_slice(&subject[self.src..to]);
                    self.src = to;
                    if next > subject.len() {
                        self.done = true;
                        break;
                    }
                }
                match st.attempt(self.src)? {
                    Some(m) if Some(m.end()) != self.lastmatch => {
                        self.count += 1;
                        self.src = m.end();
                        self.lastmatch = Some(m.end());
                        return Ok(Some(m));
                    }
                    _ => match subject.get(self.src) {
                        Some(&b) => {
                            out.push(b);
                            self.src += 1;
                        }
                        None => self.done = true,
                    },
                }
            }
            Ok(None)
        })
    }

    /// Appends the unprocessed tail of the subject to `out`.
    pub fn finish(&self, subject: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(subject.get(self.src..).unwrap_or(&[]));
    }
}

/// The result of a complete gsub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsubResult {
    /// The new string (equal to the subject when nothing changed).
    pub output: Vec<u8>,
    /// False if no replacement changed anything: Lua then returns the
    /// original string object.
    pub changed: bool,
    /// Number of matches (gsub's second result).
    pub count: i64,
}

/// Runs a whole gsub. For each match, `repl` appends the replacement to the
/// buffer and returns whether it changed the text (return `false` after
/// appending the original text for a `nil`/`false` replacement value).
pub fn gsub_with<E, F, U>(
    subject: &[u8],
    pattern: &[u8],
    max: Option<i64>,
    fuel: &mut U,
    mut repl: F,
) -> Result<GsubResult, E>
where
    E: From<PatternError>,
    F: FnMut(&Match, &mut Vec<u8>) -> Result<bool, E>,
    U: Fuel,
{
    let mut state = Gsub::new(subject.len(), pattern, max);
    let mut output = Vec::new();
    let mut changed = false;
    while let Some(m) = state.next(subject, pattern, &mut output, fuel)? {
        changed |= repl(&m, &mut output)?;
    }
    state.finish(subject, &mut output);
    Ok(GsubResult { output, changed, count: state.count() })
}

/// `string.gsub` with a string replacement (`%0`-`%9`, `%%`).
pub fn gsub_str<U: Fuel>(
    subject: &[u8],
    pattern: &[u8],
    repl: &[u8],
    max: Option<i64>,
    fuel: &mut U,
) -> Result<GsubResult, PatternError> {
    gsub_with(subject, pattern, max, fuel, |m, out| {
        m.expand_replacement(subject, repl, out)?;
        Ok(true)
    })
}

/// What the matcher does after interpreting one pattern item.
enum Step {
    /// The match attempt is over with this result.
    Done(Option<usize>),
    /// Continue matching at (subject offset, pattern offset) in this frame.
    Next(usize, usize),
}

/// What the first matched byte of any match must be, so that a search
/// can pass over the positions where an attempt would fail at once.
#[derive(Debug, Clone, Copy)]
enum Lead {
    /// No such byte is known: try every position.
    Any,
    /// The byte itself.
    Byte {
        byte: u8,
        /// Steps an attempt charges before failing at the item.
        steps: u64,
    },
    /// A byte of the class `p..ep` (`%x` or `[...]`).
    Class { p: usize, ep: usize, steps: u64 },
}

/// The mutable state of one match attempt (`MatchState`).
struct State<'a, 'f, F: Fuel> {
    src: &'a [u8],
    pat: &'a [u8],
    /// What every step is charged to, in bulk: `granted` steps were
    /// available when last settled, `left` of them remain.
    fuel: &'f mut F,
    granted: i64,
    left: i64,
    /// Remaining nesting budget for `do_match`.
    depth: usize,
    /// Number of capture slots in use.
    level: usize,
    caps: [Slot; MAX_CAPTURES],
    /// The lead class as a bit set of bytes, once a skip has scanned
    /// [`CLASS_SCAN`] bytes without it.
    lead_set: Option<[u64; 4]>,
}

impl<'a, 'f, F: Fuel> State<'a, 'f, F> {
    fn new(src: &'a [u8], pat: &'a [u8], fuel: &'f mut F) -> Self {
        let granted = i64::try_from(fuel.headroom()).unwrap_or(i64::MAX);
        Self {
            src,
            pat,
            fuel,
            granted,
            left: granted,
            depth: MAX_CALLS,
            level: 0,
            caps: [Slot::Open(0); MAX_CAPTURES],
            lead_set: None,
        }
    }

    /// One match attempt at `pos` (C's `match` from `do_match`'s caller,
    /// with the capture level and call budget reset).
    fn attempt(&mut self, pos: usize) -> Result<Option<Match>, PatternError> {
        if pos > self.src.len() {
            return Ok(None);
        }
        self.level = 0;
        self.depth = MAX_CALLS;
        Ok(self.do_match(pos, 0)?.map(|end| Match {
            start: pos,
            end,
            slots: self.caps[..self.level].to_vec(),
        }))
    }

    /// What every match must begin with (see [`Lead`]): the pattern's
    /// first single-character item, looking through up to
    /// [`MAX_CAPTURES`] leading capture openings, unless it may match
    /// nothing (a `*`, `?` or `-` suffix). A malformed item gives
    /// [`Lead::Any`], so the first attempt raises its error as before.
    fn lead(&self) -> Lead {
        #[cfg(test)]
        if tests::NO_LEAD.with(std::cell::Cell::get) {
            return Lead::Any;
        }
        let mut p = 0;
        let mut opens = 0;
        while self.pbyte(p) == b'(' && p < self.pat.len() {
            p += if self.pbyte(p + 1) == b')' { 2 } else { 1 };
            opens += 1;
        }
        if p >= self.pat.len() || opens > MAX_CAPTURES {
            return Lead::Any;
        }
        let c = self.pbyte(p);
        match c {
            b')' | b'.' => return Lead::Any,
            b'$' if p + 1 == self.pat.len() => return Lead::Any,
            L_ESC if matches!(self.pbyte(p + 1), b'b' | b'f' | b'0'..=b'9') => return Lead::Any,
            _ => {}
        }
        let Ok(ep) = self.class_end(p) else { return Lead::Any };
        let steps = opens as u64 + 1;
        match self.pbyte(ep) {
            b'*' | b'?' | b'-' => Lead::Any,
            _ if c == L_ESC || c == b'[' => Lead::Class { p, ep, steps },
            _ => Lead::Byte { byte: c, steps },
        }
    }

    /// The first offset at or after `s` where an attempt can match under
    /// `lead`, or `src.len() + 1` if none: the attempts skipped would each
    /// have failed at the lead item, after charging `steps` steps, and the
    /// skip charges the same. It stops early where the headroom would run
    /// out, so that the attempt there meets the check exactly as before.
    fn skip(&mut self, s: usize, lead: Lead) -> Result<usize, PatternError> {
        let steps = match lead {
            Lead::Any => return Ok(s),
            Lead::Byte { steps, .. } | Lead::Class { steps, .. } => steps,
        };
        let len = self.src.len();
        if s > len {
            return Ok(s);
        }
        // Positions `s..=len` remain; the one at `len` never matches.
        let affordable = usize::try_from(self.left.max(0) as u64 / steps).unwrap_or(usize::MAX);
        let end = len.min(s.saturating_add(affordable));
        let found = match lead {
            Lead::Byte { byte, .. } => memchr::memchr(byte, &self.src[s..end]),
            Lead::Class { p, ep, .. } => self.scan_class(s, end, p, ep),
            Lead::Any => None,
        };
        let next = match found {
            Some(k) => s + k,
            None if end == len && affordable > len - s => len + 1,
            None => end,
        };
        self.burn((next - s) as u64 * steps)?;
        Ok(next)
    }

    /// The first offset in `s..end` whose byte is in the class `p..ep`,
    /// relative to `s`: tested item by item for the first [`CLASS_SCAN`]
    /// bytes, then through a bit set of the class's bytes, built once per
    /// search.
    fn scan_class(&mut self, s: usize, end: usize, p: usize, ep: usize) -> Option<usize> {
        let set = match self.lead_set {
            Some(set) => set,
            None => {
                let near = end.min(s + CLASS_SCAN);
                if let Some(k) = (s..near).position(|i| self.single_match(i, p, ep)) {
                    return Some(k);
                }
                if near == end {
                    return None;
                }
                let set = self.class_set(p, ep);
                self.lead_set = Some(set);
                set
            }
        };
        let hit = |b: u8| set[usize::from(b >> 6)] >> (b & 63) & 1 != 0;
        self.src[s..end].iter().position(|&b| hit(b))
    }

    /// The bytes of the class `p..ep`, as a bit set.
    fn class_set(&self, p: usize, ep: usize) -> [u64; 4] {
        let mut set = [0u64; 4];
        for b in 0..=255u8 {
            set[usize::from(b >> 6)] |= u64::from(self.class_has(b, p, ep)) << (b & 63);
        }
        set
    }

    /// Counts `units` steps; when the headroom is used up, charges it (the
    /// charge that makes the check) and takes the new headroom.
    #[inline(always)]
    fn burn(&mut self, units: u64) -> Result<(), PatternError> {
        self.left = self.left.saturating_sub(i64::try_from(units).unwrap_or(i64::MAX));
        if self.left <= 0 {
            return self.refuel();
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn refuel(&mut self) -> Result<(), PatternError> {
        self.settle()?;
        self.granted = i64::try_from(self.fuel.headroom()).unwrap_or(i64::MAX);
        self.left = self.granted;
        Ok(())
    }

    /// Charges the steps counted since the last settlement.
    fn settle(&mut self) -> Result<(), PatternError> {
        let used = self.granted.saturating_sub(self.left).max(0) as u64;
        self.granted = self.left;
        self.fuel.burn(used)
    }

    /// Subject byte at `i`, or the implicit `'\0'` terminator past the end.
    fn sbyte(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// Pattern byte at `i`, or the implicit `'\0'` terminator past the end.
    fn pbyte(&self, i: usize) -> u8 {
        self.pat.get(i).copied().unwrap_or(0)
    }

    /// C's `match`: matches the pattern from `p` against the subject from
    /// `s`, returning the end of the match.
    fn do_match(&mut self, s: usize, p: usize) -> Result<Option<usize>, PatternError> {
        if self.depth == 0 {
            return Err(PatternError::TooComplex);
        }
        self.depth -= 1;
        let (mut s, mut p) = (s, p);
        let result = loop {
            self.burn(1)?;
            if p >= self.pat.len() {
                break Some(s);
            }
            match self.step(s, p)? {
                Step::Done(r) => break r,
                Step::Next(s2, p2) => (s, p) = (s2, p2),
            }
        };
        self.depth += 1;
        Ok(result)
    }

    /// Interprets the pattern item at `p` (which is not the pattern end).
    fn step(&mut self, s: usize, p: usize) -> Result<Step, PatternError> {
        match self.pbyte(p) {
            b'(' if self.pbyte(p + 1) == b')' => {
                self.start_capture(s, p + 2, Slot::Position(s)).map(Step::Done)
            }
            b'(' => self.start_capture(s, p + 1, Slot::Open(s)).map(Step::Done),
            b')' => self.end_capture(s, p + 1).map(Step::Done),
            b'$' if p + 1 == self.pat.len() => Ok(Step::Done((s == self.src.len()).then_some(s))),
            L_ESC => match self.pbyte(p + 1) {
                b'b' => Ok(match self.match_balance(s, p + 2)? {
                    Some(s2) => Step::Next(s2, p + 4),
                    None => Step::Done(None),
                }),
                b'f' => self.frontier(s, p + 2),
                d @ b'0'..=b'9' => Ok(match self.match_capture(s, d)? {
                    Some(s2) => Step::Next(s2, p + 2),
                    None => Step::Done(None),
                }),
                _ => self.single_item(s, p),
            },
            _ => self.single_item(s, p),
        }
    }

    /// `%f[set]`: `p` points at the expected `[`.
    fn frontier(&mut self, s: usize, p: usize) -> Result<Step, PatternError> {
        if self.pbyte(p) != b'[' {
            return Err(PatternError::MissingFrontierBracket);
        }
        let ep = self.class_end(p)?;
        let previous = if s == 0 { 0 } else { self.sbyte(s - 1) };
        if !match_bracket_class(self.pat, previous, p, ep - 1)
            && match_bracket_class(self.pat, self.sbyte(s), p, ep - 1)
        {
            Ok(Step::Next(s, ep))
        } else {
            Ok(Step::Done(None))
        }
    }

    /// A single-character class at `p` with an optional `* + - ?` suffix.
    fn single_item(&mut self, s: usize, p: usize) -> Result<Step, PatternError> {
        let ep = self.class_end(p)?;
        let suffix = self.pbyte(ep);
        if !self.single_match(s, p, ep) {
            return Ok(match suffix {
                b'*' | b'?' | b'-' => Step::Next(s, ep + 1),
                _ => Step::Done(None),
            });
        }
        match suffix {
            b'?' => match self.do_match(s + 1, ep + 1)? {
                Some(r) => Ok(Step::Done(Some(r))),
                None => Ok(Step::Next(s, ep + 1)),
            },
            b'+' => self.max_expand(s + 1, p, ep).map(Step::Done),
            b'*' => self.max_expand(s, p, ep).map(Step::Done),
            b'-' => self.min_expand(s, p, ep).map(Step::Done),
            _ => Ok(Step::Next(s + 1, ep)),
        }
    }

    /// Returns the offset just past the single-character class at `p`.
    fn class_end(&self, p: usize) -> Result<usize, PatternError> {
        class_end(self.pat, p)
    }

    /// Does the subject byte at `s` match the class `p..ep`?
    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        self.src.get(s).is_some_and(|&c| self.class_has(c, p, ep))
    }

    /// Does byte `c` match the single-character class `p..ep`?
    #[inline]
    fn class_has(&self, c: u8, p: usize, ep: usize) -> bool {
        class_has(self.pat, c, p, ep)
    }

    /// `%bxy` with `p` pointing at `x`.
    fn match_balance(&mut self, s: usize, p: usize) -> Result<Option<usize>, PatternError> {
        if p + 1 >= self.pat.len() {
            return Err(PatternError::MissingBalanceArgs);
        }
        let (open, close) = (self.pbyte(p), self.pbyte(p + 1));
        if self.sbyte(s) != open {
            return Ok(None);
        }
        let mut depth = 1usize;
        let start = s;
        let mut s = s + 1;
        while s < self.src.len() {
            let c = self.sbyte(s);
            if c == close {
                depth -= 1;
                if depth == 0 {
                    self.burn((s - start) as u64)?;
                    return Ok(Some(s + 1));
                }
            } else if c == open {
                depth += 1;
            }
            s += 1;
        }
        self.burn((s - start) as u64)?;
        Ok(None)
    }

    /// Greedy repetition: as many matches of the class as possible, then
    /// backs off one at a time until the rest of the pattern matches.
    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Result<Option<usize>, PatternError> {
        let mut i = self.run_length(s, p, ep);
        self.burn(i as u64)?;
        loop {
            if let Some(r) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    /// How many bytes from `s` on match the single-character class `p..ep`
    /// (what `single_match` says byte by byte, with the class's kind
    /// decided once).
    fn run_length(&self, s: usize, p: usize, ep: usize) -> usize {
        let rest = self.src.get(s..).unwrap_or(&[]);
        match self.pbyte(p) {
            b'.' => rest.len(),
            L_ESC => {
                let cl = self.pbyte(p + 1);
                match class_bit(cl) {
                    0 => rest.iter().take_while(|&&c| c == cl).count(),
                    bit => {
                        let want = cl.is_ascii_lowercase();
                        rest.iter().take_while(|&&c| in_class(c, bit, want)).count()
                    }
                }
            }
            b'[' => {
                rest.iter().take_while(|&&c| match_bracket_class(self.pat, c, p, ep - 1)).count()
            }
            lit => rest.iter().take_while(|&&c| c == lit).count(),
        }
    }

    /// Lazy repetition: tries the rest of the pattern before each extra
    /// match of the class.
    fn min_expand(&mut self, s: usize, p: usize, ep: usize) -> Result<Option<usize>, PatternError> {
        let mut s = s;
        loop {
            if let Some(r) = self.do_match(s, ep + 1)? {
                return Ok(Some(r));
            }
            if !self.single_match(s, p, ep) {
                return Ok(None);
            }
            s += 1;
        }
    }

    /// Opens capture slot `level` with `slot` and matches the rest.
    fn start_capture(
        &mut self,
        s: usize,
        p: usize,
        slot: Slot,
    ) -> Result<Option<usize>, PatternError> {
        if self.level >= MAX_CAPTURES {
            return Err(PatternError::TooManyCaptures);
        }
        self.caps[self.level] = slot;
        self.level += 1;
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.level -= 1;
        }
        Ok(res)
    }

    /// Closes the innermost open capture at `s` and matches the rest.
    fn end_capture(&mut self, s: usize, p: usize) -> Result<Option<usize>, PatternError> {
        let l = self.capture_to_close()?;
        let Slot::Open(start) = self.caps[l] else {
            return Err(PatternError::InvalidPatternCapture);
        };
        self.caps[l] = Slot::Closed(start, s);
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.caps[l] = Slot::Open(start);
        }
        Ok(res)
    }

    /// Index of the innermost open capture.
    fn capture_to_close(&self) -> Result<usize, PatternError> {
        self.caps[..self.level]
            .iter()
            .rposition(|c| matches!(c, Slot::Open(_)))
            .ok_or(PatternError::InvalidPatternCapture)
    }

    /// Back-reference `%<digit>` at subject offset `s`.
    fn match_capture(&mut self, s: usize, digit: u8) -> Result<Option<usize>, PatternError> {
        let invalid = PatternError::InvalidCaptureIndex(digit - b'0');
        let l = usize::from(digit.checked_sub(b'1').ok_or(invalid)?);
        let slot = *self.caps[..self.level].get(l).ok_or(invalid)?;
        match slot {
            Slot::Open(_) => Err(invalid),
            // A position capture has length (size_t)-2: never fits.
            Slot::Position(_) => Ok(None),
            Slot::Closed(a, b) => {
                let cap = slice(self.src, a, b);
                self.burn(cap.len() as u64 / WORK_BYTES)?;
                let rest = self.src.get(s..).unwrap_or(&[]);
                Ok(rest.starts_with(cap).then_some(s + cap.len()))
            }
        }
    }
}

/// Returns the offset just past the single-character class at `p` of
/// `pat`.
fn class_end(pat: &[u8], p: usize) -> Result<usize, PatternError> {
    let c = pbyte(pat, p);
    let mut p = p + 1;
    match c {
        L_ESC => {
            if p >= pat.len() {
                return Err(PatternError::EndsWithEscape);
            }
            Ok(p + 1)
        }
        b'[' => {
            if pbyte(pat, p) == b'^' {
                p += 1;
            }
            loop {
                if p >= pat.len() {
                    return Err(PatternError::MissingBracket);
                }
                let c = pbyte(pat, p);
                p += 1;
                if c == L_ESC && p < pat.len() {
                    p += 1;
                }
                if pbyte(pat, p) == b']' {
                    return Ok(p + 1);
                }
            }
        }
        _ => Ok(p),
    }
}

/// Does byte `c` match the single-character class `p..ep`?
#[inline]
fn class_has(pat: &[u8], c: u8, p: usize, ep: usize) -> bool {
    match pbyte(pat, p) {
        b'.' => true,
        L_ESC => match_class(c, pbyte(pat, p + 1)),
        b'[' => match_bracket_class(pat, c, p, ep - 1),
        pc => pc == c,
    }
}

/// Does `c` belong to the set `[...]` starting at `p` whose closing
/// `]` is at `ec`?
fn match_bracket_class(pat: &[u8], c: u8, p: usize, ec: usize) -> bool {
    let mut p = p;
    let mut sig = true;
    if pbyte(pat, p + 1) == b'^' {
        sig = false;
        p += 1;
    }
    loop {
        p += 1;
        if p >= ec {
            return !sig;
        }
        let pc = pbyte(pat, p);
        if pc == L_ESC {
            p += 1;
            if match_class(c, pbyte(pat, p)) {
                return sig;
            }
        } else if pbyte(pat, p + 1) == b'-' && p + 2 < ec {
            p += 2;
            if pc <= c && c <= pbyte(pat, p) {
                return sig;
            }
        } else if pc == c {
            return sig;
        }
    }
}

/// Pattern byte at `i` of `pat`, or the implicit `'\0'` terminator past
/// the end.
#[inline(always)]
fn pbyte(pat: &[u8], i: usize) -> u8 {
    pat.get(i).copied().unwrap_or(0)
}

/// Does byte `c` belong to class letter `cl` (`%a`, `%D`, ...), using the C
/// locale? Non-class letters match themselves.
#[inline]
fn match_class(c: u8, cl: u8) -> bool {
    match class_bit(cl) {
        0 => cl == c,
        bit => in_class(c, bit, cl.is_ascii_lowercase()),
    }
}

/// Whether byte `c` is in the class of bit `bit` (`want`), or not in it.
#[inline(always)]
fn in_class(c: u8, bit: u16, want: bool) -> bool {
    (CLASSES[usize::from(c)] & bit != 0) == want
}

/// The bit of class letter `cl` (either case) in [`CLASSES`], 0 if `cl`
/// names no class.
const fn class_bit(cl: u8) -> u16 {
    match cl.to_ascii_lowercase() {
        b'a' => 1,
        b'c' => 1 << 1,
        b'd' => 1 << 2,
        b'g' => 1 << 3,
        b'l' => 1 << 4,
        b'p' => 1 << 5,
        b's' => 1 << 6,
        b'u' => 1 << 7,
        b'w' => 1 << 8,
        b'x' => 1 << 9,
        b'z' => 1 << 10,
        _ => 0,
    }
}

/// For each byte, the classes it belongs to in the C locale (`ctype.h`),
/// as [`class_bit`]s.
static CLASSES: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        let member = [
            c.is_ascii_alphabetic(),
            c.is_ascii_control(),
            c.is_ascii_digit(),
            c.is_ascii_graphic(),
            c.is_ascii_lowercase(),
            c.is_ascii_punctuation(),
            c == b' ' || (c >= b'\t' && c <= b'\r'),
            c.is_ascii_uppercase(),
            c.is_ascii_alphanumeric(),
            c.is_ascii_hexdigit(),
            c == 0,
        ];
        let mut k = 0;
        while k < member.len() {
            if member[k] {
                t[i] |= 1 << k;
            }
            k += 1;
        }
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests;
