//! The engine of `string.pack`, `string.unpack` and `string.packsize`, a
//! port of the PACK/UNPACK section of Lua 5.4.4's `lstrlib.c` for the
//! x86_64 ABI (little endian; `short` 2, `int` 4, `long`/`size_t`/
//! `lua_Integer`/`lua_Number` 8 bytes; default maximum alignment 8).
//!
//! # Design
//!
//! A format string is read one option at a time by `FormatReader`, the
//! equivalent of C's `getoption`/`getdetails`: it yields the option kind,
//! its size and the padding needed to align it, and carries the `Header`
//! state (endianness set by `< > =`, maximum alignment set by `!`). The
//! three entry points drive that reader:
//!
//! * [`pack_with`] asks an argument source ([`PackArgs`]) for each value in
//!   the order C's `str_pack` calls `luaL_checkinteger`/`luaL_checknumber`/
//!   `luaL_checklstring`, so argument conversion errors, overflow errors and
//!   format errors surface in exactly the same order as in C. [`pack`] is a
//!   convenience wrapper over a slice of [`PackValue`]s.
//! * [`unpack`] returns the decoded values and the next position.
//! * [`packsize`] returns the fixed size of a format.
//!
//! # Invariants
//!
//! * The format string ends at its first `'\0'` byte (C reads it with
//!   `luaL_checkstring`), and option parsing reads `0` past its end.
//! * Integral sizes are in `1..=16`; a `c` size is below 2^31; the maximum
//!   alignment is in `1..=16`.
//! * In `unpack`, the current position never exceeds the data length; every
//!   read is bounds-checked before it happens, so no input can panic.
//! * Output buffers grow with `try_reserve`, so an absurd `c` size yields
//!   [`PackError::Memory`] instead of aborting the process.
//!
//! # Errors
//!
//! [`PackError::Arg`] is an argument error: the glue raises
//! `bad argument #<n> to '<fname>' (<msg>)` (as `luaL_argerror`).
//! [`PackError::Msg`] is raised as is (as `luaL_error`; its bytes may be
//! non-UTF-8, e.g. `invalid format option '\xff'`). [`PackError::Memory`]
//! is a memory error.
//!
//! Not handled here (glue): `unpack` in C checks `luaL_checkstack(L, 2,
//! "too many results")` before each item; with the default stack limit of
//! 1,000,000 slots the glue should raise `stack overflow (too many
//! results)` if the returned value count does not fit its stack.

use luprex_vm::raw::number::{float_to_int, float_to_string, F2I};
use std::borrow::Cow;
use std::fmt;

/// Maximum size of a packed integer (`MAXINTSIZE`).
const MAX_INT_SIZE: i32 = 16;

/// Size of a `lua_Integer` (`SZINT`).
const SZINT: usize = 8;

/// Largest size of a format result (`MAXSIZE` = `INT_MAX` on x86_64).
const MAX_SIZE: usize = i32::MAX as usize;

/// Native maximum alignment (`offsetof(struct cD, u)` on x86_64).
const NATIVE_MAX_ALIGN: i32 = 8;

/// A value given to `pack` or returned by `unpack`.
#[derive(Debug, Clone, PartialEq)]
pub enum PackValue {
    /// A Lua integer.
    Int(i64),
    /// A Lua float.
    Float(f64),
    /// A Lua string.
    Str(Vec<u8>),
}

/// An error from the pack engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackError {
    /// An argument error for argument number `.0` (1 = the format).
    Arg(usize, String),
    /// A plain error message (may contain a non-UTF-8 byte).
    Msg(Vec<u8>),
    /// The result could not be allocated.
    Memory,
}

impl PackError {
    fn arg(n: usize, msg: &str) -> Self {
        Self::Arg(n, msg.to_owned())
    }

    fn msg(msg: String) -> Self {
        Self::Msg(msg.into_bytes())
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Arg(n, msg) => write!(f, "bad argument #{n} ({msg})"),
            Self::Msg(msg) => f.write_str(&String::from_utf8_lossy(msg)),
            Self::Memory => f.write_str("not enough memory"),
        }
    }
}

impl std::error::Error for PackError {}

/// The source of the values packed by [`pack_with`], mirroring the C
/// argument checks. `arg` is the Lua argument number (values start at 2).
pub trait PackArgs {
    /// The error type; pack errors convert into it.
    type Error: From<PackError>;
    /// `luaL_checkinteger(L, arg)`.
    fn integer(&mut self, arg: usize) -> Result<i64, Self::Error>;
    /// `luaL_checknumber(L, arg)`.
    fn number(&mut self, arg: usize) -> Result<f64, Self::Error>;
    /// `luaL_checklstring(L, arg)` (numbers are converted to strings).
    fn string(&mut self, arg: usize) -> Result<Cow<'_, [u8]>, Self::Error>;
    /// Called after each format item with the bytes it appended, so that
    /// the glue can charge the work to an instruction budget (the default
    /// does nothing).
    fn work(&mut self, _bytes: usize) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// [`PackArgs`] over a slice of values (`values[0]` is argument 2).
///
/// A missing argument is reported as `... expected, got nil`, as in C
/// (where `str_pack` pushes a nil mark after its arguments); glue that
/// implements [`PackArgs`] itself must do the same.
///
/// Conversions follow Lua for numbers (a float converts to an integer only
/// if it has an exact integer value; numbers convert to strings as
/// `tostring` does). Not supported, unlike Lua: numeric strings where
/// numbers are expected are reported as type errors (`number expected, got
/// string`); glue that needs them should implement [`PackArgs`].
#[derive(Debug, Clone, Copy)]
pub struct ValueArgs<'a>(pub &'a [PackValue]);

impl ValueArgs<'_> {
    fn get(&self, arg: usize) -> Option<&PackValue> {
        self.0.get(arg.checked_sub(2)?)
    }

    fn type_error(&self, arg: usize, expected: &str) -> PackError {
        // C's str_pack pushes a nil mark right after the arguments, so the
        // first missing argument is reported as "got nil", not "no value".
        let got = match self.get(arg) {
            None => "nil",
            Some(PackValue::Str(_)) => "string",
            Some(_) => "number",
        };
        PackError::Arg(arg, format!("{expected} expected, got {got}"))
    }
}

impl PackArgs for ValueArgs<'_> {
    type Error = PackError;

    fn integer(&mut self, arg: usize) -> Result<i64, PackError> {
        match self.get(arg) {
            Some(PackValue::Int(i)) => Ok(*i),
            Some(PackValue::Float(f)) => float_to_int(*f, F2I::Exact)
                .ok_or_else(|| PackError::arg(arg, "number has no integer representation")),
            _ => Err(self.type_error(arg, "number")),
        }
    }

    fn number(&mut self, arg: usize) -> Result<f64, PackError> {
        match self.get(arg) {
            Some(PackValue::Int(i)) => Ok(*i as f64),
            Some(PackValue::Float(f)) => Ok(*f),
            _ => Err(self.type_error(arg, "number")),
        }
    }

    fn string(&mut self, arg: usize) -> Result<Cow<'_, [u8]>, PackError> {
        match self.get(arg) {
            Some(PackValue::Str(s)) => Ok(Cow::Borrowed(s)),
            Some(PackValue::Int(i)) => Ok(Cow::Owned(i.to_string().into_bytes())),
            Some(PackValue::Float(f)) => Ok(Cow::Owned(float_to_string(*f).into_bytes())),
            None => Err(self.type_error(arg, "string")),
        }
    }
}

/// Option kinds (`KOption`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Signed integer.
    Int,
    /// Unsigned integer.
    Uint,
    /// C `float`.
    Float,
    /// Lua number or C `double`.
    Double,
    /// Fixed-size string.
    Char,
    /// Length-prefixed string.
    Str,
    /// Zero-terminated string.
    Zstr,
    /// One byte of padding.
    Padding,
    /// Alignment padding (`X`).
    PadAlign,
    /// Configuration or space.
    Nop,
}

/// One parsed option: kind, size in bytes and alignment padding.
#[derive(Debug, Clone, Copy)]
struct Item {
    kind: Kind,
    size: usize,
    ntoalign: usize,
}

/// Reads a format string option by option (C's `Header` plus `fmt`).
struct FormatReader<'a> {
    fmt: &'a [u8],
    pos: usize,
    little: bool,
    max_align: usize,
}

impl<'a> FormatReader<'a> {
    fn new(fmt: &'a [u8]) -> Self {
        let end = fmt.iter().position(|&b| b == 0).unwrap_or(fmt.len());
        Self { fmt: &fmt[..end], pos: 0, little: true, max_align: 1 }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.fmt.len()
    }

    /// Current format byte, `0` at the end.
    fn peek(&self) -> u8 {
        self.fmt.get(self.pos).copied().unwrap_or(0)
    }

    /// `getnum`: an optional decimal numeral, or `default`.
    fn number(&mut self, default: i32) -> i32 {
        if !self.peek().is_ascii_digit() {
            return default;
        }
        let mut a: i32 = 0;
        loop {
            a = a * 10 + i32::from(self.peek() - b'0');
            self.pos += 1;
            if !(self.peek().is_ascii_digit() && a <= (i32::MAX - 9) / 10) {
                return a;
            }
        }
    }

    /// `getnumlimit`: a size in `1..=16`.
    fn size_limit(&mut self, default: i32) -> Result<usize, PackError> {
        let sz = self.number(default);
        if sz > MAX_INT_SIZE || sz <= 0 {
            return Err(PackError::msg(format!(
                "integral size ({sz}) out of limits [1,{MAX_INT_SIZE}]"
            )));
        }
        Ok(sz as usize)
    }

    /// `getoption`: the next option and its size.
    fn option(&mut self) -> Result<(Kind, usize), PackError> {
        let opt = self.peek();
        self.pos += 1;
        let r = match opt {
            b'b' => (Kind::Int, 1),
            b'B' => (Kind::Uint, 1),
            b'h' => (Kind::Int, 2),
            b'H' => (Kind::Uint, 2),
            b'l' | b'j' => (Kind::Int, 8),
            b'L' | b'J' | b'T' => (Kind::Uint, 8),
            b'f' => (Kind::Float, 4),
            b'n' | b'd' => (Kind::Double, 8),
            b'i' => (Kind::Int, self.size_limit(4)?),
            b'I' => (Kind::Uint, self.size_limit(4)?),
            b's' => (Kind::Str, self.size_limit(8)?),
            b'c' => match self.number(-1) {
                -1 => return Err(PackError::msg("missing size for format option 'c'".into())),
                n => (Kind::Char, n as usize),
            },
            b'z' => (Kind::Zstr, 0),
            b'x' => (Kind::Padding, 1),
            b'X' => (Kind::PadAlign, 0),
            b' ' => (Kind::Nop, 0),
            b'<' | b'=' => {
                self.little = true;
                (Kind::Nop, 0)
            }
            b'>' => {
                self.little = false;
                (Kind::Nop, 0)
            }
            b'!' => {
                self.max_align = self.size_limit(NATIVE_MAX_ALIGN)?;
                (Kind::Nop, 0)
            }
            _ => {
                let mut msg = b"invalid format option '".to_vec();
                msg.extend_from_slice(&[opt, b'\'']);
                return Err(PackError::Msg(msg));
            }
        };
        Ok(r)
    }

    /// `getdetails`: the next option with the padding that aligns it at
    /// offset `total`.
    fn item(&mut self, total: usize) -> Result<Item, PackError> {
        let (kind, size) = self.option()?;
        let mut align = size;
        if kind == Kind::PadAlign {
            let bad = self.at_end() || {
                let (next, next_size) = self.option()?;
                align = next_size;
                next == Kind::Char || align == 0
            };
            if bad {
                return Err(PackError::arg(1, "invalid next option for option 'X'"));
            }
        }
        let ntoalign = if align <= 1 || kind == Kind::Char {
            0
        } else {
            let align = align.min(self.max_align);
            if !align.is_power_of_two() {
                return Err(PackError::arg(1, "format asks for alignment not power of 2"));
            }
            (align - (total & (align - 1))) & (align - 1)
        };
        Ok(Item { kind, size, ntoalign })
    }
}

/// Grows `out` by `n` copies of `byte`, failing cleanly on allocation
/// failure.
fn fill(out: &mut Vec<u8>, n: usize, byte: u8) -> Result<(), PackError> {
    out.try_reserve(n).map_err(|_| PackError::Memory)?;
    out.resize(out.len() + n, byte);
    Ok(())
}

/// Appends `bytes`, failing cleanly on allocation failure.
fn append(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), PackError> {
    out.try_reserve(bytes.len()).map_err(|_| PackError::Memory)?;
    out.extend_from_slice(bytes);
    Ok(())
}

/// `packint`: `size` bytes of `n`, sign-extended with `0xff` bytes past the
/// eighth if `neg`.
fn pack_int(out: &mut Vec<u8>, n: u64, little: bool, size: usize, neg: bool) {
    let mut bytes = [0u8; MAX_INT_SIZE as usize];
    for (i, b) in bytes.iter_mut().enumerate().take(size) {
        *b = if i < SZINT {
            (n >> (8 * i)) as u8
        } else if neg {
            0xff
        } else {
            0
        };
    }
    let bytes = &mut bytes[..size];
    if !little {
        bytes.reverse();
    }
    out.extend_from_slice(bytes);
}

/// Appends a float's native bytes in the requested byte order.
fn pack_bytes<const N: usize>(out: &mut Vec<u8>, le: [u8; N], little: bool) {
    let mut b = le;
    if !little {
        b.reverse();
    }
    out.extend_from_slice(&b);
}

/// `string.pack` over a slice of values (see [`ValueArgs`]).
pub fn pack(fmt: &[u8], values: &[PackValue]) -> Result<Vec<u8>, PackError> {
    pack_with(fmt, &mut ValueArgs(values))
}

/// `string.pack`, fetching each value from `args` when C would.
pub fn pack_with<A: PackArgs>(fmt: &[u8], args: &mut A) -> Result<Vec<u8>, A::Error> {
    let mut rd = FormatReader::new(fmt);
    let mut out = Vec::new();
    let mut total: usize = 0;
    let mut arg = 1;
    while !rd.at_end() {
        let item = rd.item(total)?;
        // The sizes are known before the bytes are written (a `cN` item
        // pads up to `N` bytes); strings are charged once copied.
        args.work(item.ntoalign.saturating_add(item.size))?;
        total = total.wrapping_add(item.ntoalign).wrapping_add(item.size);
        fill(&mut out, item.ntoalign, 0)?;
        arg += 1;
        match item.kind {
            Kind::Int | Kind::Uint => {
                pack_integer(&mut out, rd.little, item, arg, args.integer(arg)?)?
            }
            Kind::Float => {
                pack_bytes(&mut out, (args.number(arg)? as f32).to_le_bytes(), rd.little)
            }
            Kind::Double => pack_bytes(&mut out, args.number(arg)?.to_le_bytes(), rd.little),
            Kind::Char => pack_char(&mut out, item.size, arg, &args.string(arg)?)?,
            Kind::Str => {
                let s = args.string(arg)?;
                pack_lstring(&mut out, rd.little, item.size, arg, &s)?;
                let n = s.len();
                total = total.wrapping_add(n);
                args.work(n)?;
            }
            Kind::Zstr => {
                let s = args.string(arg)?;
                pack_zstring(&mut out, arg, &s)?;
                let n = s.len();
                total = total.wrapping_add(n + 1);
                args.work(n)?;
            }
            Kind::Padding | Kind::PadAlign | Kind::Nop => {
                if item.kind == Kind::Padding {
                    out.push(0);
                }
                arg -= 1;
            }
        }
    }
    Ok(out)
}

/// Packs integer `n` for a `Kind::Int`/`Kind::Uint` item with overflow
/// checks.
fn pack_integer(
    out: &mut Vec<u8>,
    little: bool,
    item: Item,
    arg: usize,
    n: i64,
) -> Result<(), PackError> {
    let size = item.size;
    if item.kind == Kind::Int {
        if size < SZINT {
            let lim = 1i64 << (size * 8 - 1);
            if !(-lim <= n && n < lim) {
                return Err(PackError::arg(arg, "integer overflow"));
            }
        }
        pack_int(out, n as u64, little, size, n < 0);
    } else {
        if size < SZINT && (n as u64) >= (1u64 << (size * 8)) {
            return Err(PackError::arg(arg, "unsigned overflow"));
        }
        pack_int(out, n as u64, little, size, false);
    }
    Ok(())
}

/// `cN`: the string padded with zeros to `size` bytes.
fn pack_char(out: &mut Vec<u8>, size: usize, arg: usize, s: &[u8]) -> Result<(), PackError> {
    if s.len() > size {
        return Err(PackError::arg(arg, "string longer than given size"));
    }
    append(out, s)?;
    fill(out, size - s.len(), 0)
}

/// `sN`: the length as an N-byte unsigned integer, then the string.
fn pack_lstring(
    out: &mut Vec<u8>,
    little: bool,
    size: usize,
    arg: usize,
    s: &[u8],
) -> Result<(), PackError> {
    let len = s.len() as u64;
    if !(size >= SZINT || len < (1u64 << (size * 8))) {
        return Err(PackError::arg(arg, "string length does not fit in given size"));
    }
    pack_int(out, len, little, size, false);
    append(out, s)
}

/// `z`: the string and a terminating zero.
fn pack_zstring(out: &mut Vec<u8>, arg: usize, s: &[u8]) -> Result<(), PackError> {
    if s.contains(&0) {
        return Err(PackError::arg(arg, "string contains zeros"));
    }
    append(out, s)?;
    out.push(0);
    Ok(())
}

/// `string.packsize`: the size of a fixed-size format.
pub fn packsize(fmt: &[u8]) -> Result<i64, PackError> {
    let mut rd = FormatReader::new(fmt);
    let mut total: usize = 0;
    while !rd.at_end() {
        let item = rd.item(total)?;
        if matches!(item.kind, Kind::Str | Kind::Zstr) {
            return Err(PackError::arg(1, "variable-length format"));
        }
        let size = item.size + item.ntoalign;
        if size > MAX_SIZE || total > MAX_SIZE - size {
            return Err(PackError::arg(1, "format result too large"));
        }
        total += size;
    }
    Ok(total as i64)
}

/// `posrelatI(pos, len)` from `lstrlib.c`: a 1-based position clipped to
/// `[1, inf)`.
fn posrelat_i(pos: i64, len: usize) -> usize {
    if pos > 0 {
        usize::try_from(pos).unwrap_or(usize::MAX)
    } else if pos == 0 || pos.unsigned_abs() > len as u64 {
        1
    } else {
        len - pos.unsigned_abs() as usize + 1
    }
}

/// The result of [`unpack`].
#[derive(Debug, Clone, PartialEq)]
pub struct Unpacked {
    /// The decoded values.
    pub values: Vec<PackValue>,
    /// The 1-based position after the last byte read (the last result).
    pub next: i64,
}

/// `string.unpack(fmt, data, init)`; `init` is the Lua argument (default 1).
pub fn unpack(fmt: &[u8], data: &[u8], init: i64) -> Result<Unpacked, PackError> {
    let ld = data.len();
    let mut pos = posrelat_i(init, ld) - 1;
    if pos > ld {
        return Err(PackError::arg(3, "initial position out of string"));
    }
    let mut rd = FormatReader::new(fmt);
    let mut values = Vec::new();
    while !rd.at_end() {
        let item = rd.item(pos)?;
        if item.ntoalign.saturating_add(item.size) > ld - pos {
            return Err(PackError::arg(2, "data string too short"));
        }
        pos += item.ntoalign;
        let field = &data[pos..pos + item.size];
        let value = match item.kind {
            Kind::Int | Kind::Uint => {
                Some(PackValue::Int(unpack_int(field, rd.little, item.kind == Kind::Int)?))
            }
            Kind::Float => {
                Some(PackValue::Float(f64::from(f32::from_le_bytes(le(field, rd.little)))))
            }
            Kind::Double => Some(PackValue::Float(f64::from_le_bytes(le(field, rd.little)))),
            Kind::Char => Some(PackValue::Str(field.to_vec())),
            Kind::Str => {
                let len = unpack_int(field, rd.little, false)? as u64;
                let avail = (ld - pos - item.size) as u64;
                if len > avail {
                    return Err(PackError::arg(2, "data string too short"));
                }
                let start = pos + item.size;
                pos += len as usize;
                Some(PackValue::Str(data[start..start + len as usize].to_vec()))
            }
            Kind::Zstr => {
                let len = data[pos..].iter().position(|&b| b == 0).unwrap_or(ld - pos);
                if pos + len >= ld {
                    return Err(PackError::arg(2, "unfinished string for format 'z'"));
                }
                let s = data[pos..pos + len].to_vec();
                pos += len + 1;
                Some(PackValue::Str(s))
            }
            Kind::Padding | Kind::PadAlign | Kind::Nop => None,
        };
        values.extend(value);
        pos += item.size;
    }
    Ok(Unpacked { values, next: pos as i64 + 1 })
}

/// Copies an N-byte field into little-endian order.
fn le<const N: usize>(field: &[u8], little: bool) -> [u8; N] {
    let mut b = [0u8; N];
    for (i, x) in b.iter_mut().enumerate() {
        let j = if little { i } else { N - 1 - i };
        *x = field.get(j).copied().unwrap_or(0);
    }
    b
}

/// `unpackint`: decodes a 1..=16-byte integer, sign-extending short signed
/// values and checking that the extra bytes of long ones are only sign
/// extension.
fn unpack_int(field: &[u8], little: bool, signed: bool) -> Result<i64, PackError> {
    let size = field.len();
    let byte = |i: usize| if little { field[i] } else { field[size - 1 - i] };
    let limit = size.min(SZINT);
    let mut res: u64 = 0;
    for i in (0..limit).rev() {
        res = (res << 8) | u64::from(byte(i));
    }
    if size < SZINT {
        if signed {
            let mask = 1u64 << (size * 8 - 1);
            res = (res ^ mask).wrapping_sub(mask);
        }
    } else if size > SZINT {
        let mask = if !signed || (res as i64) >= 0 { 0 } else { 0xff };
        if (limit..size).any(|i| byte(i) != mask) {
            return Err(PackError::msg(format!(
                "{size}-byte integer does not fit into Lua Integer"
            )));
        }
    }
    Ok(res as i64)
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

    fn parse_value(s: &str) -> PackValue {
        let (tag, v) = s.split_once(':').unwrap();
        match tag {
            "i" => PackValue::Int(v.parse().unwrap()),
            "f" => PackValue::Float(f64::from_bits(u64::from_str_radix(v, 16).unwrap())),
            "s" => PackValue::Str(unhex(v)),
            _ => panic!("bad value {s}"),
        }
    }

    fn ser_value(v: &PackValue) -> String {
        match v {
            PackValue::Int(i) => format!("i:{i}"),
            PackValue::Float(f) => format!("f:{:016x}", f.to_bits()),
            PackValue::Str(s) => format!("s:{}", hex(s)),
        }
    }

    fn ser_err(e: &PackError) -> String {
        match e {
            PackError::Arg(n, m) => format!("A:{n}:{}", hex(m.as_bytes())),
            PackError::Msg(m) => format!("E:{}", hex(m)),
            PackError::Memory => "E:memory".into(),
        }
    }

    #[test]
    fn generated_cases() {
        let data = include_str!("../testdata/pack.txt");
        let mut n = 0;
        for line in data.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let fmt = unhex(f[1]);
            let got = match f[0] {
                "P" => {
                    let args: Vec<PackValue> =
                        f[2].split(' ').filter(|s| !s.is_empty()).map(parse_value).collect();
                    match pack(&fmt, &args) {
                        Ok(s) => format!("s:{}", hex(&s)),
                        Err(e) => ser_err(&e),
                    }
                }
                "U" => match unpack(&fmt, &unhex(f[2]), f[3].parse().unwrap()) {
                    Ok(u) => {
                        let mut v: Vec<String> = u.values.iter().map(ser_value).collect();
                        v.push(format!("i:{}", u.next));
                        v.join(" ")
                    }
                    Err(e) => ser_err(&e),
                },
                "Z" => match packsize(&fmt) {
                    Ok(n) => format!("i:{n}"),
                    Err(e) => ser_err(&e),
                },
                k => panic!("unknown kind {k}"),
            };
            assert_eq!(got, f[f.len() - 1], "line {line}");
            n += 1;
        }
        assert!(n > 1000, "only {n} cases");
    }

    #[test]
    fn huge_sizes_fail_cleanly() {
        assert_eq!(packsize(b"c2147483639c9"), Err(PackError::arg(1, "format result too large")));
        assert_eq!(
            packsize(b"c99999999999"),
            Err(PackError::Msg(b"invalid format option '9'".to_vec()))
        );
        let r = unpack(b"c2000000000", b"abc", 1);
        assert_eq!(r, Err(PackError::arg(2, "data string too short")));
        let r = unpack(b"s8", &[0xff; 8], 1);
        assert_eq!(r, Err(PackError::arg(2, "data string too short")));
        assert_eq!(unpack(b"i4", b"abcd", i64::MIN).unwrap().next, 5);
    }
}
