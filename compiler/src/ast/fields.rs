//! The fields of a table constructor, packed into bytes.
//!
//! # Why
//!
//! Data files are table constructors: a million numbers, or hundreds of
//! thousands of small records. As a vector of [`Field`]s, each field would
//! take a full tree node (a hundred bytes or more, plus a heap block per
//! nested node), many times the source text itself. [`Fields`] keeps what
//! such files are made of (literals, names, unary minus and nested tables
//! of the same) as a compact byte encoding, typically a few bytes a field,
//! and any other expression as a tree in a side vector. The parser appends
//! each field as it reads it, so a whole constructor's tree never exists;
//! codegen reads the fields back one at a time ([`Fields::iter`] decodes
//! each into an owned [`Field`]), so at most one field's tree exists at a
//! time there either.
//!
//! # Encoding
//!
//! A field is a kind byte (`POS`, `NAMED` followed by the name, or `KEYED`
//! followed by the key's value) and then its value. A value is a tag byte,
//! the change of line from the previous value of the same byte string (a
//! zigzag varint: lines usually repeat or grow by one) and the payload:
//! nothing (`nil`, `true`, `false`), a zigzag varint (`INT`), 8 bytes
//! (`FLOAT`), a length and bytes (`STR`), an operator byte and a value
//! (`UN`), the encoding of a nested constructor's own fields, length
//! prefixed (`TABLE`, only for a nested constructor with no side
//! expressions), or an index into the side vector (`OTHER`). Names and
//! strings are a varint length and the bytes.
//!
//! The encoding is private to this module and only ever read back by it; a
//! malformed stream (impossible) decodes as `nil` values rather than
//! panicking.
//!
//! # Small constructors
//!
//! Packing pays for a big constructor, or one nested in a big one, but not
//! for the small constructor of a statement (`t[#t+1] = {id=1, v=2}`),
//! whose tree is compiled and dropped at once: there, encoding and decoding
//! cost more than the fields themselves. So the parser makes such a
//! constructor [`Fields::small`]: its fields are kept as a plain vector
//! until there are `SMALL_MAX` of them, and only then packed. A small
//! constructor nested in a packed one is packed when it is appended to it.
//! Both forms read back the same fields, in the same order ([`Fields::iter`],
//! equality), so nothing outside this module can tell them apart.

use std::borrow::Cow;

use super::{Expr, ExprKind, Field, Line, Name, UnOp};

/// Fields a small constructor holds unpacked (see the module doc).
pub const SMALL_MAX: usize = 8;

/// The fields of a table constructor, in source order (see the module doc).
#[derive(Clone, Debug)]
pub struct Fields(Repr);

#[derive(Clone, Debug)]
enum Repr {
    /// A small constructor's fields, as they are.
    Small(Vec<Field>),
    /// The packed form.
    Packed(Packed),
}

/// The packed form of [`Fields`].
#[derive(Clone, Debug, Default)]
struct Packed {
    /// The encoded fields.
    bytes: Vec<u8>,
    /// Expressions the encoding does not cover, referred to by index (boxed:
    /// usually there are none, and a smaller `Fields` is a smaller `Expr`:
    /// 8 bytes here instead of a vector's 24).
    #[allow(clippy::box_collection)]
    others: Option<Box<Vec<Expr>>>,
    /// Number of fields.
    len: u32,
    /// Line of the last value encoded (for the line deltas).
    last_line: Line,
}

impl Default for Fields {
    fn default() -> Fields {
        Fields::new()
    }
}

/// Equal fields, whatever their form.
impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// Bytes reserved by the first field.
const INITIAL_BYTES: usize = 48;

const POS: u8 = 0;
const NAMED: u8 = 1;
const KEYED: u8 = 2;

const NIL: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 4;
const STR: u8 = 5;
const UN: u8 = 6;
const TABLE: u8 = 7;
const OTHER: u8 = 8;

impl Fields {
    /// No fields (packed as they come).
    pub fn new() -> Fields {
        Fields(Repr::Packed(Packed::default()))
    }

    /// No fields, for a small constructor (kept unpacked while there are
    /// at most `SMALL_MAX`).
    pub fn small() -> Fields {
        Fields(Repr::Small(Vec::new()))
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Small(v) => v.len(),
            Repr::Packed(p) => p.len as usize,
        }
    }

    /// True if there are no fields.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a field.
    pub fn push(&mut self, field: Field) {
        match &mut self.0 {
            Repr::Small(v) if v.len() < SMALL_MAX => v.push(field),
            Repr::Small(_) => {
                self.pack();
                self.push(field);
            }
            Repr::Packed(p) => p.push(field),
        }
    }

    /// The fields, in order: borrowed from a small constructor, decoded one
    /// at a time from a packed one.
    pub fn iter(&self) -> Iter<'_> {
        match &self.0 {
            Repr::Small(v) => Iter::Small(v.iter()),
            Repr::Packed(p) => Iter::Packed(Decoder { fields: p, pos: 0, last_line: 0 }),
        }
    }

    /// Calls `f` on each field in order, stopping at its first error (what
    /// [`Fields::iter`] does, without wrapping each field).
    pub fn try_for_each<E>(&self, mut f: impl FnMut(&Field) -> Result<(), E>) -> Result<(), E> {
        match &self.0 {
            Repr::Small(v) => v.iter().try_for_each(f),
            Repr::Packed(p) => Decoder { fields: p, pos: 0, last_line: 0 }.try_for_each(|x| f(&x)),
        }
    }

    /// Packs the fields of a small constructor.
    fn pack(&mut self) {
        if let Repr::Small(v) = &mut self.0 {
            let mut p = Packed::default();
            for f in std::mem::take(v) {
                p.push(f);
            }
            self.0 = Repr::Packed(p);
        }
    }
}

impl Packed {
    /// Appends a field.
    fn push(&mut self, field: Field) {
        if self.len == 0 {
            // most constructors are small: one allocation, not four growths
            self.bytes.reserve(INITIAL_BYTES);
        }
        self.len = self.len.saturating_add(1);
        match field {
            Field::Positional(v) => {
                self.bytes.push(POS);
                self.put_value(v);
            }
            Field::Named(name, v) => {
                self.bytes.push(NAMED);
                put_bytes(&mut self.bytes, &name);
                self.put_value(v);
            }
            Field::Keyed(k, v) => {
                self.bytes.push(KEYED);
                self.put_value(k);
                self.put_value(v);
            }
        }
    }

    /// Encodes a value: its tag, line and payload.
    fn put_value(&mut self, mut e: Expr) {
        // a nested constructor is packed (and then encoded in place if it
        // has no side expressions)
        if let ExprKind::Table(t) = &mut e.kind {
            t.pack();
        }
        let tag = match &e.kind {
            ExprKind::Nil => NIL,
            ExprKind::True => TRUE,
            ExprKind::False => FALSE,
            ExprKind::Int(_) => INT,
            ExprKind::Float(_) => FLOAT,
            ExprKind::Str(_) => STR,
            ExprKind::Un(..) => UN,
            ExprKind::Table(Fields(Repr::Packed(t))) if t.others.is_none() => TABLE,
            _ => OTHER,
        };
        self.bytes.push(tag);
        let delta = i64::from(e.line) - i64::from(self.last_line);
        put_varint(&mut self.bytes, zigzag(delta));
        self.last_line = e.line;
        match e.kind {
            ExprKind::Int(i) => put_varint(&mut self.bytes, zigzag(i)),
            ExprKind::Float(f) => self.bytes.extend_from_slice(&f.to_bits().to_le_bytes()),
            ExprKind::Str(s) => put_bytes(&mut self.bytes, &s),
            ExprKind::Un(op, a) => {
                self.bytes.push(op as u8);
                self.put_value(*a);
            }
            ExprKind::Table(Fields(Repr::Packed(t))) if tag == TABLE => {
                put_varint(&mut self.bytes, u64::from(t.len));
                put_bytes(&mut self.bytes, &t.bytes);
            }
            kind if tag == OTHER => {
                let others = self.others.get_or_insert_with(Box::default);
                put_varint(&mut self.bytes, others.len() as u64);
                others.push(Expr::new(kind, e.line));
            }
            _ => {}
        }
    }
}

impl From<Vec<Field>> for Fields {
    fn from(v: Vec<Field>) -> Fields {
        v.into_iter().collect()
    }
}

impl FromIterator<Field> for Fields {
    fn from_iter<I: IntoIterator<Item = Field>>(iter: I) -> Fields {
        let mut f = Fields::new();
        for x in iter {
            f.push(x);
        }
        f
    }
}

/// The iterator of [`Fields::iter`].
pub enum Iter<'a> {
    /// Over a small constructor's fields.
    Small(std::slice::Iter<'a, Field>),
    /// Decoding packed fields.
    Packed(Decoder<'a>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, Field>;

    fn next(&mut self) -> Option<Cow<'a, Field>> {
        match self {
            Iter::Small(it) => it.next().map(Cow::Borrowed),
            Iter::Packed(d) => d.next().map(Cow::Owned),
        }
    }
}

/// Decodes packed fields one at a time.
pub struct Decoder<'a> {
    fields: &'a Packed,
    pos: usize,
    last_line: Line,
}

impl Decoder<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.fields.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn varint(&mut self) -> u64 {
        let mut x = 0u64;
        let mut shift = 0;
        loop {
            let b = self.byte();
            x |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            shift += 7;
            if b & 0x80 == 0 || self.pos >= self.fields.bytes.len() {
                return x;
            }
        }
    }

    fn slice(&mut self) -> &[u8] {
        let n = self.varint() as usize;
        let all = &self.fields.bytes;
        let start = self.pos.min(all.len());
        let end = start.saturating_add(n).min(all.len());
        self.pos = end;
        &all[start..end]
    }

    fn bytes(&mut self) -> Vec<u8> {
        self.slice().to_vec()
    }

    fn name(&mut self) -> Name {
        Name::new(self.slice())
    }

    fn value(&mut self) -> Expr {
        let tag = self.byte();
        let line = (i64::from(self.last_line) + unzigzag(self.varint())) as Line;
        self.last_line = line;
        let kind = match tag {
            TRUE => ExprKind::True,
            FALSE => ExprKind::False,
            INT => ExprKind::Int(unzigzag(self.varint())),
            FLOAT => {
                let mut b = [0u8; 8];
                for x in &mut b {
                    *x = self.byte();
                }
                ExprKind::Float(f64::from_bits(u64::from_le_bytes(b)))
            }
            STR => ExprKind::Str(self.name()),
            UN => {
                let op = match self.byte() {
                    x if x == UnOp::Neg as u8 => UnOp::Neg,
                    x if x == UnOp::Not as u8 => UnOp::Not,
                    x if x == UnOp::Len as u8 => UnOp::Len,
                    _ => UnOp::BNot,
                };
                ExprKind::Un(op, Box::new(self.value()))
            }
            TABLE => {
                let len = u32::try_from(self.varint()).unwrap_or(u32::MAX);
                let bytes = self.bytes();
                ExprKind::Table(Fields(Repr::Packed(Packed {
                    bytes,
                    others: None,
                    len,
                    last_line: 0,
                })))
            }
            OTHER => {
                let i = self.varint() as usize;
                match self.fields.others.as_ref().and_then(|o| o.get(i)) {
                    Some(e) => return e.clone(),
                    None => ExprKind::Nil,
                }
            }
            _ => ExprKind::Nil,
        };
        Expr::new(kind, line)
    }
}

impl Iterator for Decoder<'_> {
    type Item = Field;

    fn next(&mut self) -> Option<Field> {
        if self.pos >= self.fields.bytes.len() {
            return None;
        }
        Some(match self.byte() {
            NAMED => {
                let name = self.name();
                Field::Named(name, self.value())
            }
            KEYED => {
                let k = self.value();
                Field::Keyed(k, self.value())
            }
            _ => Field::Positional(self.value()),
        })
    }
}

fn zigzag(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

fn unzigzag(x: u64) -> i64 {
    ((x >> 1) as i64) ^ -((x & 1) as i64)
}

fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(kind: ExprKind, line: Line) -> Expr {
        Expr::new(kind, line)
    }

    #[test]
    fn round_trip() {
        let inner: Fields = vec![Field::Positional(e(ExprKind::Str(b"a".into()), 3))].into();
        let fields = vec![
            Field::Positional(e(ExprKind::Int(-5), 2)),
            Field::Positional(e(ExprKind::Int(i64::MIN), 2)),
            Field::Positional(e(ExprKind::Float(-0.0), 1)),
            Field::Named(b"x".into(), e(ExprKind::Nil, 7)),
            Field::Keyed(e(ExprKind::True, 7), e(ExprKind::False, 8)),
            Field::Positional(e(ExprKind::Un(UnOp::Neg, Box::new(e(ExprKind::Int(3), 9))), 9)),
            Field::Positional(e(ExprKind::Table(inner), 3)),
            Field::Positional(e(ExprKind::Name(b"v".into()), 12)),
            Field::Positional(e(ExprKind::Int(u32::MAX as i64 * 4), u32::MAX)),
        ];
        let packed: Fields = fields.clone().into();
        assert_eq!(packed.len(), fields.len());
        let back: Vec<Field> = packed.iter().map(Cow::into_owned).collect();
        assert_eq!(back, fields);
        let Repr::Packed(p) = &packed.0 else { panic!("not packed") };
        assert!(p.others.as_ref().map_or(0, |o| o.len()) == 1);
        // the same fields, small then packed as they grow, read back the same
        for n in 0..fields.len() {
            let mut small = Fields::small();
            for f in &fields[..n] {
                small.push(f.clone());
            }
            assert_eq!(small.iter().map(Cow::into_owned).collect::<Vec<_>>(), fields[..n]);
            assert_eq!(small, fields[..n].to_vec().into());
        }
        let mut nested = Fields::new();
        let small_inner = {
            let mut f = Fields::small();
            f.push(Field::Positional(e(ExprKind::Int(1), 4)));
            f
        };
        nested.push(Field::Positional(e(ExprKind::Table(small_inner.clone()), 4)));
        let back: Vec<Field> = nested.iter().map(Cow::into_owned).collect();
        assert_eq!(back, vec![Field::Positional(e(ExprKind::Table(small_inner), 4))]);
        assert_eq!(std::mem::size_of::<Expr>(), 48);
    }
}
