//! Keys: how a key is hashed (without touching the heap, nor any address
//! or seed: see the hashing paragraph of the module docs) and compared,
//! and how a float key with an integral value becomes an integer
//! ("Normalized keys").

use super::*;

pub(super) const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// Type tags mixed into handle hashes so that, e.g., string #3 and table #3
/// land in different slots.
pub(super) const TAG_STR: u64 = 1 << 56;
pub(super) const TAG_TABLE: u64 = 2 << 56;
pub(super) const TAG_LUAFN: u64 = 3 << 56;
pub(super) const TAG_RUSTFN: u64 = 4 << 56;
pub(super) const TAG_THREAD: u64 = 5 << 56;
pub(super) const TAG_UDATA: u64 = 6 << 56;
pub(super) const TAG_BOOL: u64 = 7 << 56;

#[inline(always)]
pub(super) fn mix(x: u64) -> u64 {
    (x ^ (x >> 32)).wrapping_mul(MUL)
}

#[inline(always)]
pub(super) fn str_hash(s: StrRef) -> u64 {
    mix(u64::from(s.index()) | TAG_STR)
}

#[inline(always)]
pub(super) fn int_hash(i: i64) -> u64 {
    mix(i as u64)
}

/// Hash of a normalized key (never nil/NaN in practice).
#[inline]
pub(super) fn key_hash(k: Value) -> u64 {
    match k {
        Value::Int(i) => int_hash(i),
        Value::Str(s) => str_hash(s),
        Value::Float(f) => mix(f.to_bits().rotate_left(17)),
        Value::Bool(b) => mix(TAG_BOOL | u64::from(b)),
        Value::Table(h) => mix(u64::from(h.index()) | TAG_TABLE),
        Value::LuaFn(h) => mix(u64::from(h.index()) | TAG_LUAFN),
        Value::RustFn(h) => mix(u64::from(h.index()) | TAG_RUSTFN),
        Value::Thread(h) => mix(u64::from(h.index()) | TAG_THREAD),
        Value::UserData(h) => mix(u64::from(h.index()) | TAG_UDATA),
        Value::Nil => 0,
    }
}

/// Identity of normalized keys (floats by bits; nil matches nothing).
#[inline]
pub(super) fn key_eq(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Table(x), Value::Table(y)) => x == y,
        (Value::LuaFn(x), Value::LuaFn(y)) => x == y,
        (Value::RustFn(x), Value::RustFn(y)) => x == y,
        (Value::Thread(x), Value::Thread(y)) => x == y,
        (Value::UserData(x), Value::UserData(y)) => x == y,
        _ => false,
    }
}

/// A key in canonical form, or why it cannot be one.
pub(super) enum Norm {
    Int(i64),
    Other(Value),
    Nil,
    NaN,
}

#[inline]
pub(super) fn normalize(key: Value) -> Norm {
    match key {
        Value::Int(i) => Norm::Int(i),
        Value::Float(f) => match float_to_int(f, F2I::Exact) {
            Some(i) => Norm::Int(i),
            None if f.is_nan() => Norm::NaN,
            None => Norm::Other(key),
        },
        Value::Nil => Norm::Nil,
        _ => Norm::Other(key),
    }
}

/// Result of probing the index for a key.
pub(super) enum Probe {
    /// Found: (index slot, entry position).
    Found(usize, usize),
    /// Absent.
    Absent,
}
