//! Conversions between Rust and Lua values.
//!
//! [`IntoLua`] / [`FromLua`] convert one value; [`IntoLuaMulti`] /
//! [`FromLuaMulti`] convert argument and result lists. Every single-value
//! type is also a multi-value one (one value; missing values read as nil),
//! tuples convert element by element (the last element may itself be
//! multi-valued, e.g. [`Variadic`]), and `()` is the empty list.
//!
//! The coercions follow the C API: an integer accepts a float with an exact
//! integer value and a numeric string (`lua_tointegerx`), a float accepts
//! an integer and a numeric string, a `String` accepts a number (formatted
//! as `tostring` does), and `bool` accepts any value by truthiness. Other
//! mismatches are [`ErrorKind::Conversion`](crate::error::ErrorKind)
//! errors; in the arguments of a callback they become `bad argument`
//! errors naming the position.
//!
//! `HashMap`s are converted to tables in sorted key order so that the
//! table's traversal order is deterministic.
//!
//! Calls and callbacks use the traits' hidden raw-value methods
//! (`from_raw`, `from_raw_multi`, `from_raw_args`, `push_into_stack`,
//! `push_into_stack_multi`; see the module docs of `lua`): they convert
//! between Rust values and the state's stack directly and must give the
//! same results and errors as the [`Value`]-based methods, which their
//! defaults call. Raw values are read word by word (`execute::load`): they
//! were just written by the VM.

use super::{AnyUserData, Function, Lua, LuaString, Result, Table, Thread, Value};
use crate::error::{Error, ErrorKind};
use crate::execute::load;
use crate::value::Value as Raw;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// A Rust value that can become a Lua value.
pub trait IntoLua {
    /// Converts `self` in state `lua`.
    fn into_lua(self, lua: &Lua) -> Result<Value>;

    /// Converts `self` and pushes it on the stack of `lua`'s state (used by
    /// calls and callbacks; not part of the public API).
    #[doc(hidden)]
    #[inline(always)]
    fn push_into_stack(self, lua: &Lua) -> Result<()>
    where
        Self: Sized,
    {
        let v = self.into_lua(lua)?;
        lua.push_value(&v)
    }
}

/// A Rust value that can be made from a Lua value.
pub trait FromLua: Sized {
    /// Converts `value` (from state `lua`).
    fn from_lua(value: Value, lua: &Lua) -> Result<Self>;

    /// Converts the raw value `raw`, which is kept alive by the state's
    /// stack while this runs (used by calls and callbacks; not part of the
    /// public API). The default makes a [`Value`] of it.
    #[doc(hidden)]
    #[inline]
    fn from_raw(raw: Raw, lua: &Lua) -> Result<Self> {
        Self::from_lua(lua.wrap_raw(raw)?, lua)
    }
}

/// A list of Lua values (arguments or results).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MultiValue(Vec<Value>);

impl MultiValue {
    /// An empty list.
    pub fn new() -> MultiValue {
        MultiValue(Vec::new())
    }

    /// The list of `v`.
    pub fn from_vec(v: Vec<Value>) -> MultiValue {
        MultiValue(v)
    }

    /// The values.
    pub fn into_vec(self) -> Vec<Value> {
        self.0
    }

    /// Removes and returns the first value (nil if empty).
    pub fn pop_front(&mut self) -> Value {
        if self.0.is_empty() {
            Value::Nil
        } else {
            self.0.remove(0)
        }
    }

    /// Adds a value at the end.
    pub fn push(&mut self, v: Value) {
        self.0.push(v);
    }
}

impl std::ops::Deref for MultiValue {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl IntoIterator for MultiValue {
    type Item = Value;
    type IntoIter = std::vec::IntoIter<Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromIterator<Value> for MultiValue {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Self {
        MultiValue(iter.into_iter().collect())
    }
}

/// Any number of values of type `T` (`...` in a callback's arguments or
/// results).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variadic<T>(pub Vec<T>);

impl<T> Variadic<T> {
    /// An empty list.
    pub fn new() -> Variadic<T> {
        Variadic(Vec::new())
    }
}

impl<T> std::ops::Deref for Variadic<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Variadic<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> FromIterator<T> for Variadic<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Variadic(iter.into_iter().collect())
    }
}

/// A Rust value that can become a list of Lua values.
pub trait IntoLuaMulti {
    /// Converts `self` in state `lua`.
    fn into_lua_multi(self, lua: &Lua) -> Result<MultiValue>;

    /// Converts `self` and pushes the values on the stack of `lua`'s
    /// state; returns how many (used by calls and callbacks; not part of
    /// the public API).
    #[doc(hidden)]
    #[inline]
    fn push_into_stack_multi(self, lua: &Lua) -> Result<usize>
    where
        Self: Sized,
    {
        let vs = self.into_lua_multi(lua)?;
        for v in vs.iter() {
            lua.push_value(v)?;
        }
        Ok(vs.len())
    }
}

/// A Rust value that can be made from a list of Lua values.
pub trait FromLuaMulti: Sized {
    /// Converts `values`; missing values read as nil, extra ones are
    /// ignored (unless the target is variadic).
    fn from_lua_multi(values: MultiValue, lua: &Lua) -> Result<Self>;

    /// As [`FromLuaMulti::from_lua_multi`], for the arguments of a callback
    /// whose first value is argument number `pos`: conversion errors
    /// become bad-argument errors.
    fn from_lua_args(values: MultiValue, pos: usize, lua: &Lua) -> Result<Self> {
        Self::from_lua_multi(values, lua).map_err(|e| as_bad_argument(e, pos))
    }

    /// [`FromLuaMulti::from_lua_multi`] of raw values kept alive by the
    /// state's stack while this runs (not part of the public API).
    #[doc(hidden)]
    #[inline]
    fn from_raw_multi(values: &[Raw], lua: &Lua) -> Result<Self> {
        Self::from_lua_multi(lua.wrap_raws(values)?, lua)
    }

    /// [`FromLuaMulti::from_lua_args`] of raw values kept alive by the
    /// state's stack while this runs (not part of the public API).
    #[doc(hidden)]
    #[inline]
    fn from_raw_args(values: &[Raw], pos: usize, lua: &Lua) -> Result<Self> {
        Self::from_lua_args(lua.wrap_raws(values)?, pos, lua)
    }
}

/// Value `i` of `values`, nil past the end (read word by word: the values
/// were just written, see `execute::load`).
#[inline(always)]
fn raw_at(values: &[Raw], i: usize) -> Raw {
    values.get(i).map_or(Raw::Nil, load)
}

/// A conversion error of argument `pos` as a bad-argument error.
fn as_bad_argument(e: Error, pos: usize) -> Error {
    match e.kind().clone() {
        ErrorKind::Conversion { from, to } => {
            let msg = format!("{} expected, got {}", lua_name_of(&to), from);
            let cause = e.cause().cloned();
            let out = Error::bad_argument(pos, None, &msg);
            match cause {
                Some(c) => out.with_cause(c),
                None => out,
            }
        }
        _ => e,
    }
}

/// The Lua-side name of a Rust target type, for messages.
fn lua_name_of(rust: &str) -> String {
    let base = rust.rsplit("::").next().unwrap_or(rust);
    match base {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => "integer".into(),
        "f32" | "f64" => "number".into(),
        "String" | "LuaString" => "string".into(),
        "Table" | "Vec" | "HashMap" | "BTreeMap" => "table".into(),
        "Function" => "function".into(),
        _ => base.to_string(),
    }
}

fn mismatch<T>(v: &Value, to: &str) -> Result<T> {
    Err(Error::conversion(v.type_name(), to, None))
}

impl<T: IntoLua> IntoLuaMulti for T {
    fn into_lua_multi(self, lua: &Lua) -> Result<MultiValue> {
        Ok(MultiValue(vec![self.into_lua(lua)?]))
    }

    #[inline(always)]
    fn push_into_stack_multi(self, lua: &Lua) -> Result<usize> {
        self.push_into_stack(lua)?;
        Ok(1)
    }
}

impl<T: FromLua> FromLuaMulti for T {
    fn from_lua_multi(values: MultiValue, lua: &Lua) -> Result<Self> {
        T::from_lua(values.0.into_iter().next().unwrap_or(Value::Nil), lua)
    }

    #[inline]
    fn from_raw_multi(values: &[Raw], lua: &Lua) -> Result<Self> {
        T::from_raw(raw_at(values, 0), lua)
    }

    #[inline]
    fn from_raw_args(values: &[Raw], pos: usize, lua: &Lua) -> Result<Self> {
        Self::from_raw_multi(values, lua).map_err(|e| as_bad_argument(e, pos))
    }
}

impl IntoLuaMulti for MultiValue {
    fn into_lua_multi(self, _: &Lua) -> Result<MultiValue> {
        Ok(self)
    }
}

impl FromLuaMulti for MultiValue {
    fn from_lua_multi(values: MultiValue, _: &Lua) -> Result<Self> {
        Ok(values)
    }
}

impl<T: IntoLua> IntoLuaMulti for Variadic<T> {
    fn into_lua_multi(self, lua: &Lua) -> Result<MultiValue> {
        self.0.into_iter().map(|v| v.into_lua(lua)).collect::<Result<_>>()
    }

    fn push_into_stack_multi(self, lua: &Lua) -> Result<usize> {
        let n = self.0.len();
        for v in self.0 {
            v.push_into_stack(lua)?;
        }
        Ok(n)
    }
}

impl<T: FromLua> FromLuaMulti for Variadic<T> {
    fn from_lua_multi(values: MultiValue, lua: &Lua) -> Result<Self> {
        values.0.into_iter().map(|v| T::from_lua(v, lua)).collect::<Result<_>>()
    }

    fn from_lua_args(values: MultiValue, pos: usize, lua: &Lua) -> Result<Self> {
        let conv = |(i, v)| T::from_lua(v, lua).map_err(|e| as_bad_argument(e, pos + i));
        values.0.into_iter().enumerate().map(conv).collect::<Result<_>>()
    }

    fn from_raw_multi(values: &[Raw], lua: &Lua) -> Result<Self> {
        values.iter().map(|v| T::from_raw(load(v), lua)).collect::<Result<_>>()
    }

    fn from_raw_args(values: &[Raw], pos: usize, lua: &Lua) -> Result<Self> {
        let conv = |(i, v)| T::from_raw(load(v), lua).map_err(|e| as_bad_argument(e, pos + i));
        values.iter().enumerate().map(conv).collect::<Result<_>>()
    }
}

impl IntoLuaMulti for () {
    fn into_lua_multi(self, _: &Lua) -> Result<MultiValue> {
        Ok(MultiValue::new())
    }

    #[inline]
    fn push_into_stack_multi(self, _: &Lua) -> Result<usize> {
        Ok(0)
    }
}

impl FromLuaMulti for () {
    fn from_lua_multi(_: MultiValue, _: &Lua) -> Result<Self> {
        Ok(())
    }

    #[inline]
    fn from_raw_multi(_: &[Raw], _: &Lua) -> Result<Self> {
        Ok(())
    }

    #[inline]
    fn from_raw_args(_: &[Raw], _: usize, _: &Lua) -> Result<Self> {
        Ok(())
    }
}

macro_rules! tuple_impls {
    ($($name:ident)* ; $last:ident) => {
        impl<$($name: IntoLua,)* $last: IntoLuaMulti> IntoLuaMulti for ($($name,)* $last,) {
            #[allow(non_snake_case, clippy::vec_init_then_push)]
            fn into_lua_multi(self, lua: &Lua) -> Result<MultiValue> {
                let ($($name,)* $last,) = self;
                let mut out = Vec::new();
                $(out.push($name.into_lua(lua)?);)*
                out.extend($last.into_lua_multi(lua)?.0);
                Ok(MultiValue(out))
            }

            #[allow(non_snake_case, unused_mut)]
            #[inline]
            fn push_into_stack_multi(self, lua: &Lua) -> Result<usize> {
                let ($($name,)* $last,) = self;
                let mut n = 0;
                $($name.push_into_stack(lua)?; n += 1;)*
                Ok(n + $last.push_into_stack_multi(lua)?)
            }
        }

        impl<$($name: FromLua,)* $last: FromLuaMulti> FromLuaMulti for ($($name,)* $last,) {
            #[allow(non_snake_case, unused_mut)]
            fn from_lua_multi(values: MultiValue, lua: &Lua) -> Result<Self> {
                let mut it = values.0.into_iter();
                $(let $name = $name::from_lua(it.next().unwrap_or(Value::Nil), lua)?;)*
                let $last = $last::from_lua_multi(MultiValue(it.collect()), lua)?;
                Ok(($($name,)* $last,))
            }

            #[allow(non_snake_case, unused_mut, unused_assignments)]
            fn from_lua_args(values: MultiValue, pos: usize, lua: &Lua) -> Result<Self> {
                let mut it = values.0.into_iter();
                let mut pos = pos;
                $(
                    let $name = $name::from_lua(it.next().unwrap_or(Value::Nil), lua)
                        .map_err(|e| as_bad_argument(e, pos))?;
                    pos += 1;
                )*
                let $last = $last::from_lua_args(MultiValue(it.collect()), pos, lua)?;
                Ok(($($name,)* $last,))
            }

            #[allow(non_snake_case, unused_mut)]
            #[inline]
            fn from_raw_multi(values: &[Raw], lua: &Lua) -> Result<Self> {
                let mut i = 0;
                $(
                    let $name = $name::from_raw(raw_at(values, i), lua)?;
                    i += 1;
                )*
                let $last = $last::from_raw_multi(values.get(i..).unwrap_or(&[]), lua)?;
                Ok(($($name,)* $last,))
            }

            #[allow(non_snake_case, unused_mut)]
            #[inline]
            fn from_raw_args(values: &[Raw], pos: usize, lua: &Lua) -> Result<Self> {
                let mut i = 0;
                $(
                    let $name = $name::from_raw(raw_at(values, i), lua)
                        .map_err(|e| as_bad_argument(e, pos + i))?;
                    i += 1;
                )*
                let $last = $last::from_raw_args(values.get(i..).unwrap_or(&[]), pos + i, lua)?;
                Ok(($($name,)* $last,))
            }
        }
    };
}

tuple_impls!(; A);
tuple_impls!(A; B);
tuple_impls!(A B; C);
tuple_impls!(A B C; D);
tuple_impls!(A B C D; E);
tuple_impls!(A B C D E; F);
tuple_impls!(A B C D E F; G);
tuple_impls!(A B C D E F G; H);
tuple_impls!(A B C D E F G H; I);
tuple_impls!(A B C D E F G H I; J);

// ----- single values ------------------------------------------------------

impl IntoLua for Value {
    fn into_lua(self, _: &Lua) -> Result<Value> {
        Ok(self)
    }
}

impl FromLua for Value {
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        Ok(value)
    }
}

impl IntoLua for &Value {
    fn into_lua(self, _: &Lua) -> Result<Value> {
        Ok(self.clone())
    }
}

impl IntoLua for bool {
    fn into_lua(self, _: &Lua) -> Result<Value> {
        Ok(Value::Boolean(self))
    }
}

impl FromLua for bool {
    /// Truthiness: only nil and false are false.
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        Ok(!matches!(value, Value::Nil | Value::Boolean(false)))
    }

    #[inline]
    fn from_raw(raw: Raw, _: &Lua) -> Result<Self> {
        Ok(!matches!(raw, Raw::Nil | Raw::Bool(false)))
    }
}

/// The number in a string value, if it is numeric (`lua_tonumber`).
fn str_number(s: &LuaString) -> Option<Raw> {
    crate::number::str_to_number(&s.as_bytes()).map(|n| match n {
        crate::number::Number::Int(i) => Raw::Int(i),
        crate::number::Number::Float(f) => Raw::Float(f),
    })
}

/// The value as an integer (`lua_tointegerx`).
fn to_integer(v: &Value) -> Option<i64> {
    let n = match v {
        Value::Integer(i) => return Some(*i),
        Value::Number(f) => Raw::Float(*f),
        Value::String(s) => str_number(s)?,
        _ => return None,
    };
    match n {
        Raw::Int(i) => Some(i),
        Raw::Float(f) => crate::number::float_to_int(f, crate::number::F2I::Exact),
        _ => None,
    }
}

/// The value as a float (`lua_tonumberx`).
fn to_number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(f) => Some(*f),
        Value::String(s) => match str_number(s)? {
            Raw::Int(i) => Some(i as f64),
            Raw::Float(f) => Some(f),
            _ => None,
        },
        _ => None,
    }
}

macro_rules! int_impls {
    ($($t:ty)*) => {$(
        impl IntoLua for $t {
            /// An integer, or a float if it does not fit in `i64`.
            fn into_lua(self, _: &Lua) -> Result<Value> {
                Ok(match i64::try_from(self) {
                    Ok(i) => Value::Integer(i),
                    Err(_) => Value::Number(self as f64),
                })
            }
        }

        impl FromLua for $t {
            fn from_lua(value: Value, _: &Lua) -> Result<Self> {
                let to = stringify!($t);
                let Some(i) = to_integer(&value) else {
                    let detail = matches!(value, Value::Number(_) | Value::String(_))
                        .then_some("number has no integer representation");
                    return Err(Error::conversion(value.type_name(), to, detail));
                };
                <$t>::try_from(i).map_err(|_| Error::conversion("number", to, Some("out of range")))
            }

            #[inline]
            fn from_raw(raw: Raw, lua: &Lua) -> Result<Self> {
                match raw {
                    Raw::Int(i) => <$t>::try_from(i).map_err(|_| {
                        Error::conversion("number", stringify!($t), Some("out of range"))
                    }),
                    _ => Self::from_lua(lua.wrap_raw(raw)?, lua),
                }
            }
        }
    )*};
}

int_impls!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

macro_rules! float_impls {
    ($($t:ty)*) => {$(
        impl IntoLua for $t {
            fn into_lua(self, _: &Lua) -> Result<Value> {
                Ok(Value::Number(self as f64))
            }
        }

        impl FromLua for $t {
            fn from_lua(value: Value, _: &Lua) -> Result<Self> {
                match to_number(&value) {
                    Some(f) => Ok(f as $t),
                    None => mismatch(&value, stringify!($t)),
                }
            }

            #[inline]
            fn from_raw(raw: Raw, lua: &Lua) -> Result<Self> {
                match raw {
                    Raw::Float(f) => Ok(f as $t),
                    Raw::Int(i) => Ok(i as f64 as $t),
                    _ => Self::from_lua(lua.wrap_raw(raw)?, lua),
                }
            }
        }
    )*};
}

float_impls!(f32 f64);

impl IntoLua for &str {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::String(lua.create_string(self)?))
    }
}

impl IntoLua for String {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::String(lua.create_string(self)?))
    }
}

impl IntoLua for &String {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::String(lua.create_string(self)?))
    }
}

impl FromLua for String {
    /// A UTF-8 string, or a number formatted as `tostring` does.
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        match &value {
            Value::String(s) => s.to_str(),
            Value::Integer(_) | Value::Number(_) => {
                let raw = match value {
                    Value::Integer(i) => Raw::Int(i),
                    Value::Number(f) => Raw::Float(f),
                    _ => Raw::Nil,
                };
                let mut b = Vec::new();
                crate::number::fmt_number(raw, &mut b);
                Ok(String::from_utf8_lossy(&b).into_owned())
            }
            _ => mismatch(&value, "String"),
        }
    }

    #[inline]
    fn from_raw(raw: Raw, lua: &Lua) -> Result<Self> {
        match raw {
            Raw::Str(s) => String::from_utf8(lua.with_state(|st| st.str_bytes(s).to_vec())?)
                .map_err(|_| Error::conversion("string", "String", Some("invalid utf-8"))),
            _ => Self::from_lua(lua.wrap_raw(raw)?, lua),
        }
    }
}

macro_rules! handle_impls {
    ($($t:ident => $variant:ident, $name:literal;)*) => {$(
        impl IntoLua for $t {
            fn into_lua(self, _: &Lua) -> Result<Value> {
                Ok(Value::$variant(self))
            }
        }

        impl IntoLua for &$t {
            fn into_lua(self, _: &Lua) -> Result<Value> {
                Ok(Value::$variant(self.clone()))
            }
        }

        impl FromLua for $t {
            fn from_lua(value: Value, _: &Lua) -> Result<Self> {
                match value {
                    Value::$variant(h) => Ok(h),
                    v => mismatch(&v, $name),
                }
            }
        }
    )*};
}

handle_impls! {
    LuaString => String, "LuaString";
    Table => Table, "Table";
    Function => Function, "Function";
    Thread => Thread, "Thread";
    AnyUserData => UserData, "AnyUserData";
}

impl<T: IntoLua> IntoLua for Option<T> {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        match self {
            Some(v) => v.into_lua(lua),
            None => Ok(Value::Nil),
        }
    }
}

impl<T: FromLua> FromLua for Option<T> {
    fn from_lua(value: Value, lua: &Lua) -> Result<Self> {
        match value {
            Value::Nil => Ok(None),
            v => T::from_lua(v, lua).map(Some),
        }
    }
}

impl<T: IntoLua> IntoLua for Vec<T> {
    /// A sequence `{v1, v2, ...}`.
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::Table(lua.create_sequence_from(self)?))
    }
}

impl<T: IntoLua + Clone> IntoLua for &[T] {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::Table(lua.create_sequence_from(self.iter().cloned())?))
    }
}

impl<T: FromLua> FromLua for Vec<T> {
    /// The values `t[1]..t[n]` (raw) up to the first nil.
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        match value {
            Value::Table(t) => t.sequence_values::<T>().collect(),
            v => mismatch(&v, "Vec"),
        }
    }
}

impl<K: IntoLua + Ord, V: IntoLua, S> IntoLua for HashMap<K, V, S> {
    /// A table, keys inserted in sorted order (deterministic traversal).
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        let mut pairs: Vec<(K, V)> = self.into_iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Value::Table(lua.create_table_from(pairs)?))
    }
}

impl<K: FromLua + Eq + Hash, V: FromLua, S: std::hash::BuildHasher + Default> FromLua
    for HashMap<K, V, S>
{
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        match value {
            Value::Table(t) => t.pairs::<K, V>().collect(),
            v => mismatch(&v, "HashMap"),
        }
    }
}

impl<K: IntoLua, V: IntoLua> IntoLua for BTreeMap<K, V> {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::Table(lua.create_table_from(self)?))
    }
}

impl<K: FromLua + Ord, V: FromLua> FromLua for BTreeMap<K, V> {
    fn from_lua(value: Value, _: &Lua) -> Result<Self> {
        match value {
            Value::Table(t) => t.pairs::<K, V>().collect(),
            v => mismatch(&v, "BTreeMap"),
        }
    }
}
