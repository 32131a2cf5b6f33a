//! `serde` support (feature `serde`): any `Serialize` type to a Lua value
//! and any `Deserialize` type from one, in the shape of mlua's
//! `LuaSerdeExt`.
//!
//! The mapping: booleans, integers (as Lua integers when they fit in
//! `i64`, else floats), floats and strings map to themselves; `None` and
//! unit to nil; sequences and tuples to sequence tables `{v1, v2, ...}`;
//! maps and structs to tables with their keys (struct fields by name, in
//! declaration order, so traversal order is deterministic); enums as serde's
//! externally tagged form: a unit variant is its name as a string, other
//! variants a one-field table `{Variant = content}`. Bytes become strings.
//!
//! Deserializing a table for a self-describing target (`deserialize_any`)
//! gives a sequence if its keys are exactly `1..#t`, else a map; a target
//! that asks for a sequence or a map gets that view. Functions, threads and
//! userdata do not deserialize.

use super::{Lua, Result, Table, Value};
use crate::error::Error;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};

/// Conversions between Lua values and serde types.
#[allow(clippy::wrong_self_convention)] // mlua's names
pub trait LuaSerdeExt {
    /// Converts `t` to a Lua value.
    fn to_value<T: Serialize + ?Sized>(&self, t: &T) -> Result<Value>;
    /// Converts a Lua value to a `T`.
    fn from_value<T: DeserializeOwned>(&self, v: Value) -> Result<T>;
}

impl LuaSerdeExt for Lua {
    fn to_value<T: Serialize + ?Sized>(&self, t: &T) -> Result<Value> {
        t.serialize(Serializer { lua: self })
    }

    fn from_value<T: DeserializeOwned>(&self, v: Value) -> Result<T> {
        T::deserialize(Deserializer { value: v })
    }
}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::runtime(format!("serialize error: {msg}"))
    }
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::runtime(format!("deserialize error: {msg}"))
    }
}

/// Serializes into a Lua value of state `lua`.
struct Serializer<'a> {
    lua: &'a Lua,
}

/// A table being filled (sequence, map or struct).
struct TableBuilder<'a> {
    lua: &'a Lua,
    table: Table,
    next_index: i64,
    pending_key: Option<Value>,
    /// For enum variants: the name of the wrapping field.
    variant: Option<&'static str>,
}

impl<'a> TableBuilder<'a> {
    fn new(lua: &'a Lua, variant: Option<&'static str>) -> Result<TableBuilder<'a>> {
        Ok(TableBuilder {
            lua,
            table: lua.create_table()?,
            next_index: 1,
            pending_key: None,
            variant,
        })
    }

    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        let v = v.serialize(Serializer { lua: self.lua })?;
        self.table.raw_set(self.next_index, v)?;
        self.next_index += 1;
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<()> {
        let v = v.serialize(Serializer { lua: self.lua })?;
        self.table.raw_set(k, v)
    }

    fn finish(self) -> Result<Value> {
        match self.variant {
            None => Ok(Value::Table(self.table)),
            Some(name) => wrap_variant(self.lua, name, Value::Table(self.table)),
        }
    }
}

/// `{name = content}`.
fn wrap_variant(lua: &Lua, name: &str, content: Value) -> Result<Value> {
    let t = lua.create_table()?;
    t.raw_set(name, content)?;
    Ok(Value::Table(t))
}

impl<'a> ser::Serializer for Serializer<'a> {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = TableBuilder<'a>;
    type SerializeTuple = TableBuilder<'a>;
    type SerializeTupleStruct = TableBuilder<'a>;
    type SerializeTupleVariant = TableBuilder<'a>;
    type SerializeMap = TableBuilder<'a>;
    type SerializeStruct = TableBuilder<'a>;
    type SerializeStructVariant = TableBuilder<'a>;

    fn serialize_bool(self, v: bool) -> Result<Value> {
        Ok(Value::Boolean(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        Ok(Value::Integer(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        Ok(Value::Integer(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        Ok(i64::try_from(v).map_or(Value::Number(v as f64), Value::Integer))
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        Ok(Value::Number(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        Ok(Value::Number(v))
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<Value> {
        Ok(Value::String(self.lua.create_string(v)?))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value> {
        Ok(Value::String(self.lua.create_string(v)?))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::Nil)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::Nil)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value> {
        Ok(Value::Nil)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Value> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value> {
        let lua = self.lua;
        let content = v.serialize(self)?;
        wrap_variant(lua, variant, content)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, None)
    }
    fn serialize_tuple(self, _: usize) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, None)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, None)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, Some(variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, None)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<TableBuilder<'a>> {
        TableBuilder::new(self.lua, Some(variant))
    }
}

/// The sequence-like serializers all append to the table's array part.
macro_rules! sequence_builder {
    ($($tr:ident :: $m:ident),*) => {$(
        impl ser::$tr for TableBuilder<'_> {
            type Ok = Value;
            type Error = Error;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
                self.push(v)
            }
            fn end(self) -> Result<Value> {
                self.finish()
            }
        }
    )*};
}

sequence_builder!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for TableBuilder<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<()> {
        self.pending_key = Some(k.serialize(Serializer { lua: self.lua })?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        let k = self.pending_key.take().ok_or_else(|| Error::runtime("map value without key"))?;
        let v = v.serialize(Serializer { lua: self.lua })?;
        self.table.raw_set(k, v)
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

impl ser::SerializeStruct for TableBuilder<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<()> {
        self.field(k, v)
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for TableBuilder<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<()> {
        self.field(k, v)
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

/// Deserializes from one Lua value.
struct Deserializer {
    value: Value,
}

/// The entries of a table: `Some(values)` if its keys are exactly `1..n`.
fn as_sequence(t: &Table) -> Result<Option<Vec<Value>>> {
    let n = t.raw_len();
    let mut count = 0usize;
    for kv in t.pairs::<Value, Value>() {
        kv?;
        count += 1;
    }
    if count != n {
        return Ok(None);
    }
    t.sequence_values::<Value>().collect::<Result<Vec<_>>>().map(Some)
}

fn entries(t: &Table) -> Result<Vec<(Value, Value)>> {
    t.pairs::<Value, Value>().collect()
}

fn unsupported(v: &Value) -> Error {
    Error::conversion(v.type_name(), "serde value", Some("cannot deserialize this type"))
}

impl<'de> de::Deserializer<'de> for Deserializer {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Nil => visitor.visit_unit(),
            Value::Boolean(b) => visitor.visit_bool(b),
            Value::Integer(i) => visitor.visit_i64(i),
            Value::Number(f) => visitor.visit_f64(f),
            Value::String(s) => match s.to_str() {
                Ok(s) => visitor.visit_string(s),
                Err(_) => visitor.visit_byte_buf(s.as_bytes()),
            },
            Value::Table(t) => match as_sequence(&t)? {
                Some(vs) if !vs.is_empty() => visitor.visit_seq(Seq(vs.into_iter())),
                _ => visitor.visit_map(Map { entries: entries(&t)?.into_iter(), value: None }),
            },
            v => Err(unsupported(&v)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Nil => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Nil => visitor.visit_unit(),
            v => Err(Error::conversion(v.type_name(), "unit", None)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Table(t) => {
                let vs = t.sequence_values::<Value>().collect::<Result<Vec<_>>>()?;
                visitor.visit_seq(Seq(vs.into_iter()))
            }
            v => Err(Error::conversion(v.type_name(), "sequence", None)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Table(t) => {
                visitor.visit_map(Map { entries: entries(&t)?.into_iter(), value: None })
            }
            v => Err(Error::conversion(v.type_name(), "map", None)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::String(s) => visitor.visit_enum(s.to_str()?.into_deserializer()),
            Value::Table(t) => {
                let mut es = entries(&t)?;
                if es.len() != 1 {
                    return Err(Error::conversion("table", "enum", Some("expected one key")));
                }
                let (k, v) = es.remove(0);
                let name = match k {
                    Value::String(s) => s.to_str()?,
                    k => return Err(Error::conversion(k.type_name(), "enum variant name", None)),
                };
                visitor.visit_enum(Enum { name, value: v })
            }
            v => Err(Error::conversion(v.type_name(), "enum", None)),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf identifier ignored_any
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> de::SeqAccess<'de> for Seq {
    type Error = Error;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(v) => seed.deserialize(Deserializer { value: v }).map(Some),
            None => Ok(None),
        }
    }
}

struct Map {
    entries: std::vec::IntoIter<(Value, Value)>,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for Map {
    type Error = Error;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(Deserializer { value: k }).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let v = self.value.take().unwrap_or(Value::Nil);
        seed.deserialize(Deserializer { value: v })
    }
}

struct Enum {
    name: String,
    value: Value,
}

impl<'de> de::EnumAccess<'de> for Enum {
    type Error = Error;
    type Variant = Deserializer;
    fn variant_seed<V: de::DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Deserializer)> {
        let name: de::value::StringDeserializer<Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, Deserializer { value: self.value }))
    }
}

impl<'de> de::VariantAccess<'de> for Deserializer {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}
