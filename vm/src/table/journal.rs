//! The tables' share of snapshots: journal levels over the headers (the
//! arena's undo journal), the contents (the store's saved pages), the
//! write log and the collector's barrier state, and the body pointers
//! after a rollback.
//!
//! A rollback that swaps a saved page's buffer back in (or drops chunks)
//! moves the store to a new buffer epoch (`store.rs`): every body pointer
//! into a buffer swapped out is stale. The headers the rollback put back
//! take theirs again at once. The others either all take theirs again too,
//! when there are few enough header slots (`EAGER_REFRESH`: a walk of the
//! arena, about 1.2 ns a header: 5 µs at the limit, leaving the store clear of stale pointers
//! so that the dispatch loop runs its fresh instance), or keep them and
//! leave the store marked stale, each read then testing its pointer's
//! epoch (a rollback stays proportional to what changed, whatever the
//! heap's size). The rollback that brings the 15-bit epoch round past 0
//! always refreshes every header, so that no pointer of the epoch's last
//! round passes for a current one.

use super::*;

/// Header slots up to which a rollback that moved a buffer takes every
/// body pointer again (about 1.2 ns a header: 5 µs at the limit), so that the store stays
/// clear of stale pointers and reads skip the epoch test (see "The body
/// pointer"); above it, only the headers the rollback put back.
pub(super) const EAGER_REFRESH: usize = 4096;

impl Tables {
    /// After a rollback (the store's epoch was `before`): the headers it
    /// put back (`restored`) take their body pointers again, so that none
    /// taken in an older epoch is ever live; and when the epoch has come
    /// round to one that older pointers may still carry, every live header
    /// does (once per 32,768 rollbacks that moved a buffer).
    fn refresh_bps(&mut self, before: u16, restored: &[u32]) {
        let now = self.store.vals.epoch();
        let moved = now != before;
        // The epoch came round past 0 (one bump per level rolled back), or
        // a buffer moved and there are few enough headers to take every
        // pointer again (then none is stale).
        let wrapped = u32::from(before) + u32::from(now.wrapping_sub(before) & EPOCH_MASK)
            > u32::from(EPOCH_MASK);
        let all = wrapped || (moved && self.arena.capacity_slots() <= EAGER_REFRESH);
        let store = &self.store;
        if all {
            self.arena.for_each_cache_mut(|t| t.refresh_bp(store));
        } else {
            for &i in restored {
                if let Some(t) = self.arena.cache_mut(i) {
                    t.refresh_bp(store);
                }
            }
        }
        if all || moved {
            self.store.vals.set_stale(!all);
        }
    }

    /// Opens a journal level (headers and contents).
    pub fn journal_begin(&mut self) {
        self.arena.journal_begin();
        self.store.journal_begin();
        self.writes.journal_begin();
        self.gc_saved.push((self.watch, self.fwd.clone()));
        self.sync_hooks();
    }

    /// Undoes every change since level `level` (which stays open).
    pub fn journal_rollback_to(&mut self, level: usize) {
        let epoch = self.store.vals.epoch();
        let mut restored = Vec::new();
        self.arena.journal_rollback_to(level, |i, _, _| restored.push(i));
        self.store.journal_rollback_to(level);
        self.refresh_bps(epoch, &restored);
        self.writes.journal_rollback_to(level);
        self.gc_saved.truncate(level + 1);
        if let Some((watch, fwd)) = self.gc_saved.last() {
            self.watch = *watch;
            self.fwd.clone_from(fwd);
        }
        self.sync_hooks();
    }

    /// Closes level `level` and those above it, keeping the current state.
    pub fn journal_commit_to(&mut self, level: usize) {
        self.arena.journal_commit_to(level);
        self.store.journal_commit_to(level);
        self.writes.journal_commit_to(level);
        self.gc_saved.truncate(level);
        self.sync_hooks();
    }

    /// Headers saved by the open levels.
    pub fn journal_len(&self) -> usize {
        self.arena.journal_len()
    }

    /// Content pages saved by the open levels.
    pub fn journal_pages(&self) -> usize {
        self.store.journal_len()
    }
}
