//! Values across the two models: the seed's equality rules, the image of
//! a master value in the client model, and the decoding of a frame value
//! in the client model.
//!
//! **Equality** (seed 000, "Transmit Table Contents"): strings, numbers,
//! booleans and nil compare as usual (floats by their bits, so `-0.0` and
//! a NaN are transmitted exactly; an integer never equals a float); two
//! tables are equal if they have the same table number; two tangibles if
//! they have the same ID; two class tables if they have the same class
//! name; the two global environments are equal.
//!
//! **The image** of a master value is what the client should hold: the
//! value itself for scalars and strings; `table N` for an ordinary table
//! numbered N; `tangible ID` for a tangible database, *if the client model
//! has that tangible* (else nil: a tangible outside the visibility radius
//! cannot be referenced, and resending it every frame would change
//! nothing); `class NAME` if the client has that class (else nil);
//! `globalenv`; nil for everything else (functions, threads, userdata, the
//! registry, the published-globals table). A master entry and a client
//! entry are "equal" when the client's value is the image of the master's:
//! so an entry whose image is nil and which the client does not hold is
//! not sent again and again.
//!
//! **Classification of a table.** A table in a model's special set is
//! classified by content: the globals table; a live tangible (its
//! metatable's `__id` names an ID whose registry entry is that table); a
//! class (its `__class` names a `classdb` entry that is that table);
//! anything else is opaque. A table outside the special set is ordinary
//! and has a number (or, on the client, may have none: then it equals
//! nothing).
//!
//! Nothing here allocates in either heap, except [`Applier`] decoding
//! strings into the client heap.

use super::frame::{Key, Val};
use super::{DiffError, Pass, Reject};
use crate::world::World;
use luprex_vm::raw::{
    is_sortable, lookup_key, Numbering, Pairing, SpecialSet, State, StrRef, TableRef, Value,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// The engine tables and strings of one model that classification needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refs {
    pub globals: TableRef,
    pub reg: TableRef,
    pub classdb: TableRef,
    pub globalpub: TableRef,
    pub id: StrRef,
    pub index: StrRef,
    pub class: StrRef,
}

impl Refs {
    /// The refs of `st` (interns only strings every World has).
    pub fn new(st: &mut State) -> Refs {
        Refs {
            globals: st.globals(),
            reg: crate::registry_table(st, crate::tangible::TANGIBLES),
            classdb: crate::registry_table(st, crate::classes::CLASSDB),
            globalpub: crate::registry_table(st, crate::globals::GLOBALPUB),
            id: st.intern(b"__id"),
            index: st.intern(b"__index"),
            class: st.intern(b"__class"),
        }
    }
}

/// What a special table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    GlobalEnv,
    Tangible(u64),
    Class(StrRef),
    Opaque,
}

/// Classifies special table `t` of `st`.
pub(crate) fn classify(st: &State, r: &Refs, t: TableRef) -> Special {
    if t == r.globals {
        return Special::GlobalEnv;
    }
    if let Some(mt) = st.metatable(Value::Table(t)) {
        if let Value::Int(id) = st.table(mt).get_str(r.id) {
            if id > 0 && st.raw_eq(st.table(r.reg).get_int(id), Value::Table(t)) {
                return Special::Tangible(id as u64);
            }
        }
    }
    if let Value::Str(s) = st.table(t).get_str(r.class) {
        if st.raw_eq(st.table(r.classdb).get_str(s), Value::Table(t)) {
            return Special::Class(s);
        }
    }
    Special::Opaque
}

/// The class name of tangible table `t` (its metatable's `__index` is a
/// class), if any.
pub(crate) fn class_name_of(st: &State, r: &Refs, t: TableRef) -> Option<StrRef> {
    let mt = st.metatable(Value::Table(t))?;
    let Value::Table(c) = st.table(mt).get_str(r.index) else { return None };
    match classify(st, r, c) {
        Special::Class(s) => Some(s),
        _ => None,
    }
}

/// The client's table numbers: its own numbering (pass 4) and the tables
/// the frame created (pass 6).
#[derive(Default)]
pub(crate) struct ClientNumbers {
    numbering: Numbering,
    created: Vec<TableRef>,
    created_num: HashMap<u32, u32>,
}

impl ClientNumbers {
    pub fn set_numbering(&mut self, n: Numbering) {
        self.numbering = n;
        self.created.clear();
        self.created_num.clear();
    }

    pub fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// Takes the client's own numbering out (after a frame).
    pub fn take_numbering(&mut self) -> Numbering {
        std::mem::take(&mut self.numbering)
    }

    /// Records a table created by the frame: it gets the next number.
    pub fn push_created(&mut self, t: TableRef) {
        self.created.push(t);
        let n = self.len() as u32;
        self.created_num.insert(t.index(), n);
    }

    /// How many tables are numbered.
    pub fn len(&self) -> usize {
        self.numbering.len() + self.created.len()
    }

    /// The table numbered `n`.
    pub fn table(&self, n: u32) -> Option<TableRef> {
        let own = self.numbering.len();
        if n as usize <= own {
            return self.numbering.table(n);
        }
        self.created.get(n as usize - own - 1).copied()
    }

    /// The number of table `t`.
    pub fn number_of(&self, t: TableRef) -> Option<u32> {
        self.numbering.number_of(t).or_else(|| self.created_num.get(&t.index()).copied())
    }

    /// The client's own numbered tables, in number order.
    pub fn tables(&self) -> impl Iterator<Item = &TableRef> {
        self.numbering.tables().iter().chain(self.created.iter())
    }
}

/// A table's identity across the models, for comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ident<'a> {
    Num(u32),
    Tangible(u64),
    Class(&'a [u8]),
    GlobalEnv,
    /// Image nil (master) / equals nothing (client).
    None,
}

/// String keys translated between the heaps during one frame (each
/// translation hashes the string and probes the other interner; a frame
/// compares the same few keys over and over). Master to client: only the
/// strings found are remembered, since the frame interns new strings into
/// the client; client to master: both answers (the master does not change
/// during a frame). Looked up by handle index, never iterated.
#[derive(Default)]
pub(crate) struct KeyCache {
    to_client: RefCell<HashMap<u32, StrRef>>,
    to_master: RefCell<HashMap<u32, Option<StrRef>>>,
}

/// The comparison context of passes 7 and 8: master and client (the
/// ServerSync copy) with their refs, special sets and numberings.
pub(crate) struct Compare<'a> {
    pub m: &'a State,
    mr: &'a Refs,
    mspecial: &'a SpecialSet,
    pairing: &'a Pairing,
    pub c: &'a State,
    cr: &'a Refs,
    cspecial: &'a SpecialSet,
    pub cnums: &'a ClientNumbers,
    keys: &'a KeyCache,
}

impl<'a> Compare<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        m: &'a State,
        mr: &'a Refs,
        mspecial: &'a SpecialSet,
        pairing: &'a Pairing,
        c: &'a State,
        cr: &'a Refs,
        cspecial: &'a SpecialSet,
        cnums: &'a ClientNumbers,
        keys: &'a KeyCache,
    ) -> Compare<'a> {
        Compare { m, mr, mspecial, pairing, c, cr, cspecial, cnums, keys }
    }

    /// Master key `mk` as a client key (`lookup_key`, cached).
    fn client_key(&self, mk: Value) -> Option<Value> {
        let Value::Str(s) = mk else { return lookup_key(self.m, mk, self.c) };
        if let Some(&c) = self.keys.to_client.borrow().get(&s.index()) {
            return Some(Value::Str(c));
        }
        let r = lookup_key(self.m, mk, self.c);
        if let Some(Value::Str(c)) = r {
            self.keys.to_client.borrow_mut().insert(s.index(), c);
        }
        r
    }

    /// Client key `ck` as a master key (`lookup_key`, cached).
    fn master_key(&self, ck: Value) -> Option<Value> {
        let Value::Str(s) = ck else { return lookup_key(self.c, ck, self.m) };
        if let Some(&r) = self.keys.to_master.borrow().get(&s.index()) {
            return r.map(Value::Str);
        }
        let r = lookup_key(self.c, ck, self.m);
        let m = match r {
            Some(Value::Str(m)) => Some(m),
            _ => None,
        };
        self.keys.to_master.borrow_mut().insert(s.index(), m);
        r
    }

    /// Whether master table `t` is special (classified by content).
    pub fn master_special(&self, t: TableRef) -> bool {
        self.mspecial.contains(t)
    }

    /// The master table numbered `n`.
    pub fn master_table(&self, n: u32) -> Option<TableRef> {
        self.pairing.table(n)
    }

    /// The highest master number.
    pub fn max_number(&self) -> u32 {
        self.pairing.max_number()
    }

    fn master_ident(&self, t: TableRef) -> Ident<'a> {
        if !self.mspecial.contains(t) {
            return self.pairing.number_of(t).map_or(Ident::None, Ident::Num);
        }
        match classify(self.m, self.mr, t) {
            Special::GlobalEnv => Ident::GlobalEnv,
            Special::Tangible(id) => {
                if matches!(self.c.table(self.cr.reg).get_int(id as i64), Value::Table(_)) {
                    Ident::Tangible(id)
                } else {
                    Ident::None
                }
            }
            Special::Class(s) => {
                let has = lookup_key(self.m, Value::Str(s), self.c).is_some_and(|k| {
                    matches!(self.c.table(self.cr.classdb).get(k), Value::Table(_))
                });
                if has && std::str::from_utf8(self.m.str_bytes(s)).is_ok() {
                    Ident::Class(self.m.str_bytes(s))
                } else {
                    Ident::None
                }
            }
            Special::Opaque => Ident::None,
        }
    }

    fn client_ident(&self, t: TableRef) -> Option<Ident<'a>> {
        if !self.cspecial.contains(t) {
            return self.cnums.number_of(t).map(Ident::Num);
        }
        match classify(self.c, self.cr, t) {
            Special::GlobalEnv => Some(Ident::GlobalEnv),
            Special::Tangible(id) => Some(Ident::Tangible(id)),
            Special::Class(s) => Some(Ident::Class(self.c.str_bytes(s))),
            Special::Opaque => None,
        }
    }

    /// Whether the image of master value `mv` is nil.
    pub fn image_is_nil(&self, mv: Value) -> bool {
        match mv {
            Value::Nil => true,
            Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => false,
            Value::Table(t) => self.master_ident(t) == Ident::None,
            _ => true,
        }
    }

    /// Whether client value `cv` is the image of master value `mv`.
    pub fn same(&self, mv: Value, cv: Value) -> bool {
        match (mv, cv) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => self.m.str_bytes(a) == self.c.str_bytes(b),
            (Value::Table(a), Value::Table(b)) => {
                let mi = self.master_ident(a);
                mi != Ident::None && self.client_ident(b) == Some(mi)
            }
            (mv, Value::Nil) => self.image_is_nil(mv),
            _ => false,
        }
    }

    /// The image of master value `mv`.
    pub fn image(&self, mv: Value) -> Val {
        match mv {
            Value::Nil => Val::Nil,
            Value::Bool(b) => Val::Bool(b),
            Value::Int(i) => Val::Int(i),
            Value::Float(f) => Val::Float(f.to_bits()),
            Value::Str(s) => Val::Str(self.m.str_bytes(s).to_vec()),
            Value::Table(t) => match self.master_ident(t) {
                Ident::Num(n) => Val::Table(n),
                Ident::Tangible(id) => Val::Tangible(id),
                Ident::Class(b) => Val::Class(String::from_utf8_lossy(b).into_owned()),
                Ident::GlobalEnv => Val::GlobalEnv,
                Ident::None => Val::Nil,
            },
            _ => Val::Nil,
        }
    }

    /// The client value under master key `mk` in client table `tc`.
    pub fn client_get(&self, tc: TableRef, mk: Value) -> Value {
        match self.client_key(mk) {
            Some(k) => self.c.table(tc).get(k),
            None => Value::Nil,
        }
    }

    /// The master value under client key `ck` in master table `tm`.
    pub fn master_get(&self, tm: TableRef, ck: Value) -> Value {
        match self.master_key(ck) {
            Some(k) => self.m.table(tm).get(k),
            None => Value::Nil,
        }
    }

    /// Whether master key `a` and client key `b` are the same key.
    pub fn same_key(&self, a: Value, b: Value) -> bool {
        match (a, b) {
            (Value::Str(x), Value::Str(y)) => self.m.str_bytes(x) == self.c.str_bytes(y),
            (Value::Int(x), Value::Int(y)) => x == y,
            (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
            (Value::Bool(x), Value::Bool(y)) => x == y,
            _ => false,
        }
    }
}

/// The wire form of sortable key `k` of `st`.
pub(crate) fn key_of(st: &State, k: Value) -> Option<Key> {
    if !is_sortable(k) {
        return None;
    }
    Some(match k {
        Value::Bool(b) => Key::Bool(b),
        Value::Int(i) => Key::Int(i),
        Value::Float(f) => Key::Float(f.to_bits()),
        Value::Str(s) => Key::Str(st.str_bytes(s).to_vec()),
        _ => return None,
    })
}

/// Decodes frame keys and values into the client model.
pub(crate) struct Applier<'a> {
    pub refs: &'a Refs,
    pub nums: &'a ClientNumbers,
    pub pass: Pass,
}

impl Applier<'_> {
    fn reject(&self, r: Reject) -> DiffError {
        DiffError::reject(self.pass, r)
    }

    /// The rejection of a bad key in this pass.
    pub fn bad_key(&self) -> DiffError {
        self.reject(Reject::BadKey)
    }

    /// The client value of `v`.
    pub fn value(&self, w: &mut World, v: &Val) -> Result<Value, DiffError> {
        let st = w.state_mut();
        Ok(match v {
            Val::Nil => Value::Nil,
            Val::Bool(b) => Value::Bool(*b),
            Val::Int(i) => Value::Int(*i),
            Val::Float(b) => Value::Float(f64::from_bits(*b)),
            Val::Str(s) => Value::Str(st.intern(s)),
            Val::Table(n) => Value::Table(
                self.nums.table(*n).ok_or_else(|| self.reject(Reject::UnknownTable(*n)))?,
            ),
            Val::Tangible(id) => {
                match i64::try_from(*id).map(|i| st.table(self.refs.reg).get_int(i)) {
                    Ok(t @ Value::Table(_)) => t,
                    _ => return Err(self.reject(Reject::UnknownTangible(*id))),
                }
            }
            Val::Class(name) => {
                let s = st.intern(name.as_bytes());
                match st.table(self.refs.classdb).get_str(s) {
                    t @ Value::Table(_) => t,
                    _ => return Err(self.reject(Reject::UnknownClass(name.clone()))),
                }
            }
            Val::GlobalEnv => Value::Table(self.refs.globals),
        })
    }

    /// The client key of `k` (not the metatable).
    pub fn key(&self, w: &mut World, k: &Key) -> Result<Value, DiffError> {
        Ok(match k {
            Key::Metatable => return Err(self.reject(Reject::BadKey)),
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::Int(*i),
            Key::Float(b) => Value::Float(f64::from_bits(*b)),
            Key::Str(s) => Value::Str(w.state_mut().intern(s)),
        })
    }

    /// Stores `k → v` in client table `t` (raw); the metatable key only if
    /// `meta`.
    pub fn set(
        &self,
        w: &mut World,
        t: TableRef,
        k: &Key,
        v: &Val,
        meta: bool,
    ) -> Result<(), DiffError> {
        let val = self.value(w, v)?;
        let st = w.state_mut();
        let key = match k {
            Key::Metatable => {
                if !meta {
                    return Err(self.reject(Reject::BadKey));
                }
                match val {
                    Value::Nil => st.set_table_metatable(t, None),
                    Value::Table(mt) => st.set_table_metatable(t, Some(mt)),
                    _ => return Err(self.reject(Reject::BadMetatable)),
                }
                return Ok(());
            }
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::Int(*i),
            Key::Float(b) => Value::Float(f64::from_bits(*b)),
            Key::Str(s) => Value::Str(st.intern(s)),
        };
        st.try_table_set(Value::Table(t), key, val).map_err(|_| self.reject(Reject::BadKey))
    }
}
