//! The table header's body pointer (see "The body pointer" in the
//! module docs of `table.rs`): how it is set with the body, taken again
//! in the store's epoch, and read with or without the epoch test; and the
//! `hash_ints` bit that shares the epoch's 16 bits.

use super::*;

/// A table's cached body address ([`Table`]'s `bp`).
#[derive(Clone, Copy, Debug)]
pub(super) struct BodyPtr(pub(super) *mut Value);

// SAFETY: a body pointer points into the store of the `Tables` (or
// `OwnedTable`) that holds the header; it moves and is shared with them,
// and is dereferenced only through a borrow of that store's owner, as the
// chunk it points into would be.
unsafe impl Send for BodyPtr {}
// SAFETY: as above.
unsafe impl Sync for BodyPtr {}

impl Table {
    /// Sets the body to block `body` of `store`, and the body pointer with
    /// it (the only way `body` changes once a table exists).
    #[inline]
    pub(super) fn set_body(&mut self, store: &TableStore, body: Addr) {
        self.body = body;
        self.refresh_bp(store);
    }

    /// Takes the body pointer again, in the store's current epoch.
    #[inline]
    pub(super) fn refresh_bp(&mut self, store: &TableStore) {
        self.bp = BodyPtr(store.vals.block_ptr(self.body));
        self.ep = (self.ep & HASH_INTS) | store.vals.epoch();
    }

    /// The epoch `bp` was taken in (see `ep`).
    #[inline(always)]
    pub(super) fn bp_epoch(&self) -> u16 {
        self.ep & EPOCH_MASK
    }

    /// Whether the hash part may hold a positive integer key (false: it
    /// holds none, live or tombstone). Set by every insertion of one,
    /// recomputed by every rebuild of the hash part. While it is clear,
    /// an integer key `i >= 1` outside the array part is absent without a
    /// probe, and an append (key `alen + 1`) needs no lookup: a table with
    /// fields and an array (`{n = 0}`, an object with a list) appends
    /// through the loop's fast path as a plain array does.
    #[inline(always)]
    pub(crate) fn hash_ints(&self) -> bool {
        self.ep & HASH_INTS != 0
    }

    /// Sets [`Table::hash_ints`].
    #[inline(always)]
    pub(super) fn set_hash_ints(&mut self, on: bool) {
        self.ep = (self.ep & EPOCH_MASK) | if on { HASH_INTS } else { 0 };
    }

    /// Where the body is: the body pointer if it was taken in the store's
    /// current epoch, else the address read through the chunk table (out
    /// of line: after a rollback that moved a buffer, until the body
    /// moves).
    #[inline(always)]
    pub(super) fn body_ptr(&self, store: &TableStore) -> *mut Value {
        debug_assert!(self.bp_ok(store));
        if !store.vals.stale() || self.bp_epoch() == store.vals.epoch() {
            self.bp.0
        } else {
            store.vals.block_ptr_cold(self.body)
        }
    }

    /// [`Table::body_ptr`] where the caller knows whether the store holds
    /// stale pointers: `FRESH` (the dispatch loop's fresh instance, run
    /// only while [`Store::stale`] is clear) takes the body pointer with
    /// no test at all.
    #[inline(always)]
    pub(super) fn body_ptr_in<const FRESH: bool>(&self, store: &TableStore) -> *mut Value {
        if FRESH {
            debug_assert!(!store.vals.stale() && self.bp_ok(store));
            self.bp.0
        } else {
            self.body_ptr(store)
        }
    }

    /// The body pointer invariant (debug checks): in the epoch it was
    /// taken in, the body pointer is the body's address.
    pub(super) fn bp_ok(&self, store: &TableStore) -> bool {
        let old = store.vals.stale() && self.bp_epoch() != store.vals.epoch();
        old || self.bp.0 == store.vals.block_ptr(self.body)
    }
}
