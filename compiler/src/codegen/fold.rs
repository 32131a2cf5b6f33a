//! Compile-time arithmetic: the constant folder's policy.
//!
//! This mirrors `constfolding`/`validop` of `lcode.c`. The arithmetic
//! itself is `luaO_rawarith`, [`crate::number::arith`], the same function
//! the VM runs; this module only decides what may be folded. Folding is an
//! optimisation that must never change what a program does, so it is
//! deliberately conservative:
//!
//! * only numeric operands are folded (never strings, even numeric ones);
//! * an operation that would raise an error at run time is left alone
//!   (integer division or modulo by zero, bitwise operations on floats
//!   without an exact integer value), so the error still happens, with its
//!   message, at the right time; as in `validop`, division and modulo by a
//!   float zero are left alone too;
//! * a float result that is NaN or zero (either sign) is not folded: NaN
//!   has no constant form that compares equal to itself, and `-0.0` would
//!   be confused with `0.0` by the constant table and by `LOADF`.

use crate::number::{arith, ArithOp, Number};

/// Folds `a op b`; `None` when the operation must be left to run time.
pub(crate) fn fold(op: ArithOp, a: Number, b: Number) -> Option<Number> {
    if matches!(op, ArithOp::Div | ArithOp::IDiv | ArithOp::Mod) && b.to_float() == 0.0 {
        return None;
    }
    match arith(op, a, b).ok()? {
        Number::Float(f) if f.is_nan() || f == 0.0 => None,
        r => Some(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::ArithOp::*;
    use crate::number::Number::{Float as Flt, Int};

    // The arithmetic itself is tested in `crate::number`; these test what
    // the folder lets through.

    #[test]
    fn folds_what_cannot_fail() {
        assert_eq!(fold(Add, Int(i64::MAX), Int(1)), Some(Int(i64::MIN)));
        assert_eq!(fold(Div, Int(7), Int(2)), Some(Flt(3.5)));
        assert_eq!(fold(IDiv, Flt(7.0), Int(2)), Some(Flt(3.0)));
        assert_eq!(fold(Mod, Int(-7), Flt(2.0)), Some(Flt(1.0)));
        assert_eq!(fold(Shr, Int(-1), Int(60)), Some(Int(15)));
        assert_eq!(fold(BNot, Int(0), Int(0)), Some(Int(-1)));
    }

    #[test]
    fn refuses_errors_nan_and_zero() {
        assert_eq!(fold(IDiv, Int(1), Int(0)), None);
        assert_eq!(fold(Mod, Int(1), Int(0)), None);
        assert_eq!(fold(Div, Int(1), Int(0)), None); // would be inf: still refused (div by 0)
        assert_eq!(fold(Mod, Flt(1.0), Flt(-0.0)), None); // NaN, and a zero divisor
        assert_eq!(fold(Div, Flt(0.0), Flt(1.0)), None); // 0.0 result
        assert_eq!(fold(Unm, Flt(0.0), Int(0)), None); // -0.0
        assert_eq!(fold(Sub, Flt(1.0), Flt(1.0)), None);
        assert_eq!(fold(BAnd, Flt(1.5), Int(1)), None);
        assert_eq!(fold(BAnd, Flt(3.0), Int(1)), Some(Int(1)));
        assert_eq!(fold(Add, Int(1), Int(-1)), Some(Int(0))); // integer zero is fine
        assert_eq!(fold(Pow, Int(-8), Flt(0.5)), None); // NaN
    }
}
