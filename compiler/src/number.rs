//! Lua 5.4's numbers: the one home of their rules.
//!
//! # What this module is
//!
//! Everything Lua says about numbers that does not depend on where the
//! numbers live: reading a numeral, the arithmetic and bitwise operators,
//! converting between floats and integers, comparing an integer with a
//! float, and printing a number. The lexer reads numerals with it, the
//! constant folder folds with it, and the virtual machine (which depends on
//! this crate, never the other way round) runs every operator, `tonumber`,
//! `tostring`, `string.format` and string coercion through it. A rule is
//! written here once; nothing else may restate it.
//!
//! # Design
//!
//! The functions are plain, total functions on `i64`, `f64` and byte
//! strings, each a transcription of one piece of PUC Lua 5.4 and named in
//! its documentation:
//!
//! * [`arith`] is `luaO_rawarith` with `luaV_idiv`/`luaV_mod`'s errors: the
//!   operator table for two numbers. It is built from the per-type
//!   operations ([`int_floor_div`], [`int_mod`], [`float_floor_div`],
//!   [`float_mod`], [`float_pow`], [`shift_left`], [`shift_right`]) that the
//!   dispatch loop also calls directly on its fast paths;
//! * [`float_to_int`] is `luaV_flttointns` (`lua_numbertointeger` and the
//!   floor/ceiling modes the numeric `for` needs);
//! * the mixed comparisons ([`lt_int_float`] and friends, `LTintfloat` in
//!   `lvm.c`) are exact: an integer that fits a float's mantissa is compared
//!   as a float, any other with the float rounded in the direction that
//!   keeps the answer exact;
//! * [`str_to_number`] is `luaO_str2num` (`l_str2int`, then `strtod`
//!   without `inf`/`nan`): decimal floats are correctly rounded (Rust's
//!   parser), hexadecimal floats are assembled here, also correctly rounded
//!   (ties to even, gradual underflow), as glibc's `strtod` does;
//! * [`fmt_int`] and [`fmt_float`] are `tostring` (`lua_Integer2str`, and
//!   `LUAI_NUMFFORMAT` `%.14g` plus `.0` when the result looks like an
//!   integer); [`mod@format`] is the glibc-identical `printf` under them and
//!   under `string.format`.
//!
//! The per-type operations are on the interpreter's hot path and cross a
//! crate boundary, so they are `#[inline]`: the dispatch loop compiles them
//! in place, exactly as if they were written there.
//!
//! # Invariants
//!
//! * No function here panics, whatever its input. Where Lua raises an error
//!   (integer division by zero, a bitwise operand without an integer
//!   value) [`arith`] returns an [`ArithError`] and leaves the message to
//!   the caller; the per-type operations return a harmless value (0).
//! * Integers wrap around (two's complement), never saturate or trap.
//! * `ArithOp`'s discriminants are the metamethod event numbers (`TM_ADD`
//!   ..`TM_BNOT` of `ltm.h`), so the VM indexes its event table with them.

pub mod format;

use format::{format_float, Spec};

/// A Lua number: an integer or a float (a numeral's value, or an operand).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Number {
    /// The value as a float (`tonumber` of an integer, `cast_num`).
    #[inline]
    pub fn to_float(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// The value as an integer if it has an exact one (`tointegerns` in
    /// mode `F2Ieq`).
    #[inline]
    pub fn to_int(self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(i),
            Number::Float(f) => float_to_int(f, F2I::Exact),
        }
    }
}

/// The arithmetic and bitwise operators, numbered as their metamethod
/// events (`TM_ADD` = 6 .. `TM_BNOT`, the order of `luaO_arith`'s `LUA_OP*`
/// shifted by 6). The unary ones take a dummy second operand, as in
/// `luaK_prefix` and `luaT_trybinTM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ArithOp {
    /// `+`
    Add = 6,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `%`
    Mod,
    /// `^`
    Pow,
    /// `/`
    Div,
    /// `//`
    IDiv,
    /// `&`
    BAnd,
    /// `|`
    BOr,
    /// `~`
    BXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// unary `-`
    Unm,
    /// unary `~`
    BNot,
}

impl ArithOp {
    /// The metamethod event index (`TM_ADD` ..).
    #[inline]
    pub fn tm(self) -> usize {
        self as usize
    }

    /// Whether the operator is bitwise (its operands must have integer
    /// values).
    #[inline]
    pub fn is_bitwise(self) -> bool {
        matches!(
            self,
            ArithOp::BAnd
                | ArithOp::BOr
                | ArithOp::BXor
                | ArithOp::Shl
                | ArithOp::Shr
                | ArithOp::BNot
        )
    }
}

/// Why [`arith`] has no result: the cases where Lua raises an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// A bitwise operand is a float without an exact integer value.
    NoInteger,
    /// Integer `%` by zero (`attempt to perform 'n%%0'`).
    ModByZero,
    /// Integer `//` by zero (`attempt to divide by zero`).
    DivByZero,
}

/// `luaO_rawarith`: `a op b` with Lua's conversion rules. Bitwise
/// operators work on the operands' exact integer values; `/` and `^` always
/// on floats; the others on integers when both operands are integers, else
/// on floats.
#[inline]
pub fn arith(op: ArithOp, a: Number, b: Number) -> Result<Number, ArithError> {
    use ArithOp::*;
    if op.is_bitwise() {
        let (Some(x), Some(y)) = (a.to_int(), b.to_int()) else {
            return Err(ArithError::NoInteger);
        };
        return Ok(Number::Int(match op {
            BAnd => x & y,
            BOr => x | y,
            BXor => x ^ y,
            Shl => shift_left(x, y),
            Shr => shift_right(x, y),
            _ => !x,
        }));
    }
    if let (Number::Int(x), Number::Int(y)) = (a, b) {
        match op {
            Add => return Ok(Number::Int(x.wrapping_add(y))),
            Sub => return Ok(Number::Int(x.wrapping_sub(y))),
            Mul => return Ok(Number::Int(x.wrapping_mul(y))),
            Mod if y == 0 => return Err(ArithError::ModByZero),
            Mod => return Ok(Number::Int(int_mod(x, y))),
            IDiv if y == 0 => return Err(ArithError::DivByZero),
            IDiv => return Ok(Number::Int(int_floor_div(x, y))),
            Unm => return Ok(Number::Int(x.wrapping_neg())),
            _ => {}
        }
    }
    let (x, y) = (a.to_float(), b.to_float());
    Ok(Number::Float(match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Mod => float_mod(x, y),
        Pow => float_pow(x, y),
        Div => x / y,
        IDiv => float_floor_div(x, y),
        _ => -x,
    }))
}

/// Rounding mode for [`float_to_int`] (`lvm.c`'s `F2Imod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F2I {
    /// Only integral values convert.
    Exact,
    /// Take the floor of the value.
    Floor,
    /// Take the ceiling of the value.
    Ceil,
}

/// 2^63 as a float: the first float above the integer range.
const TWO63: f64 = 9_223_372_036_854_775_808.0;

/// Converts a float to an integer (`luaV_flttointns`): `None` when the
/// value is NaN, out of range, or (in `Exact` mode) not integral.
#[inline]
pub fn float_to_int(f: f64, mode: F2I) -> Option<i64> {
    let mut fl = f.floor();
    if f != fl {
        match mode {
            F2I::Exact => return None,
            F2I::Floor => {}
            F2I::Ceil => fl += 1.0,
        }
    }
    if (-TWO63..TWO63).contains(&fl) {
        Some(fl as i64)
    } else {
        None
    }
}

/// Whether `i` converts to a float exactly (|i| <= 2^53), `l_intfitsf`.
#[inline(always)]
fn int_fits_float(i: i64) -> bool {
    const NBM: u32 = f64::MANTISSA_DIGITS;
    (i as u64).wrapping_add(1 << NBM) <= (2u64 << NBM)
}

/// Exact equality of an integer and a float (`1 == 1.0`; `2^53+1 ~= 2^53`).
#[inline]
pub fn int_eq_float(i: i64, f: f64) -> bool {
    float_to_int(f, F2I::Exact) == Some(i)
}

/// Exact `i < f` (`LTintfloat`).
#[inline]
pub fn lt_int_float(i: i64, f: f64) -> bool {
    if int_fits_float(i) {
        (i as f64) < f
    } else {
        match float_to_int(f, F2I::Ceil) {
            Some(fi) => i < fi,
            None => f > 0.0,
        }
    }
}

/// Exact `i <= f` (`LEintfloat`).
#[inline]
pub fn le_int_float(i: i64, f: f64) -> bool {
    if int_fits_float(i) {
        (i as f64) <= f
    } else {
        match float_to_int(f, F2I::Floor) {
            Some(fi) => i <= fi,
            None => f > 0.0,
        }
    }
}

/// Exact `f < i` (`LTfloatint`).
#[inline]
pub fn lt_float_int(f: f64, i: i64) -> bool {
    if int_fits_float(i) {
        f < (i as f64)
    } else {
        match float_to_int(f, F2I::Floor) {
            Some(fi) => fi < i,
            None => f < 0.0,
        }
    }
}

/// Exact `f <= i` (`LEfloatint`).
#[inline]
pub fn le_float_int(f: f64, i: i64) -> bool {
    if int_fits_float(i) {
        f <= (i as f64)
    } else {
        match float_to_int(f, F2I::Ceil) {
            Some(fi) => fi <= i,
            None => f < 0.0,
        }
    }
}

/// Integer floor division `a // b` (`luaV_idiv`). The caller raises
/// "attempt to divide by zero" for `b == 0`; here it yields 0.
/// `i64::MIN // -1` wraps to `i64::MIN`.
#[inline]
pub fn int_floor_div(a: i64, b: i64) -> i64 {
    if (b as u64).wrapping_add(1) <= 1 {
        // b is 0 or -1
        return if b == 0 { 0 } else { a.wrapping_neg() };
    }
    let q = a / b;
    if (a ^ b) < 0 && a % b != 0 {
        q - 1
    } else {
        q
    }
}

/// Integer modulo `a % b` with the sign of `b` (`luaV_mod`). The caller
/// raises "attempt to perform 'n%%0'" for `b == 0`; here it yields 0.
#[inline]
pub fn int_mod(a: i64, b: i64) -> i64 {
    if (b as u64).wrapping_add(1) <= 1 {
        return 0;
    }
    let r = a % b;
    if r != 0 && (r ^ b) < 0 {
        r + b
    } else {
        r
    }
}

/// Float floor division `a // b` (`luai_numidiv`: `floor(a / b)`).
#[inline]
pub fn float_floor_div(a: f64, b: f64) -> f64 {
    (a / b).floor()
}

/// Float modulo (`luai_nummod`): `fmod`, then corrected so that a nonzero
/// result has the divisor's sign. `x % inf` is `x` for finite
/// nonnegative `x`, `inf` for negative `x`; `inf % y` and `x % 0` are NaN.
#[inline]
pub fn float_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if (m > 0.0 && b < 0.0) || (m < 0.0 && b != m && b > 0.0) {
        m + b
    } else {
        m
    }
}

/// Float exponentiation (`luai_numpow`): `a*a` for `b == 2`, else `pow`.
#[inline]
pub fn float_pow(a: f64, b: f64) -> f64 {
    if b == 2.0 {
        a * a
    } else {
        a.powf(b)
    }
}

/// Logical shift left (`luaV_shiftl`): negative `n` shifts right
/// (logically, filling with zeros); `|n| >= 64` gives 0.
#[inline]
pub fn shift_left(x: i64, n: i64) -> i64 {
    if n < 0 {
        if n <= -64 {
            0
        } else {
            ((x as u64) >> n.unsigned_abs()) as i64
        }
    } else if n >= 64 {
        0
    } else {
        ((x as u64) << n) as i64
    }
}

/// Logical shift right (`luaV_shiftr`): `shift_left(x, -n)` with wrapping
/// negation.
#[inline]
pub fn shift_right(x: i64, n: i64) -> i64 {
    shift_left(x, n.wrapping_neg())
}

/// C `isspace` in the "C" locale: space, `\t \n \v \f \r`.
#[inline]
pub fn is_c_space(c: u8) -> bool {
    c == b' ' || (b'\t'..=b'\r').contains(&c)
}

/// Value of a hexadecimal digit (`luaO_hexavalue`), `None` for other bytes.
#[inline]
pub fn hex_digit(c: u8) -> Option<u32> {
    (c as char).to_digit(16)
}

/// Strips C whitespace from both ends.
fn trim_c_space(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_c_space(c)).unwrap_or(s.len());
    let end = s.iter().rposition(|&c| !is_c_space(c)).map_or(start, |e| e + 1);
    &s[start..end]
}

/// Splits an optional leading sign; true when negative.
fn split_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// Converts a string to a number as `luaO_str2num` does (the lexer's
/// numerals, `tonumber`, string coercion): integer numerals (decimal, or
/// hexadecimal wrapping modulo 2^64) give integers, decimal integers that
/// overflow and all other numerals give floats. Surrounding C whitespace
/// and a leading sign are allowed; `inf`, `nan`, embedded zeros and
/// trailing garbage are not.
pub fn str_to_number(s: &[u8]) -> Option<Number> {
    let t = trim_c_space(s);
    if let Some(i) = str_to_int_numeral(t) {
        return Some(Number::Int(i));
    }
    str_to_float(t).map(Number::Float)
}

/// Converts a string to an integer as `luaV_tointegerns` does for strings:
/// the string must be a numeral ([`str_to_number`]) whose value is an
/// integer, or a float with an exact integer value (`"3.0"` gives 3).
pub fn str_to_int(s: &[u8]) -> Option<i64> {
    str_to_number(s)?.to_int()
}

/// `l_str2int` on a trimmed string: optional sign, then `0x` and hex digits
/// (wrapping) or decimal digits (rejected on overflow).
fn str_to_int_numeral(t: &[u8]) -> Option<i64> {
    let (neg, d) = split_sign(t);
    let a = if d.len() >= 2 && d[0] == b'0' && (d[1] | 0x20) == b'x' {
        hex_int_digits(&d[2..])?
    } else {
        dec_int_digits(d, neg)?
    };
    Some(if neg { 0u64.wrapping_sub(a) } else { a } as i64)
}

/// Hex digits to an unsigned integer, wrapping modulo 2^64.
fn hex_int_digits(d: &[u8]) -> Option<u64> {
    if d.is_empty() {
        return None;
    }
    d.iter().try_fold(0u64, |a, &c| Some(a.wrapping_mul(16).wrapping_add(u64::from(hex_digit(c)?))))
}

/// Decimal digits to an unsigned integer; `None` when the value exceeds
/// `i64::MAX` (or `2^63` when negative).
fn dec_int_digits(d: &[u8], neg: bool) -> Option<u64> {
    const MAXBY10: u64 = (i64::MAX / 10) as u64;
    const MAXLASTD: u64 = (i64::MAX % 10) as u64;
    if d.is_empty() {
        return None;
    }
    let mut a = 0u64;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        let v = u64::from(c - b'0');
        if a >= MAXBY10 && (a > MAXBY10 || v > MAXLASTD + u64::from(neg)) {
            return None;
        }
        a = a * 10 + v;
    }
    Some(a)
}

/// `strtod` on a trimmed string, requiring the whole string to be used and
/// rejecting `inf`/`nan`.
fn str_to_float(t: &[u8]) -> Option<f64> {
    let (neg, d) = split_sign(t);
    let v = if d.len() >= 2 && d[0] == b'0' && (d[1] | 0x20) == b'x' {
        parse_hex_float(&d[2..])?
    } else {
        parse_dec_float(d)?
    };
    Some(if neg { -v } else { v })
}

/// Validates C decimal float syntax (`digits [. digits] [e [sign] digits]`,
/// at least one mantissa digit) and converts it, correctly rounded.
fn parse_dec_float(d: &[u8]) -> Option<f64> {
    let digits = |from: usize| d[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_n = digits(0);
    let mut i = int_n;
    let mut frac_n = 0;
    if d.get(i) == Some(&b'.') {
        frac_n = digits(i + 1);
        i += 1 + frac_n;
    }
    if int_n + frac_n == 0 {
        return None;
    }
    if matches!(d.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(d.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_n = digits(j);
        if exp_n == 0 {
            return None;
        }
        i = j + exp_n;
    }
    if i != d.len() {
        return None;
    }
    // The syntax is now a subset of what Rust's parser accepts (it takes
    // "5." and ".5" too); its result is correctly rounded.
    std::str::from_utf8(d).ok()?.parse::<f64>().ok()
}

/// Parses the part of a hexadecimal float after `0x`:
/// `hexdigits [. hexdigits] [p [sign] decdigits]`, correctly rounded.
fn parse_hex_float(d: &[u8]) -> Option<f64> {
    let mut m = HexMantissa::default();
    let mut i = 0;
    let mut any = false;
    while let Some(v) = d.get(i).copied().and_then(hex_digit) {
        m.push(v, false);
        any = true;
        i += 1;
    }
    if d.get(i) == Some(&b'.') {
        i += 1;
        while let Some(v) = d.get(i).copied().and_then(hex_digit) {
            m.push(v, true);
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    let mut exp: i64 = 0;
    if matches!(d.get(i), Some(b'p' | b'P')) {
        let (eneg, rest) = split_sign(&d[i + 1..]);
        let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        for &c in &rest[..n] {
            exp = (exp * 10 + i64::from(c - b'0')).min(1 << 40);
        }
        if eneg {
            exp = -exp;
        }
        i = d.len() - rest.len() + n;
    }
    if i != d.len() {
        return None;
    }
    Some(m.to_f64(exp))
}

/// Accumulates hex mantissa digits: up to 60 significant bits exactly, a
/// sticky bit for any nonzero digit beyond, and a binary exponent offset.
#[derive(Default)]
struct HexMantissa {
    bits: u64,
    sticky: bool,
    /// Binary exponent to apply to `bits`.
    exp: i64,
}

impl HexMantissa {
    fn push(&mut self, v: u32, fractional: bool) {
        if self.bits >> 56 == 0 {
            self.bits = (self.bits << 4) | u64::from(v);
            if fractional {
                self.exp -= 4;
            }
        } else {
            self.sticky |= v != 0;
            if !fractional {
                self.exp += 4;
            }
        }
    }

    /// `bits * 2^(exp + e)`, rounded to nearest even, with gradual
    /// underflow and overflow to infinity.
    fn to_f64(&self, e: i64) -> f64 {
        if self.bits == 0 {
            return 0.0;
        }
        let e = self.exp.saturating_add(e);
        let lz = i64::from(self.bits.leading_zeros());
        // Normalize so bit 63 is the leading one: value = n * 2^(e2 - 63).
        let n = self.bits << lz;
        let e2 = e + 63 - lz;
        round_to_f64(n, self.sticky, e2)
    }
}

/// Rounds `n * 2^(e2 - 63)` (bit 63 of `n` set; `sticky` = nonzero bits
/// below `n`) to the nearest double, ties to even.
fn round_to_f64(n: u64, sticky: bool, e2: i64) -> f64 {
    if e2 > 1023 {
        return f64::INFINITY;
    }
    // Number of low bits of n dropped: 11 for normals, more for subnormals.
    let drop = if e2 >= -1022 { 11 } else { 11 + (-1022 - e2) };
    if drop > 64 {
        return 0.0;
    }
    let (kept, half, rest_nonzero) = if drop == 64 {
        (0u64, n >> 63 != 0, (n << 1) != 0 || sticky)
    } else {
        let kept = n >> drop;
        let half = (n >> (drop - 1)) & 1 != 0;
        let rest = n & ((1u64 << (drop - 1)) - 1);
        (kept, half, rest != 0 || sticky)
    };
    let mut mant = kept;
    if half && (rest_nonzero || mant & 1 == 1) {
        mant += 1;
    }
    if e2 >= -1022 {
        // mant has 53 bits (or 54 after a carry).
        let (mant, e2) = if mant >> 53 != 0 { (mant >> 1, e2 + 1) } else { (mant, e2) };
        if e2 > 1023 {
            return f64::INFINITY;
        }
        let biased = (e2 + 1023) as u64;
        f64::from_bits((biased << 52) | (mant & ((1u64 << 52) - 1)))
    } else {
        // Subnormal: mant counts units of 2^-1074; a carry into bit 52
        // correctly yields the smallest normal.
        f64::from_bits(mant)
    }
}

/// Converts a string in base `base` (2..=36) as `tonumber(s, base)` does:
/// surrounding C whitespace, optional `-` or `+`, then at least one
/// alphanumeric digit valid in the base; the value wraps modulo 2^64.
/// `None` for an invalid numeral or base.
pub fn str_to_int_base(s: &[u8], base: u32) -> Option<i64> {
    if !(2..=36).contains(&base) {
        return None;
    }
    let (neg, d) = split_sign(trim_c_space(s));
    if d.is_empty() {
        return None;
    }
    let mut n = 0u64;
    for &c in d {
        let v = (c as char).to_digit(36).filter(|&v| v < base)?;
        n = n.wrapping_mul(u64::from(base)).wrapping_add(u64::from(v));
    }
    Some(if neg { 0u64.wrapping_sub(n) } else { n } as i64)
}

/// `LUAI_NUMFFORMAT`: how a float prints (`%.14g`), before `tostring` adds
/// its `.0`; `io.write` prints floats with it as it is.
pub const FLOAT_FORMAT: Spec = Spec::new(b'g').with_precision(14);

/// Appends the decimal form of `i` (`tostring` of an integer, `%d`).
pub fn fmt_int(i: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; INT_DIGITS];
    let pos = int_digits(i, &mut buf);
    out.extend_from_slice(&buf[pos..]);
}

/// Room for the decimal form of any `i64`, sign included.
pub const INT_DIGITS: usize = 20;

/// Writes the decimal form of `i` at the end of `buf` and returns where it
/// starts: the form is `buf[start..]`.
#[inline]
pub fn int_digits(i: i64, buf: &mut [u8; INT_DIGITS]) -> usize {
    let mut pos = buf.len();
    let mut u = i.unsigned_abs();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if i < 0 {
        pos -= 1;
        buf[pos] = b'-';
    }
    pos
}

/// Appends `tostring` of a float: `%.14g`, then `.0` when the result looks
/// like an integer. Infinities print as `inf`/`-inf`; NaN as `nan`, or
/// `-nan` when its sign bit is set (as glibc prints it).
pub fn fmt_float(f: f64, out: &mut Vec<u8>) {
    let start = out.len();
    format_float(out, &FLOAT_FORMAT, f);
    if out[start..].iter().all(|&c| c == b'-' || c.is_ascii_digit()) {
        out.extend_from_slice(b".0");
    }
}

/// `tostring` of a float as a `String` ([`fmt_float`]).
pub fn float_to_string(f: f64) -> String {
    let mut out = Vec::new();
    fmt_float(f, &mut out);
    // The formatter writes ASCII only.
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Option<Number> {
        str_to_number(s.as_bytes())
    }

    #[test]
    fn tostring_floats_like_lua() {
        // lua5.4 -e 'print(0/0, -(0/0), 1/0, -1/0, 1e15, 1e16, 2^63, -0.0, 1e100, 123.456, 0.1)'
        let nan = f64::from_bits(0xfff8_0000_0000_0000);
        let cases = [
            (nan, "-nan"),
            (-nan, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (1e15, "1e+15"),
            (1e16, "1e+16"),
            (2f64.powi(63), "9.2233720368548e+18"),
            (-0.0, "-0.0"),
            (1e100, "1e+100"),
            (123.456, "123.456"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (2.5, "2.5"),
            (-3.0, "-3.0"),
            (1e14, "1e+14"),
            (123456789012345.0, "1.2345678901234e+14"),
            (12345678901234.0, "12345678901234.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (5e-324, "4.9406564584125e-324"),
            (1.0 / 3.0, "0.33333333333333"),
            (100.0, "100.0"),
        ];
        for (f, want) in cases {
            assert_eq!(float_to_string(f), want, "{f:e}");
        }
    }

    #[test]
    fn tostring_ints() {
        for (i, want) in [
            (0, "0"),
            (-1, "-1"),
            (i64::MIN, "-9223372036854775808"),
            (i64::MAX, "9223372036854775807"),
            (1234567, "1234567"),
        ] {
            let mut v = Vec::new();
            fmt_int(i, &mut v);
            assert_eq!(v, want.as_bytes());
        }
    }

    #[test]
    fn str_to_number_like_lua() {
        use Number::{Float as F, Int as I};
        let cases: &[(&str, Option<Number>)] = &[
            ("0x1p99999", Some(F(f64::INFINITY))),
            ("1e999", Some(F(f64::INFINITY))),
            ("-1e999", Some(F(f64::NEG_INFINITY))),
            ("0x", None),
            ("1e", None),
            ("1e+", None),
            (" 0x1p4 ", Some(F(16.0))),
            ("0x.8", Some(F(0.5))),
            ("0xA.8p-1", Some(F(5.25))),
            ("0X1P-2", Some(F(0.25))),
            ("0x.p1", None),
            ("0x1p", None),
            ("9223372036854775807", Some(I(i64::MAX))),
            ("9223372036854775808", Some(F(TWO63))),
            ("-9223372036854775808", Some(I(i64::MIN))),
            ("-9223372036854775809", Some(F(-TWO63))),
            ("0xffffffffffffffffff", Some(I(-1))),
            ("0x7fffffffffffffff", Some(I(i64::MAX))),
            ("-0x1", Some(I(-1))),
            ("5.", Some(F(5.0))),
            (".5", Some(F(0.5))),
            (".", None),
            ("", None),
            ("   ", None),
            ("inf", None),
            ("nan", None),
            ("-inf", None),
            ("infinity", None),
            ("1 2", None),
            ("1\0", None),
            ("\t\n\x0b\x0c\r 12 \r\n", Some(I(12))),
            ("+12", Some(I(12))),
            ("- 1", None),
            ("--1", None),
            ("1e10", Some(F(1e10))),
            ("1E-2", Some(F(0.01))),
            ("0.1", Some(F(0.1))),
            ("00012", Some(I(12))),
            ("1_000", None),
            ("0x1.8", Some(F(1.5))),
            ("0x10", Some(I(16))),
            ("0xg", None),
            ("1.5e+3", Some(F(1500.0))),
            ("2.2250738585072014e-308", Some(F(f64::MIN_POSITIVE))),
            // What the lexer may hand over: a numeral with a letter stuck
            // to it, two dots, a dangling exponent sign.
            ("3x", None),
            ("0x1n", None),
            ("1..2", None),
            ("1e-", None),
            ("0x1.2.3", None),
        ];
        for (s, want) in cases {
            assert_eq!(num(s), *want, "{s:?}");
        }
    }

    #[test]
    fn hex_floats_round_correctly() {
        let f = |s: &str| match num(s) {
            Some(Number::Float(f)) => f,
            other => panic!("{s}: {other:?}"),
        };
        // 2^53 + 1 rounds to even (2^53); 2^53 + 3 rounds up.
        assert_eq!(f("0x20000000000001p0"), 9007199254740992.0);
        assert_eq!(f("0x20000000000003p0"), 9007199254740996.0);
        assert_eq!(f("0x20000000000001.0000000001p0"), 9007199254740994.0);
        assert_eq!(f("0x1p-1074"), 5e-324);
        assert_eq!(f("0x1p-1075"), 0.0);
        assert_eq!(f("0x3p-1076"), 5e-324);
        assert_eq!(f("0x1.0000000001p-1075"), 5e-324);
        assert_eq!(f("0x1.fffffffffffffp1023"), f64::MAX);
        assert_eq!(f("0x1.fffffffffffff7p1023"), f64::MAX);
        assert_eq!(f("0x1.fffffffffffff8p1023"), f64::INFINITY);
        assert_eq!(f("0x0.0000000000001p-1022"), 5e-324);
        assert_eq!(f("0x1p-1022"), f64::MIN_POSITIVE);
        assert_eq!(f("0x.00000000000000000000000000000001p128"), 1.0);
        assert_eq!(f("0x1000000000000000000000000000000000p-136"), 0.0625);
        assert_eq!(f("0x10000000000000000000000000p-100"), 1.0);
        assert_eq!(f("0x1.00000000000008p0"), 1.0);
        assert_eq!(f("0x1.000000000000080001p0"), 1.0 + f64::EPSILON);
        assert_eq!(f("0x1.00000000000018p0"), 1.0 + 2.0 * f64::EPSILON);
        assert_eq!(f("0x0p99999999999999999999"), 0.0);
        assert_eq!(f("-0x0.0p0").to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn str_to_int_variants() {
        assert_eq!(str_to_int(b"3.0"), Some(3));
        assert_eq!(str_to_int(b"3.5"), None);
        assert_eq!(str_to_int(b"0x10"), Some(16));
        assert_eq!(str_to_int(b"x"), None);
        let b = |s: &str, base| str_to_int_base(s.as_bytes(), base);
        assert_eq!(b("  10  ", 36), Some(36));
        assert_eq!(b("zz", 36), Some(1295));
        assert_eq!(b("ZZ", 36), Some(1295));
        assert_eq!(b("-ff", 16), Some(-255));
        assert_eq!(b("+ff", 16), Some(255));
        assert_eq!(b("102", 2), None);
        assert_eq!(b("", 10), None);
        assert_eq!(b("-", 10), None);
        assert_eq!(b("1 1", 10), None);
        assert_eq!(b("1.0", 10), None);
        assert_eq!(b("ffffffffffffffffff", 16), Some(-1));
        assert_eq!(b("10", 1), None);
        assert_eq!(b("10", 37), None);
    }

    #[test]
    fn float_to_int_modes() {
        assert_eq!(float_to_int(3.0, F2I::Exact), Some(3));
        assert_eq!(float_to_int(3.5, F2I::Exact), None);
        assert_eq!(float_to_int(3.5, F2I::Floor), Some(3));
        assert_eq!(float_to_int(3.5, F2I::Ceil), Some(4));
        assert_eq!(float_to_int(-3.5, F2I::Floor), Some(-4));
        assert_eq!(float_to_int(-3.5, F2I::Ceil), Some(-3));
        assert_eq!(float_to_int(f64::NAN, F2I::Floor), None);
        assert_eq!(float_to_int(f64::NAN, F2I::Exact), None);
        assert_eq!(float_to_int(TWO63, F2I::Floor), None);
        assert_eq!(float_to_int(9.3e18, F2I::Exact), None);
        assert_eq!(float_to_int(-TWO63, F2I::Exact), Some(i64::MIN));
        assert_eq!(float_to_int(f64::INFINITY, F2I::Floor), None);
        assert_eq!(float_to_int(f64::INFINITY, F2I::Exact), None);
        assert_eq!(float_to_int(-0.0, F2I::Exact), Some(0));
    }

    #[test]
    fn mixed_comparisons_are_exact() {
        let big = (1i64 << 53) + 1;
        let bigf = (1i64 << 53) as f64;
        assert!(!int_eq_float(big, bigf));
        assert!(int_eq_float(1 << 53, bigf));
        assert!(lt_float_int(bigf, big));
        assert!(!lt_int_float(big, bigf));
        assert!(le_float_int(bigf, big));
        assert!(!le_int_float(big, bigf));
        assert!(lt_int_float(i64::MAX, TWO63));
        assert!(!lt_int_float(i64::MIN, -TWO63));
        assert!(le_int_float(i64::MIN, -TWO63));
        assert!(lt_float_int(-f64::INFINITY, i64::MIN));
        assert!(!lt_float_int(f64::NAN, 0) && !lt_int_float(0, f64::NAN));
        assert!(!le_float_int(f64::NAN, i64::MAX) && !le_int_float(i64::MAX, f64::NAN));
        assert!(lt_int_float(i64::MAX - 1, 9.3e18));
        assert!(lt_int_float(3, 3.5) && !lt_int_float(4, 3.5));
        assert!(le_float_int(3.5, 4) && !le_float_int(4.5, 4));
        assert!(!int_eq_float(i64::MAX, TWO63));
    }

    #[test]
    fn integer_division_and_modulo() {
        assert_eq!(int_floor_div(7, 2), 3);
        assert_eq!(int_floor_div(-7, 2), -4);
        assert_eq!(int_floor_div(7, -2), -4);
        assert_eq!(int_floor_div(-7, -2), 3);
        assert_eq!(int_floor_div(i64::MIN, -1), i64::MIN);
        assert_eq!(int_floor_div(5, 0), 0);
        assert_eq!(int_mod(7, 3), 1);
        assert_eq!(int_mod(-7, 3), 2);
        assert_eq!(int_mod(7, -3), -2);
        assert_eq!(int_mod(-7, -3), -1);
        assert_eq!(int_mod(i64::MIN, -1), 0);
        assert_eq!(int_mod(5, 0), 0);
    }

    #[test]
    fn float_division_and_modulo() {
        assert_eq!(float_floor_div(7.0, 2.0), 3.0);
        assert_eq!(float_floor_div(-7.0, 2.0), -4.0);
        assert_eq!(float_mod(5.5, 2.0), 1.5);
        assert_eq!(float_mod(-5.5, 2.0), 0.5);
        assert_eq!(float_mod(5.5, -2.0), -0.5);
        assert_eq!(float_mod(1.0, f64::INFINITY), 1.0);
        assert_eq!(float_mod(-1.0, f64::INFINITY), f64::INFINITY);
        assert_eq!(float_mod(1.0, f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert!(float_mod(f64::INFINITY, 2.0).is_nan());
        assert!(float_mod(1.0, 0.0).is_nan());
        assert_eq!(float_mod(-0.0, 2.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(float_pow(3.0, 2.0), 9.0);
        assert_eq!(float_pow(2.0, 0.5), std::f64::consts::SQRT_2);
    }

    #[test]
    fn shifts() {
        assert_eq!(shift_left(1, 63), i64::MIN);
        assert_eq!(shift_left(1, 64), 0);
        assert_eq!(shift_left(-1, -1), i64::MAX);
        assert_eq!(shift_left(-1, -64), 0);
        assert_eq!(shift_left(-1, i64::MIN), 0);
        assert_eq!(shift_left(5, i64::MIN), 0);
        assert_eq!(shift_right(-1, 60), 15);
        assert_eq!(shift_right(1, -2), 4);
        assert_eq!(shift_right(1, i64::MIN), 0);
        assert_eq!(shift_right(5, i64::MIN), 0);
        assert_eq!(shift_right(4, -1), 8);
    }

    #[test]
    fn arith_follows_lua() {
        use ArithOp::*;
        use Number::{Float as F, Int as I};
        let ok = |op, a, b| arith(op, a, b).ok();
        assert_eq!(ok(Add, I(i64::MAX), I(1)), Some(I(i64::MIN)));
        assert_eq!(ok(IDiv, I(-7), I(2)), Some(I(-4)));
        assert_eq!(ok(Mod, I(-7), I(2)), Some(I(1)));
        assert_eq!(ok(Mod, I(7), I(-2)), Some(I(-1)));
        assert_eq!(ok(IDiv, I(i64::MIN), I(-1)), Some(I(i64::MIN)));
        assert_eq!(ok(Mod, I(i64::MIN), I(-1)), Some(I(0)));
        assert_eq!(ok(Unm, I(i64::MIN), I(0)), Some(I(i64::MIN)));
        assert_eq!(ok(Div, I(7), I(2)), Some(F(3.5)));
        assert_eq!(ok(Pow, I(2), I(10)), Some(F(1024.0)));
        assert_eq!(ok(IDiv, F(7.0), I(2)), Some(F(3.0)));
        assert_eq!(ok(Mod, F(-7.5), I(2)), Some(F(0.5)));
        assert_eq!(ok(Mod, F(7.5), F(-2.0)), Some(F(-0.5)));
        assert_eq!(
            ok(Unm, F(0.0), I(0)).map(|n| n.to_float().to_bits()),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(ok(BAnd, F(3.0), I(1)), Some(I(1)));
        assert_eq!(ok(BNot, I(0), I(0)), Some(I(-1)));
        assert_eq!(ok(Shl, I(1), I(63)), Some(I(i64::MIN)));
        assert_eq!(ok(Shr, I(1), I(-2)), Some(I(4)));
        assert_eq!(arith(BAnd, F(1.5), I(1)), Err(ArithError::NoInteger));
        assert_eq!(arith(Shl, I(1), F(f64::NAN)), Err(ArithError::NoInteger));
        assert_eq!(arith(Mod, I(1), I(0)), Err(ArithError::ModByZero));
        assert_eq!(arith(IDiv, I(1), I(0)), Err(ArithError::DivByZero));
        assert_eq!(ok(IDiv, I(1), F(0.0)), Some(F(f64::INFINITY)));
        assert!(matches!(ok(Mod, F(1.0), I(0)), Some(F(f)) if f.is_nan()));
        assert_eq!(ArithOp::Add.tm(), 6);
        assert_eq!(ArithOp::BNot.tm(), 19);
    }
}
