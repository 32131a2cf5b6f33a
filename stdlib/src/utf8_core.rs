//! The algorithmic core of Lua 5.4.4's `utf8` library (`lutf8lib.c`):
//! encoding, strict and lax decoding, and the position arithmetic of
//! `utf8.len`, `utf8.codepoint`, `utf8.offset` and `utf8.codes`.
//!
//! # Design
//!
//! Every function works on a byte slice and plain integers, returning
//! [`Utf8Error`] for the errors `lutf8lib.c` raises. The decoder
//! ([`decode`]) is a transcription of `utf8_decode`: it accepts the
//! original UTF-8 (sequences of up to 6 bytes, values up to `0x7FFFFFFF`),
//! rejects overlong forms, and in strict mode also rejects surrogates and
//! values above `0x10FFFF`. Position helpers use Lua's conventions
//! (1-based, negative counts from the end) and return Lua positions.
//!
//! # Invariants
//!
//! * Reads past the end of the subject see `0`, reproducing the `'\0'` that
//!   terminates every Lua string (C relies on it, e.g. a truncated
//!   sequence stops at the terminator, and `utf8.offset` may look at the
//!   byte at position `len + 1`). No read can panic.
//! * Decoding may run past the end position given to `len` or `codepoint`
//!   (as in C: a character starting inside the range is decoded whole).
//!
//! # How the glue should use this module
//!
//! * `utf8.char(...)`: for each argument in order, `luaL_checkinteger`, then
//!   [`push_char`] (which checks the range for that argument number).
//! * `utf8.charpattern`: [`CHARPATTERN`].
//! * `utf8.len(s, i, j, lax)`: [`len`] with `i` default 1, `j` default -1;
//!   `Ok(Ok(n))` returns `n`, `Ok(Err(p))` returns fail and `p`.
//! * `utf8.codepoint(s, i, j, lax)`: [`codepoint_range`] (`i` default 1,
//!   `j` default: the *translated* `i`, i.e. pass `None`); `None` means no
//!   results. Before decoding, C reserves stack room for
//!   `end - start` results (`luaL_checkstack(L, n, "string slice too
//!   long")`), so the glue must raise `stack overflow (string slice too
//!   long)` if that bound exceeds its stack limit. Then
//!   [`codepoints`] yields the values.
//! * `utf8.offset(s, n, i)`: [`offset`]; `None` returns fail.
//! * `utf8.codes(s, lax)`: returns an iterator function, `s` and `0`; each
//!   call of the iterator is [`codes_next`] with the control value
//!   (`lua_tointeger` of argument 2); `None` ends the loop.
//! * [`Utf8Error::arg`] tells argument errors (`bad argument #n to 'len'
//!   (...)`) from plain ones; the text is the `Display` form.

use std::fmt;

/// Largest valid Unicode code point (`MAXUNICODE`).
pub const MAX_UNICODE: u32 = 0x10_FFFF;

/// Largest value the (lax) encoding handles (`MAXUTF`).
pub const MAX_UTF: u32 = 0x7FFF_FFFF;

/// `utf8.charpattern`: matches exactly one UTF-8 byte sequence.
pub const CHARPATTERN: &[u8] = b"[\0-\x7F\xC2-\xFD][\x80-\xBF]*";

/// Minimum value for each sequence length, to reject overlong forms; the
/// first entry rejects a lone continuation byte.
const LIMITS: [u32; 6] = [u32::MAX, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000];

/// An error raised by the `utf8` functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utf8Error {
    /// Argument error for argument number `.0` with message `.1`.
    Arg(usize, &'static str),
    /// Plain error message.
    Msg(&'static str),
}

impl Utf8Error {
    /// The argument number for argument errors, `None` for plain errors.
    pub fn arg(&self) -> Option<usize> {
        match self {
            Self::Arg(n, _) => Some(*n),
            Self::Msg(_) => None,
        }
    }

    /// The message (without the `bad argument` decoration).
    pub fn message(&self) -> &'static str {
        match self {
            Self::Arg(_, m) | Self::Msg(m) => m,
        }
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Utf8Error {}

/// `invalid UTF-8 code`, raised by `codepoint` and the `codes` iterator.
const INVALID_CODE: Utf8Error = Utf8Error::Msg("invalid UTF-8 code");

/// Byte at `i`, or the implicit `'\0'` terminator past the end.
fn byte(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// Is the byte at `i` a continuation byte (`10xxxxxx`)?
fn is_cont(s: &[u8], i: usize) -> bool {
    byte(s, i) & 0xC0 == 0x80
}

/// `u_posrelat`: translates a relative position (negative counts from the
/// end; too negative gives 0).
fn posrelat(pos: i64, len: usize) -> i64 {
    if pos >= 0 {
        pos
    } else if pos.unsigned_abs() > len as u64 {
        0
    } else {
        len as i64 + pos + 1
    }
}

/// Appends the (extended) UTF-8 encoding of `code` (`luaO_utf8esc`), using
/// up to 6 bytes for values up to [`MAX_UTF`].
pub fn encode(code: u32, out: &mut Vec<u8>) {
    if code < 0x80 {
        out.push(code as u8);
        return;
    }
    let mut buf = [0u8; 8];
    let mut n = 0;
    let mut x = code;
    let mut mfb: u32 = 0x3f; // maximum that fits in the first byte
    loop {
        buf[7 - n] = 0x80 | (x & 0x3f) as u8;
        n += 1;
        x >>= 6;
        mfb >>= 1;
        if x <= mfb {
            break;
        }
    }
    buf[7 - n] = ((!mfb << 1) | x) as u8;
    out.extend_from_slice(&buf[7 - n..]);
}

/// `utf8.char` for one argument: checks that `code` (argument number
/// `arg`) is in `0..=MAX_UTF` and appends its encoding.
pub fn push_char(code: i64, arg: usize, out: &mut Vec<u8>) -> Result<(), Utf8Error> {
    match u32::try_from(code) {
        Ok(c) if c <= MAX_UTF => {
            encode(c, out);
            Ok(())
        }
        _ => Err(Utf8Error::Arg(arg, "value out of range")),
    }
}

/// `utf8.char(...)` over already converted arguments (argument 1 first).
pub fn char_string(codes: &[i64]) -> Result<Vec<u8>, Utf8Error> {
    let mut out = Vec::with_capacity(codes.len());
    for (i, &c) in codes.iter().enumerate() {
        push_char(c, i + 1, &mut out)?;
    }
    Ok(out)
}

/// `utf8_decode`: decodes the sequence starting at byte offset `pos`,
/// returning the value and the offset just past it, or `None` if the
/// sequence is invalid (in `strict` mode also for surrogates and values
/// above [`MAX_UNICODE`]).
pub fn decode(s: &[u8], pos: usize, strict: bool) -> Option<(u32, usize)> {
    let mut c = u32::from(byte(s, pos));
    let (res, next) = if c < 0x80 {
        (c, pos + 1)
    } else {
        let mut res: u32 = 0;
        let mut count = 0;
        while c & 0x40 != 0 {
            count += 1;
            let cc = u32::from(byte(s, pos + count));
            if cc & 0xC0 != 0x80 {
                return None;
            }
            res = (res << 6) | (cc & 0x3F);
            c <<= 1;
        }
        if count > 5 {
            return None;
        }
        res |= (c & 0x7F) << (count * 5);
        if res > MAX_UTF || res < LIMITS[count] {
            return None;
        }
        (res, pos + count + 1)
    };
    if strict && (res > MAX_UNICODE || (0xD800..=0xDFFF).contains(&res)) {
        return None;
    }
    Some((res, next))
}

/// `utf8.len(s, i, j, lax)`: `Ok(Ok(count))` for the number of characters
/// starting between positions `i` and `j`, or `Ok(Err(pos))` with the Lua
/// position of the first invalid sequence.
pub fn len(s: &[u8], i: i64, j: i64, lax: bool) -> Result<Result<i64, i64>, Utf8Error> {
    let len = s.len() as i64;
    let mut posi = posrelat(i, s.len());
    let posj = posrelat(j, s.len()) - 1;
    if !(1 <= posi && posi - 1 <= len) {
        return Err(Utf8Error::Arg(2, "initial position out of bounds"));
    }
    posi -= 1;
    if posj >= len {
        return Err(Utf8Error::Arg(3, "final position out of bounds"));
    }
    let mut n = 0;
    while posi <= posj {
        match decode(s, posi as usize, !lax) {
            None => return Ok(Err(posi + 1)),
            Some((_, next)) => posi = next as i64,
        }
        n += 1;
    }
    Ok(Ok(n))
}

/// The byte range `start..end` (0-based) whose characters
/// `utf8.codepoint(s, i, j)` returns; `j = None` defaults to the
/// translated `i`. `Ok(None)` means no results.
pub fn codepoint_range(
    len: usize,
    i: i64,
    j: Option<i64>,
) -> Result<Option<(usize, usize)>, Utf8Error> {
    let posi = posrelat(i, len);
    let pose = posrelat(j.unwrap_or(posi), len);
    if posi < 1 {
        return Err(Utf8Error::Arg(2, "out of bounds"));
    }
    if pose > len as i64 {
        return Err(Utf8Error::Arg(3, "out of bounds"));
    }
    if posi > pose {
        return Ok(None);
    }
    if pose - posi >= i64::from(i32::MAX) {
        return Err(Utf8Error::Msg("string slice too long"));
    }
    Ok(Some((posi as usize - 1, pose as usize)))
}

/// Decodes every character starting in `start..end` (from
/// [`codepoint_range`]); an invalid sequence is `invalid UTF-8 code`.
pub fn codepoints(s: &[u8], start: usize, end: usize, lax: bool) -> Result<Vec<u32>, Utf8Error> {
    let mut out = Vec::new();
    let mut pos = start;
    while pos < end {
        let (code, next) = decode(s, pos, !lax).ok_or(INVALID_CODE)?;
        out.push(code);
        pos = next;
    }
    Ok(out)
}

/// `utf8.codepoint(s, i, j, lax)` in one call (see [`codepoint_range`]
/// for the stack check the glue must make in between).
pub fn codepoint(s: &[u8], i: i64, j: Option<i64>, lax: bool) -> Result<Vec<u32>, Utf8Error> {
    match codepoint_range(s.len(), i, j)? {
        Some((start, end)) => codepoints(s, start, end, lax),
        None => Ok(Vec::new()),
    }
}

/// `utf8.offset(s, n, i)`: the Lua position where the `n`-th character
/// counting from position `i` starts (`n = 0`: the start of the character
/// containing `i`), or `None` (fail) if there is no such character.
pub fn offset(s: &[u8], n: i64, i: Option<i64>) -> Result<Option<i64>, Utf8Error> {
    let len = s.len() as i64;
    let default = if n >= 0 { 1 } else { len + 1 };
    let posi = posrelat(i.unwrap_or(default), s.len());
    if !(1 <= posi && posi - 1 <= len) {
        return Err(Utf8Error::Arg(3, "position out of bounds"));
    }
    let mut posi = (posi - 1) as usize;
    let mut n = n;
    if n == 0 {
        while posi > 0 && is_cont(s, posi) {
            posi -= 1;
        }
    } else if is_cont(s, posi) {
        return Err(Utf8Error::Msg("initial position is a continuation byte"));
    } else if n < 0 {
        while n < 0 && posi > 0 {
            posi -= 1;
            while posi > 0 && is_cont(s, posi) {
                posi -= 1;
            }
            n += 1;
        }
    } else {
        n -= 1;
        while n > 0 && posi < s.len() {
            posi += 1;
            while is_cont(s, posi) {
                posi += 1;
            }
            n -= 1;
        }
    }
    Ok((n == 0).then_some(posi as i64 + 1))
}

/// One step of the `utf8.codes` iterator (5.4.4's `iter_aux`): from the
/// control value (the previous position, 0 at the start), skips
/// continuation bytes and decodes the next character, returning its Lua
/// position and code, or `None` at the end.
pub fn codes_next(s: &[u8], control: i64, lax: bool) -> Result<Option<(i64, u32)>, Utf8Error> {
    let mut n = control as u64;
    let len = s.len() as u64;
    if n < len {
        while is_cont(s, n as usize) {
            n += 1;
        }
    }
    if n >= len {
        return Ok(None);
    }
    let (code, _) = decode(s, n as usize, !lax).ok_or(INVALID_CODE)?;
    Ok(Some((n as i64 + 1, code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn ser_err(e: Utf8Error) -> String {
        match e.arg() {
            Some(n) => format!("A:{n}:{}", hex(e.message().as_bytes())),
            None => format!("E:{}", hex(e.message().as_bytes())),
        }
    }

    fn opt(s: &str) -> Option<i64> {
        (s != "-").then(|| s.parse().unwrap())
    }

    fn ints<T: ToString>(v: impl IntoIterator<Item = T>) -> String {
        v.into_iter().map(|x| format!("i:{}", x.to_string())).collect::<Vec<_>>().join(" ")
    }

    fn run(f: &[&str]) -> String {
        let s = unhex(f[1]);
        let lax = |x: &str| x == "1";
        match f[0] {
            "L" => match len(&s, opt(f[2]).unwrap_or(1), opt(f[3]).unwrap_or(-1), lax(f[4])) {
                Ok(Ok(n)) => format!("i:{n}"),
                Ok(Err(p)) => format!("N i:{p}"),
                Err(e) => ser_err(e),
            },
            "C" => match codepoint(&s, opt(f[2]).unwrap_or(1), opt(f[3]), lax(f[4])) {
                Ok(v) => ints(v),
                Err(e) => ser_err(e),
            },
            "O" => match offset(&s, f[2].parse().unwrap(), opt(f[3])) {
                Ok(Some(p)) => format!("i:{p}"),
                Ok(None) => "N".into(),
                Err(e) => ser_err(e),
            },
            "I" => {
                let mut parts = Vec::new();
                let mut ctl = 0;
                loop {
                    match codes_next(&s, ctl, lax(f[2])) {
                        Ok(Some((p, c))) => {
                            parts.push(format!("{p}:{c}"));
                            ctl = p;
                        }
                        Ok(None) => break,
                        Err(e) => {
                            parts.push(ser_err(e));
                            break;
                        }
                    }
                }
                parts.join(" ")
            }
            "H" => {
                let codes: Vec<i64> =
                    f[2].split(' ').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect();
                match char_string(&codes) {
                    Ok(v) => format!("s:{}", hex(&v)),
                    Err(e) => ser_err(e),
                }
            }
            k => panic!("unknown kind {k}"),
        }
    }

    #[test]
    fn generated_cases() {
        let data = include_str!("../testdata/utf8.txt");
        let mut n = 0;
        for line in data.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(run(&f), f[f.len() - 1], "line {line}");
            n += 1;
        }
        assert!(n > 1000, "only {n} cases");
    }

    #[test]
    fn charpattern_and_round_trip() {
        assert_eq!(CHARPATTERN.len(), 14);
        for code in [0, 0x7f, 0x80, 0x7ff, 0x800, 0xffff, 0x10000, 0x10ffff, 0x7fff_ffff] {
            let mut v = Vec::new();
            encode(code, &mut v);
            assert_eq!(decode(&v, 0, false), Some((code, v.len())));
        }
        let mut v = Vec::new();
        encode(u32::MAX, &mut v);
        assert_eq!(v.len(), 7);
    }
}
