//! Traversal by position (`next`): a table's positions are its array
//! slots, then its hash entries in insertion order, so position `p`
//! (1-based in what is returned) names the pair to resume after. A
//! position stays valid until the next rehash (an insertion or
//! `TableMut::resize_array`).
//!
//! `next(t, k)` must find `k`'s position before it scans on. The caller
//! keeps the position the last step returned (the state's `next_hint`):
//! when `k` is the hash key just before it, as in a `pairs` loop, the
//! step skips the key's lookup ([`TableView::next_step`]). The hint can
//! only save work: it is checked against the key, so a stale hint (another
//! table, a rehash) is never followed.

use super::*;

/// What `next(t, k)` finds ([`TableView::next_step`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NextStep {
    /// The pair after `k` with the position to resume from; `None` at the
    /// end of the traversal.
    pub found: Option<(usize, Value, Value)>,
    /// The bytes of empty slots skipped (a table emptied of most of its
    /// entries makes each step scan them): 16-byte slots, charged as work.
    pub scanned: usize,
}

impl<const F: bool> TableView<'_, F> {
    /// The traversal position just after `key` (0 for nil), or `None` if
    /// the key is not in the table.
    pub fn position_after(self, key: Value) -> Option<usize> {
        let n = self.t.alen as usize;
        let k = match normalize(key) {
            Norm::Nil => return Some(0),
            Norm::NaN => return None,
            Norm::Int(i) if (i as u64).wrapping_sub(1) < n as u64 => return Some(i as usize),
            Norm::Int(i) => Value::Int(i),
            Norm::Other(k) => k,
        };
        match self.probe(k, key_hash(k)) {
            Probe::Found(_, e) => Some(n + e + 1),
            Probe::Absent => None,
        }
    }

    /// Positional traversal: the first live pair at position `>= pos`
    /// (positions `0..array_len_raw()` are the array part, then the hash
    /// entries), with the position to resume from. Positions stay valid
    /// until the next rehash (an insertion, or `TableMut::resize_array`);
    /// this avoids the key lookup that [`TableView::next`] does at each step.
    #[inline]
    pub fn next_at(self, pos: usize) -> Option<(usize, Value, Value)> {
        let (body, n, elen) = (self.body(), self.t.alen as usize, self.t.elen as usize);
        scan(body, n, 3 * self.t.hcap as usize, &body[..2 * elen], pos)
    }

    /// `next(t, key)` from the traversal hint `hint` (see the module
    /// docs): `None` if `key` is not in the table. The body is read once.
    #[inline]
    pub(crate) fn next_step(self, hint: usize, key: Value) -> Option<NextStep> {
        let (body, n, elen) = (self.body(), self.t.alen as usize, self.t.elen as usize);
        let ents = &body[..2 * elen];
        let pos = if key.is_nil() {
            0
        } else if hint
            .checked_sub(n + 1)
            .and_then(|e| ents.get(2 * e))
            .is_some_and(|k| k.raw_eq_interned(key))
        {
            hint
        } else {
            self.position_after(key)?
        };
        let found = scan(body, n, 3 * self.t.hcap as usize, ents, pos);
        let end = found.map_or(n + elen, |(p, _, _)| p - 1);
        Some(NextStep { found, scanned: end.saturating_sub(pos).saturating_mul(16) })
    }
}

/// The first live pair at position `>= pos` of a body whose array part
/// (`n` slots) starts at `at` and whose entries are `ents`.
#[inline(always)]
fn scan(
    body: &[Value],
    n: usize,
    at: usize,
    ents: &[Value],
    pos: usize,
) -> Option<(usize, Value, Value)> {
    if pos < n {
        let array = &body[at..];
        if let Some(i) = array[pos..].iter().position(|v| !v.is_nil()) {
            let p = pos + i;
            return Some((p + 1, Value::Int(p as i64 + 1), array[p]));
        }
    }
    let mut e = pos.saturating_sub(n);
    while let Some(pair) = ents.get(2 * e..2 * e + 2) {
        if !pair[1].is_nil() {
            return Some((n + e + 1, pair[0], pair[1]));
        }
        e += 1;
    }
    None
}
