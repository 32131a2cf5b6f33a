//! Lua values between heaps: the value encoding of difference frames, the
//! translation of keys from one heap to another, and the table primitives
//! the transmitter's passes read and write with.
//!
//! # Values on the wire
//!
//! A difference frame says "in table N, store Key → Value" (*Multipass
//! Difference Transmission*, pass "Transmit Table Contents"). Handles mean
//! nothing in another heap, so a value crosses as a [`WireValue`]: owned,
//! plain data, no serde, no handle.
//!
//! | Lua value          | `WireValue`                                      |
//! |--------------------|--------------------------------------------------|
//! | nil                | `Nil`                                            |
//! | boolean            | `Bool`                                           |
//! | integer            | `Int` (the subtype is kept: `1` is not `1.0`)    |
//! | float              | `Float`, its IEEE bits (NaN payloads and `-0.0` kept) |
//! | string             | `Str`, its bytes                                 |
//! | table, userdata, function, thread | what the host's callback says: `Table(n)` (a table number of the frame's numbering), `Host(x)` (an engine reference: a tangible id, a class, the globals...), or, if it says nothing, `Nil` |
//!
//! Functions and threads cannot be transmitted (the document sends nil);
//! the callback is still asked, so an engine may map, say, a userdata
//! tangible to `Host`. [`State::encode_value`] never fails.
//!
//! [`State::decode_value`] is the inverse on the receiving heap: strings
//! are interned there, `Table` and `Host` go to the host's resolver, and
//! one it cannot resolve is an error ([`WireError`]), never a panic. Any
//! float bits are a valid float. Decoding allocates only strings and never
//! collects (the allocation rule of the API): root the result before
//! running Lua code.
//!
//! [`WireValue::write`] / [`WireValue::read`] are a compact byte form
//! (a tag byte, then little-endian fixed-width payloads; a string is a
//! LEB128 length and its bytes), for a frame format to embed; `read`
//! rejects truncated input, unknown tags, and lengths that overflow or are
//! not in their shortest form (the byte form is canonical: one value, one
//! encoding).
//!
//! # Keys across heaps
//!
//! Only **sortable** keys cross (strings, numbers, booleans: the
//! document's rule; `traverse::is_sortable`). A master key is the client's
//! key of the same value: numbers and booleans as they are, strings by
//! content. [`translate_key`] interns the string in the destination
//! (for storing); [`lookup_key`] does not, and answers `None` for a string
//! the destination has never interned, which no table there can hold as a
//! key (a table key is always a registered string, `string.rs`, so that
//! is exact, not a guess). Both are
//! the same rule the pairing pass (`traverse.rs`) uses; it shares
//! `key_across` with them.
//!
//! # Table primitives
//!
//! Read (no allocation, no metamethods): [`State::table`] (a
//! [`TableView`]: `iter()` yields `(key, value)` in traversal order, array
//! part then hash part in insertion order; `get`, `len`, `meta`),
//! [`State::table_entries`], [`State::table_get`], [`State::metatable`].
//! Write, to apply a frame (raw, no metamethods): [`State::new_table`],
//! [`State::try_table_set`] (`key → value` and `key → nil`),
//! [`State::set_any_metatable`]. Every one of these writes is seen by the
//! write log (`writes.rs`).

use crate::state::State;
use crate::traverse::is_sortable;
use crate::value::{StrRef, TableRef, Value};
use std::fmt;

/// A Lua value in a form that means the same in any heap (see the module
/// docs for the mapping).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WireValue {
    /// nil (also functions, threads and objects the host does not map).
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float, as its IEEE-754 bits.
    Float(u64),
    /// A string's bytes.
    Str(Box<[u8]>),
    /// A table number (meaningful in the frame's numbering).
    Table(u32),
    /// An engine reference (tangible id, class, globals...), opaque here.
    Host(u64),
}

impl WireValue {
    /// A float's wire form.
    pub fn float(f: f64) -> WireValue {
        WireValue::Float(f.to_bits())
    }

    /// A string's wire form.
    pub fn str(bytes: &[u8]) -> WireValue {
        WireValue::Str(bytes.into())
    }

    /// Appends the byte form (see the module docs) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            WireValue::Nil => out.push(TAG_NIL),
            WireValue::Bool(false) => out.push(TAG_FALSE),
            WireValue::Bool(true) => out.push(TAG_TRUE),
            WireValue::Int(i) => {
                out.push(TAG_INT);
                out.extend_from_slice(&i.to_le_bytes());
            }
            WireValue::Float(b) => {
                out.push(TAG_FLOAT);
                out.extend_from_slice(&b.to_le_bytes());
            }
            WireValue::Str(s) => {
                out.push(TAG_STR);
                let mut n = s.len() as u64;
                loop {
                    let b = (n & 0x7f) as u8;
                    n >>= 7;
                    if n == 0 {
                        out.push(b);
                        break;
                    }
                    out.push(b | 0x80);
                }
                out.extend_from_slice(s);
            }
            WireValue::Table(n) => {
                out.push(TAG_TABLE);
                out.extend_from_slice(&n.to_le_bytes());
            }
            WireValue::Host(x) => {
                out.push(TAG_HOST);
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
    }

    /// Reads one value in byte form from the start of `bytes`: the value
    /// and the number of bytes it took.
    pub fn read(bytes: &[u8]) -> Result<(WireValue, usize), WireError> {
        let (&tag, rest) = bytes.split_first().ok_or(WireError::Truncated)?;
        let fixed = |n: usize| rest.get(..n).ok_or(WireError::Truncated);
        let v = match tag {
            TAG_NIL => (WireValue::Nil, 1),
            TAG_FALSE => (WireValue::Bool(false), 1),
            TAG_TRUE => (WireValue::Bool(true), 1),
            TAG_INT => (WireValue::Int(i64::from_le_bytes(arr(fixed(8)?))), 9),
            TAG_FLOAT => (WireValue::Float(u64::from_le_bytes(arr(fixed(8)?))), 9),
            TAG_TABLE => (WireValue::Table(u32::from_le_bytes(arr(fixed(4)?))), 5),
            TAG_HOST => (WireValue::Host(u64::from_le_bytes(arr(fixed(8)?))), 9),
            TAG_STR => {
                let (mut n, mut used) = (0u64, 0usize);
                loop {
                    let &b = rest.get(used).ok_or(WireError::Truncated)?;
                    if used == 9 && b > 1 {
                        return Err(WireError::BadLength);
                    }
                    n |= u64::from(b & 0x7f) << (7 * used);
                    used += 1;
                    if b & 0x80 == 0 {
                        // The byte form is canonical: no overlong length
                        // (a last group of zero after the first).
                        if b == 0 && used > 1 {
                            return Err(WireError::BadLength);
                        }
                        break;
                    }
                }
                let n = usize::try_from(n).map_err(|_| WireError::BadLength)?;
                let body = rest.get(used..).ok_or(WireError::Truncated)?;
                let s = body.get(..n).ok_or(WireError::Truncated)?;
                (WireValue::Str(s.into()), 1 + used + n)
            }
            t => return Err(WireError::BadTag(t)),
        };
        Ok(v)
    }
}

const TAG_NIL: u8 = 0;
const TAG_FALSE: u8 = 1;
const TAG_TRUE: u8 = 2;
const TAG_INT: u8 = 3;
const TAG_FLOAT: u8 = 4;
const TAG_STR: u8 = 5;
const TAG_TABLE: u8 = 6;
const TAG_HOST: u8 = 7;

/// The first `N` bytes of `b` (which has at least `N`).
fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// Why a wire value could not be read or decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// A table number the resolver does not know.
    UnknownTable(u32),
    /// A host reference the resolver does not know.
    UnknownHost(u64),
    /// The byte form ended early.
    Truncated,
    /// An unknown tag byte in the byte form.
    BadTag(u8),
    /// A string length that does not fit.
    BadLength,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::UnknownTable(n) => write!(f, "unknown table number {n}"),
            WireError::UnknownHost(x) => write!(f, "unknown host reference {x}"),
            WireError::Truncated => f.write_str("truncated wire value"),
            WireError::BadTag(t) => write!(f, "bad wire value tag {t}"),
            WireError::BadLength => f.write_str("bad wire string length"),
        }
    }
}

impl std::error::Error for WireError {}

// ---------------------------------------------------------------------------
// Keys across heaps
// ---------------------------------------------------------------------------

/// The rule shared by [`translate_key`], [`lookup_key`] and the pairing
/// pass: a sortable key `k` of one heap as a key of another, strings going
/// through `string` (`None`: the other heap cannot hold that string);
/// numbers and booleans as they are; a NaN or a non-sortable key gives
/// `None`.
#[inline]
pub(crate) fn key_across(k: Value, string: impl FnOnce(StrRef) -> Option<StrRef>) -> Option<Value> {
    match k {
        Value::Str(s) => string(s).map(Value::Str),
        Value::Float(f) if f.is_nan() => None,
        _ if is_sortable(k) => Some(k),
        _ => None,
    }
}

/// String `s` of `src`, found in `dst`'s interner without interning.
#[inline]
pub(crate) fn find_string(src: &State, s: StrRef, dst: &State) -> Option<StrRef> {
    dst.heap.interner.find(&dst.heap.strings, src.heap.str(s))
}

/// Key `key` of heap `src` as a key of heap `dst`, for storing: sortable
/// keys only (strings by content, interned in `dst`; numbers and booleans
/// as they are); `None` for other keys and NaN. Interning allocates and
/// never collects: root the key before running Lua code in `dst`.
pub fn translate_key(src: &State, key: Value, dst: &mut State) -> Option<Value> {
    key_across(key, |s| Some(dst.heap.intern(src.heap.str(s))))
}

/// Key `key` of heap `src` as a key of heap `dst`, for reading: like
/// [`translate_key`] but read-only; `None` also for a string `dst` has
/// never interned (no table of `dst` can hold it).
pub fn lookup_key(src: &State, key: Value, dst: &State) -> Option<Value> {
    key_across(key, |s| find_string(src, s, dst))
}

// ---------------------------------------------------------------------------
// Values, and table primitives
// ---------------------------------------------------------------------------

impl State {
    /// The wire form of `v` (see the module docs). `map` is asked for
    /// every table, userdata, function and thread; `None` sends `Nil`.
    pub fn encode_value(
        &self,
        v: Value,
        map: &mut impl FnMut(Value) -> Option<WireValue>,
    ) -> WireValue {
        match v {
            Value::Nil => WireValue::Nil,
            Value::Bool(b) => WireValue::Bool(b),
            Value::Int(i) => WireValue::Int(i),
            Value::Float(f) => WireValue::Float(f.to_bits()),
            Value::Str(s) => WireValue::Str(self.heap.str(s).into()),
            _ => map(v).unwrap_or(WireValue::Nil),
        }
    }

    /// The value of `w` in this heap (see the module docs): strings are
    /// interned here; `resolve` is asked for `Table` and `Host`, and
    /// `None` is an error. Never collects.
    pub fn decode_value(
        &mut self,
        w: &WireValue,
        resolve: &mut impl FnMut(&WireValue) -> Option<Value>,
    ) -> Result<Value, WireError> {
        Ok(match w {
            WireValue::Nil => Value::Nil,
            WireValue::Bool(b) => Value::Bool(*b),
            WireValue::Int(i) => Value::Int(*i),
            WireValue::Float(b) => Value::Float(f64::from_bits(*b)),
            WireValue::Str(s) => Value::Str(self.heap.intern(s)),
            WireValue::Table(n) => resolve(w).ok_or(WireError::UnknownTable(*n))?,
            WireValue::Host(x) => resolve(w).ok_or(WireError::UnknownHost(*x))?,
        })
    }

    /// Table `t`'s live entries in traversal order: the array part
    /// ascending, then the hash part in insertion order (raw values, no
    /// metamethods).
    pub fn table_entries(&self, t: TableRef) -> impl Iterator<Item = (Value, Value)> + '_ {
        self.heap.tables.get(t).iter()
    }
}
