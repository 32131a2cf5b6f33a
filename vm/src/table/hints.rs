//! Entry hints for string-key lookups (a lookup cache, not table state).
//!
//! A string-key read (`t.name`, `t:name()`, a global) would hash the key,
//! read an index slot and then the entry it names: three dependent loads
//! and a probe loop, a quarter of an object-oriented benchmark's time
//! (`permute`, `richards`). But the tables a given field name is read from
//! are usually built alike (the objects of one class, one constructor), so
//! the key sits in the same entry each time. [`KeyHints`] remembers, per
//! interned string (by its handle's index), the entry where a lookup last
//! found it; [`TableView::get_str_hinted`] first checks that entry (one
//! compare: entries hold their keys) and falls back to the full lookup,
//! which refreshes the hint.
//!
//! A hint is only ever a guess that is checked against the table itself,
//! so it cannot change a result: it is not part of the heap, is neither
//! journaled, persisted nor hashed (the state keeps it as host data, like
//! the instruction budget), and a stale one after a rehash, a rollback or
//! a load is merely a miss. Its contents depend only on the sequence of
//! lookups, so speed stays deterministic too.

use super::TableView;
use crate::value::{StrRef, Value};
use std::cell::Cell;

/// Last entry index where each string key was found (see the module docs).
#[derive(Default)]
pub struct KeyHints {
    slots: Vec<Cell<u32>>,
}

impl KeyHints {
    /// The hint cell of key `s`, if the table covers it.
    #[inline(always)]
    fn slot(&self, s: StrRef) -> Option<&Cell<u32>> {
        self.slots.get(s.index() as usize)
    }

    /// Makes room for key `s` (the dispatch loop calls this before a
    /// hinted lookup, where it may take `&mut`).
    #[inline(always)]
    pub(crate) fn cover(&mut self, s: StrRef) {
        if s.index() as usize >= self.slots.len() {
            self.grow(s);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, s: StrRef) {
        let n = (s.index() as usize + 1).max(2 * self.slots.len()).max(256);
        self.slots.resize_with(n, || Cell::new(0));
    }
}

impl TableView<'_> {
    /// Raw `t[s]` for a string key, checking the entry `hints` names first
    /// (see the module docs): the same answer as [`TableView::get_str`].
    #[inline(always)]
    pub fn get_str_hinted(self, s: StrRef, hints: &KeyHints) -> Value {
        self.find_str_entry_hinted(s, hints).map_or(Value::Nil, |(_, v)| v)
    }

    /// [`TableView::find_str_entry`], checking the hinted entry first. The
    /// check is inline; a miss is a call (the dispatch loop inlines this in
    /// several places, and its size costs registers everywhere in it).
    #[inline(always)]
    pub(crate) fn find_str_entry_hinted(
        self,
        s: StrRef,
        hints: &KeyHints,
    ) -> Option<(usize, Value)> {
        if let Some(cell) = hints.slot(s) {
            let e = cell.get() as usize;
            if let Some([Value::Str(x), v]) = self.ents().get(2 * e..2 * e + 2) {
                if *x == s {
                    return Some((e, *v));
                }
            }
        }
        self.find_str_entry_miss(s, hints)
    }

    /// The full lookup, which sets the hint.
    #[inline(never)]
    fn find_str_entry_miss(self, s: StrRef, hints: &KeyHints) -> Option<(usize, Value)> {
        let r = self.find_str_entry(s);
        if let (Some((e, _)), Some(cell)) = (r, hints.slot(s)) {
            cell.set(e as u32);
        }
        r
    }
}
