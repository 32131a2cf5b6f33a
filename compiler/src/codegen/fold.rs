//! Compile-time arithmetic: the constant folder's view of Lua numbers.
//!
//! This mirrors `constfolding`/`validop` of `lcode.c` and `luaO_rawarith`
//! of `lobject.c`. Folding is an optimisation that must never change what a
//! program does, so it is deliberately conservative:
//!
//! * only numeric operands are folded (never strings, even numeric ones);
//! * an operation that would raise an error at run time is left alone
//!   (integer division or modulo by zero, bitwise operations on floats
//!   without an exact integer value), so the error still happens, with its
//!   message, at the right time;
//! * a float result that is NaN or zero (either sign) is not folded: NaN
//!   has no constant form that compares equal to itself, and `-0.0` would
//!   be confused with `0.0` by the constant table and by `LOADF`.
//!
//! Arithmetic follows Lua 5.4 exactly: integers wrap around, `/` and `^`
//! always produce floats, `//` floors, `%` takes the sign of the divisor,
//! and shifts are logical with out-of-range counts producing zero
//! (`luaV_shiftl`).

/// A numeric compile-time value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    /// An integer.
    Int(i64),
    /// A float.
    Flt(f64),
}

/// The operations the folder understands (binary, then the two unary ones,
/// which take a dummy second operand as in `luaK_prefix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Mod,
    Pow,
    Div,
    IDiv,
    BAnd,
    BOr,
    BXor,
    Shl,
    Shr,
    Unm,
    BNot,
}

/// Converts a float with an exact integral value to an integer
/// (`luaV_flttointeger` in mode `F2Ieq`).
pub(crate) fn flt_to_int(f: f64) -> Option<i64> {
    // -2^63 is exactly representable; 2^63 is the first value out of range.
    const LIM: f64 = 9_223_372_036_854_775_808.0;
    if f.floor() == f && (-LIM..LIM).contains(&f) {
        Some(f as i64)
    } else {
        None
    }
}

fn to_int(n: Num) -> Option<i64> {
    match n {
        Num::Int(i) => Some(i),
        Num::Flt(f) => flt_to_int(f),
    }
}

fn to_flt(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Flt(f) => f,
    }
}

/// False when folding `op` over these operands could raise an error.
fn valid_op(op: ArithOp, a: Num, b: Num) -> bool {
    use ArithOp::*;
    match op {
        BAnd | BOr | BXor | Shl | Shr | BNot => to_int(a).is_some() && to_int(b).is_some(),
        Div | IDiv | Mod => to_flt(b) != 0.0,
        _ => true,
    }
}

/// Folds `a op b`; `None` when the operation must be left to run time.
pub(crate) fn fold(op: ArithOp, a: Num, b: Num) -> Option<Num> {
    if !valid_op(op, a, b) {
        return None;
    }
    match raw_arith(op, a, b)? {
        Num::Flt(f) if f.is_nan() || f == 0.0 => None,
        r => Some(r),
    }
}

/// `luaO_rawarith`: performs the operation with Lua's conversion rules.
fn raw_arith(op: ArithOp, a: Num, b: Num) -> Option<Num> {
    use ArithOp::*;
    match op {
        BAnd | BOr | BXor | Shl | Shr | BNot => {
            Some(Num::Int(int_arith(op, to_int(a)?, to_int(b)?)))
        }
        Div | Pow => Some(Num::Flt(flt_arith(op, to_flt(a), to_flt(b)))),
        _ => match (a, b) {
            (Num::Int(x), Num::Int(y)) => Some(Num::Int(int_arith(op, x, y))),
            _ => Some(Num::Flt(flt_arith(op, to_flt(a), to_flt(b)))),
        },
    }
}

/// `luaV_shiftl`: logical shift left by `y` (right when negative).
pub(crate) fn shift_left(x: i64, y: i64) -> i64 {
    if y < 0 {
        if y <= -64 {
            0
        } else {
            ((x as u64) >> (-y) as u32) as i64
        }
    } else if y >= 64 {
        0
    } else {
        ((x as u64) << y as u32) as i64
    }
}

/// `luaV_mod` for integers (the divisor is known to be nonzero).
fn int_mod(m: i64, n: i64) -> i64 {
    if n == -1 {
        return 0; // avoids overflow of MIN % -1
    }
    let r = m % n;
    if r != 0 && (r ^ n) < 0 {
        r + n
    } else {
        r
    }
}

/// `luaV_idiv` for integers (the divisor is known to be nonzero).
fn int_idiv(m: i64, n: i64) -> i64 {
    if n == -1 {
        return m.wrapping_neg();
    }
    let q = m / n;
    if (m ^ n) < 0 && m % n != 0 {
        q - 1
    } else {
        q
    }
}

fn int_arith(op: ArithOp, x: i64, y: i64) -> i64 {
    use ArithOp::*;
    match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Mod => int_mod(x, y),
        IDiv => int_idiv(x, y),
        BAnd => x & y,
        BOr => x | y,
        BXor => x ^ y,
        Shl => shift_left(x, y),
        Shr => shift_left(x, y.wrapping_neg()),
        Unm => x.wrapping_neg(),
        BNot => !x,
        // Div and Pow never reach integer arithmetic.
        Div | Pow => 0,
    }
}

/// `luai_nummod`: float modulo with the sign of the divisor.
fn flt_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if (m > 0.0 && b < 0.0) || (m < 0.0 && b > 0.0) {
        m + b
    } else {
        m
    }
}

fn flt_arith(op: ArithOp, a: f64, b: f64) -> f64 {
    use ArithOp::*;
    match op {
        Add => a + b,
        Sub => a - b,
        Mul => a * b,
        Div => a / b,
        Pow => {
            if b == 2.0 {
                a * a
            } else {
                a.powf(b)
            }
        }
        IDiv => (a / b).floor(),
        Mod => flt_mod(a, b),
        Unm => -a,
        // Bitwise operations never reach float arithmetic.
        BAnd | BOr | BXor | Shl | Shr | BNot => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::ArithOp::*;
    use super::Num::{Flt, Int};
    use super::*;

    #[test]
    fn integer_arithmetic_wraps_and_floors() {
        assert_eq!(fold(Add, Int(i64::MAX), Int(1)), Some(Int(i64::MIN)));
        assert_eq!(fold(IDiv, Int(-7), Int(2)), Some(Int(-4)));
        assert_eq!(fold(Mod, Int(-7), Int(2)), Some(Int(1)));
        assert_eq!(fold(Mod, Int(7), Int(-2)), Some(Int(-1)));
        assert_eq!(fold(IDiv, Int(i64::MIN), Int(-1)), Some(Int(i64::MIN)));
        assert_eq!(fold(Mod, Int(i64::MIN), Int(-1)), Some(Int(0)));
        assert_eq!(fold(Unm, Int(i64::MIN), Int(0)), Some(Int(i64::MIN)));
    }

    #[test]
    fn division_and_power_are_float() {
        assert_eq!(fold(Div, Int(7), Int(2)), Some(Flt(3.5)));
        assert_eq!(fold(Pow, Int(2), Int(10)), Some(Flt(1024.0)));
        assert_eq!(fold(IDiv, Flt(7.0), Int(2)), Some(Flt(3.0)));
        assert_eq!(fold(Mod, Flt(-7.5), Int(2)), Some(Flt(0.5)));
        assert_eq!(fold(Mod, Flt(7.5), Flt(-2.0)), Some(Flt(-0.5)));
    }

    #[test]
    fn refuses_errors_nan_and_zero() {
        assert_eq!(fold(IDiv, Int(1), Int(0)), None);
        assert_eq!(fold(Mod, Int(1), Int(0)), None);
        assert_eq!(fold(Div, Int(1), Int(0)), None); // would be inf: still refused (div by 0)
        assert_eq!(fold(Div, Flt(0.0), Flt(1.0)), None); // 0.0 result
        assert_eq!(fold(Unm, Flt(0.0), Int(0)), None); // -0.0
        assert_eq!(fold(Sub, Flt(1.0), Flt(1.0)), None);
        assert_eq!(fold(BAnd, Flt(1.5), Int(1)), None);
        assert_eq!(fold(BAnd, Flt(3.0), Int(1)), Some(Int(1)));
        assert_eq!(fold(Add, Int(1), Int(-1)), Some(Int(0))); // integer zero is fine
        assert_eq!(fold(Pow, Int(-8), Flt(0.5)), None); // NaN
    }

    #[test]
    fn shifts_are_logical() {
        assert_eq!(fold(Shl, Int(1), Int(63)), Some(Int(i64::MIN)));
        assert_eq!(fold(Shl, Int(1), Int(64)), Some(Int(0)));
        assert_eq!(fold(Shr, Int(-1), Int(60)), Some(Int(15)));
        assert_eq!(fold(Shr, Int(1), Int(-2)), Some(Int(4)));
        assert_eq!(fold(Shl, Int(5), Int(i64::MIN)), Some(Int(0)));
        assert_eq!(fold(Shr, Int(5), Int(i64::MIN)), Some(Int(0)));
        assert_eq!(fold(BNot, Int(0), Int(0)), Some(Int(-1)));
    }

    #[test]
    fn float_to_integer_conversion() {
        assert_eq!(flt_to_int(3.0), Some(3));
        assert_eq!(flt_to_int(-0.0), Some(0));
        assert_eq!(flt_to_int(3.5), None);
        assert_eq!(flt_to_int(9.3e18), None);
        assert_eq!(flt_to_int(-9_223_372_036_854_775_808.0), Some(i64::MIN));
        assert_eq!(flt_to_int(f64::NAN), None);
        assert_eq!(flt_to_int(f64::INFINITY), None);
    }
}
