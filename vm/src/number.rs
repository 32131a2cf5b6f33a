//! Lua numbers in the VM.
//!
//! The rules themselves — numeral parsing, arithmetic, float/integer
//! conversion, exact mixed comparisons, `tostring` of numbers — live in
//! one place, the compiler crate's `number` module
//! ([`luprex_compiler::number`]), shared with the lexer and the constant
//! folder; they are re-exported here. This module adds only what needs the
//! VM's own types: the conversion of a [`Number`] to a [`Value`], and
//! `tostring` of a number value.

pub use luprex_compiler::number::*;

use crate::value::Value;

impl From<Number> for Value {
    #[inline]
    fn from(n: Number) -> Value {
        match n {
            Number::Int(i) => Value::Int(i),
            Number::Float(f) => Value::Float(f),
        }
    }
}

/// The number in a number value (`ttisnumber`); `None` for other values.
#[inline]
pub fn as_number(v: Value) -> Option<Number> {
    match v {
        Value::Int(i) => Some(Number::Int(i)),
        Value::Float(f) => Some(Number::Float(f)),
        _ => None,
    }
}

/// Appends `tostring` of a number value (integer or float); other values
/// are ignored.
pub fn fmt_number(v: Value, out: &mut Vec<u8>) {
    match v {
        Value::Int(i) => fmt_int(i, out),
        Value::Float(f) => fmt_float(f, out),
        _ => {}
    }
}
