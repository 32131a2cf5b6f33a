//! Which tables were written since a mark: the difference transmitter's
//! "what changed this frame", without a blind re-walk of the table graph.
//!
//! # The question
//!
//! The engine sends each client, every frame, the differences between the
//! master model and that client's model. Re-scanning every reachable
//! table each frame costs what the graph weighs; re-scanning only the
//! tables that changed since the last frame costs what changed. So the
//! engine takes a [`WriteMark`] ([`State::write_mark`]) when it has sent a
//! frame and asks, at the next one, [`State::tables_written_since`]: the
//! tables whose contents or metatable may have changed since the mark.
//!
//! # What counts as a write
//!
//! Every change of a table's contents or metatable, by any path: the
//! dispatch loop's fast paths (array slot store, update of an existing
//! string key, append) and its slow paths, [`TableMut`](crate::table::TableMut)
//! (hence `rawset`, the API's raw sets, `SETLIST`, the `table` library,
//! which writes through the VM's API), `setmetatable` and
//! `debug.setmetatable`, the collector clearing entries of weak tables, the
//! creation of a table (a table created since the mark counts as written)
//! and the freeing of one by the collector. All of them go through the
//! heap's [`Tables`](crate::table::Tables) (its header arena is private to
//! it), which is where the tracking lives: `Tables::get_mut`, `alloc`,
//! `sweep` and the three fast paths each call one hook. Nothing outside
//! `table.rs` can write a table without passing through one of them.
//!
//! **False positives** (documented, harmless for the transmitter, which
//! then compares and finds nothing to send): a write that stores the value
//! already there (including nil to an absent key); a raw set that fails
//! with a key error (nil or NaN key); a table written and then written
//! back to its old contents; a `TableMut` taken and dropped without a
//! change. **Not writes** (never reported): reads, `next`/`pairs`, the
//! metamethod-absence cache (a header byte owned by the runtime, filled by
//! lookups through [`Tables::cache_tm_absent`](crate::table::Tables::cache_tm_absent)),
//! the collector's mark bits.
//!
//! # How: an epoch per table
//!
//! The log keeps a counter, the *epoch*, and one `u32` *stamp* per table
//! slot: the epoch of the slot's last write. Taking a mark starts a new
//! epoch and the mark remembers it; a table was written since mark `m`
//! exactly when its stamp is at least `m`'s epoch. So marks cost nothing to
//! hold, any number can be live at once (one per client, say), they nest
//! trivially, and dropping one needs no call. The hook on a write is
//!
//! ```text
//! if tracking { if stamp[h] != epoch { stamp[h] = epoch /* out of line */ } }
//! ```
//!
//! With no mark taken (the normal case for a state that is not a master
//! model) that is one predictable branch on a field of the heap's
//! `Tables`, which the write was about to use anyway. While tracking, a
//! write adds a load and a compare of the table's stamp (4 bytes per
//! table, a dense vector); the store happens once per table per epoch,
//! out of line. The dispatch loop's three fast paths (array slot store,
//! update of an existing string key, append) test one flag of `Tables`,
//! set while any of the hooks of a write is on (this log's tracking, the
//! collector's barrier, the snapshot journal), and do all three out of
//! line when it is; the many call sites of `Tables::get_mut` (slow paths, natives, the API)
//! carry only the branch, the rest being a call (`touch` /
//! `touch_tracking`): inlining it everywhere made `fannkuch` 15% slower
//! with no mark at all, by code layout alone (it ran fewer instructions).
//!
//! Measured with `examples/write_marks.rs` under callgrind, instructions
//! per loop iteration doing one write (a timing on a shared machine moves
//! more than these differences with code layout alone):
//!
//! | workload                         | before the log | no mark | mark |
//! |----------------------------------|---------------:|--------:|-----:|
//! | `for i = 1, n do t[1] = i end`   | 188 | 185 | 192 |
//! | same, `t.x = i`                  | 231 | 227 | 233 |
//! | `t[k] = v` over 2000 tables      | 548 | 539 | 546 |
//! | `t.x = v` over 2000 tables       | 466 | 461 | 467 |
//! | append over 2000 tables          | 1062 | 1056 | 1067 |
//! | `rawset` over 2000 tables        | 1325 | 1320 | 1331 |
//!
//! (No mark: a few instructions fewer than before, from code layout; a
//! mark: 6 or 7 more on the fast paths, 11 on the others.)
//!
//! [`State::tables_written_since`] scans a summary of the stamps, one
//! `u32` per block of 64 slots holding an upper bound of the block's
//! stamps (set to the current epoch by the cold path that writes a stamp;
//! a rollback that lowers stamps leaves it high, so a block may be scanned
//! for nothing but a write is never missed), then the stamps of the
//! blocks whose bound reaches the mark's epoch. It returns the live tables
//! with a recent stamp in ascending handle index, each once, plus the
//! slots that held a table written or created since the mark and are now
//! free (freed by the collector; their handles may not be dereferenced).
//! The answer is computed on demand; the log keeps no list, so a mark
//! never held long costs nothing. The cost is 1/16 byte per table slot
//! plus 256 bytes per block written since the mark: a master world asked
//! by each of 200 clients' transmitters every frame pays for what was
//! written, not for the size of its heap. (`examples/write_marks.rs`:
//! 200,000 tables, 1000 written, spread over 1000 blocks: 10 µs; a scan of
//! every stamp took 80 µs.)
//!
//! **Many marks, one answer.** A mark taken when nothing was written and
//! no epoch started since the last one *is* the last one (same epoch): the
//! marks that 200 clients' transmitters take between two ticks of a
//! master model are one mark. And the log remembers its last answer, with
//! a generation counter that every stamp, rollback and restart bumps: the
//! same mark asked again before anything changed gets that answer back (a
//! copy) without a scan. So the master's written set is computed once per
//! tick, however many clients ask.
//!
//! Epochs are `u32`. Each mark takes one (a reused mark takes none), and so does each snapshot and
//! each rollback while tracking (a state that never takes a mark takes
//! none): a mark per frame and ten predictions per frame at 60 frames a
//! second last 41 days. When the counter would wrap, the log starts over
//! (every stamp cleared, a new log id) and every earlier mark answers
//! [`Written::Unknown`], once: the engine re-scans and takes a new mark.
//!
//! # Snapshots and rollback
//!
//! The engine snapshots a model, runs predictions, rolls back. The rule:
//!
//! * after [`State::rollback`]`(s)`, a mark taken **before** `s` reports
//!   exactly what it reported when `s` was taken (the written set is part
//!   of what a rollback restores);
//! * a mark taken **after** `s` and passed over by a rollback to `s`
//!   answers [`Written::Unknown`] from then on (the rollback changed
//!   tables back in ways the mark cannot describe: treat every table as
//!   written, i.e. fall back to a full re-scan once and take a new mark);
//! * [`State::release`] keeps the current state, so it keeps the current
//!   stamps too.
//!
//! To restore stamps the log journals them like the arenas journal
//! objects: taking a snapshot opens a level and (while tracking) starts
//! a new epoch `E`;
//! the first write of a table after that (its stamp is below `E`) saves
//! the old stamp, and a rollback puts the saved stamps back in reverse
//! order. That first write is the once-per-epoch cold path above, so the
//! journal costs nothing on the hot path. A rollback to `s` then records
//! the range of epochs issued to marks since `s` as invalid (only if a
//! mark was taken since `s`, so a predict-and-roll-back loop with no mark
//! inside it records nothing).
//!
//! # Not Lua state
//!
//! The write log is host-side bookkeeping, not part of the Lua world: it
//! is not covered by `state_hash` or `heap_hash`, not written by
//! `save_state`, and a loaded state starts with no mark (a mark taken
//! before [`State::load_state`](crate::State::load_state), or on another
//! state, answers [`Written::Unknown`]: each log has a process-unique id).
//! Nothing Lua can observe depends on it.
//!
//! # Threads
//!
//! See `vm/README.md`, "Threads": a [`State`] is used from one thread
//! (one world per thread). It is neither `Send` nor `Sync`, and that stays
//! so:
//!
//! ```compile_fail
//! fn send<T: Send>() {}
//! send::<luprex_vm::State>();
//! ```
//!
//! ```compile_fail
//! fn sync<T: Sync>() {}
//! sync::<luprex_vm::State>();
//! ```
//!
//! Marks and write sets are plain data (`Send`): a world thread may hand
//! them to another thread, though they mean something only to their state.

use crate::state::State;
use crate::value::TableRef;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Table slots per block of the stamps' summary (a power of two; the
/// stamp vector's length is a multiple of it).
const BLOCK: usize = 64;

/// Ids of write logs, process-unique, so that a mark is never checked
/// against another state's log (not Lua-observable).
static NEXT_LOG_ID: AtomicU64 = AtomicU64::new(1);

/// A point in a state's history: [`State::tables_written_since`] reports
/// the tables written after it. Plain data; hold as many as needed, drop
/// them freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteMark {
    log: u64,
    epoch: u32,
}

/// The tables written since a mark that can answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteSet {
    /// Live tables written (contents or metatable) or created since the
    /// mark, in ascending handle index, each once.
    pub tables: Vec<TableRef>,
    /// Handle indices of slots that held a table written or created since
    /// the mark and are free now (freed by the collector), ascending.
    pub freed: Vec<u32>,
}

/// The answer of [`State::tables_written_since`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// The tables written since the mark (no false negatives; false
    /// positives as documented in the module).
    Known(WriteSet),
    /// The mark cannot answer: a rollback passed over it, the state was
    /// loaded or its tracking ended since, or it belongs to another state.
    /// Treat every table as written.
    Unknown,
}

/// One open snapshot level of the log.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// The epoch started when the level was opened.
    epoch: u32,
    /// Length of the stamp journal when the level was opened.
    start: usize,
}

/// The write log of a heap's tables (kept by [`crate::table::Tables`]).
#[derive(Debug)]
pub(crate) struct WriteLog {
    /// The epoch writes are stamped with; 0 when not tracking.
    cur: u32,
    /// The last epoch issued (to a mark or a snapshot level).
    last: u32,
    /// The last epoch issued to a mark.
    last_mark: u32,
    /// Stamp of each table slot: the epoch of its last write (0: none).
    stamps: Vec<u32>,
    /// Per block of [`BLOCK`] slots, an upper bound of their stamps (a
    /// rollback may lower stamps and leave it high: a block scanned for
    /// nothing, never a write missed).
    blocks: Vec<u32>,
    /// Saved `(slot, old stamp)` pairs of the open levels, in order.
    journal: Vec<(u32, u32)>,
    /// Open snapshot levels.
    levels: Vec<Level>,
    /// A stamp below this is saved before it changes (the innermost
    /// level's epoch; 0 with no level open).
    floor: u32,
    /// Marks with an epoch up to this cannot answer (tracking ended, or
    /// the epochs wrapped).
    dead_below: u32,
    /// Ranges `(lo, hi]` of mark epochs passed over by rollbacks.
    invalid: Vec<(u32, u32)>,
    /// Process-unique id.
    id: u64,
    /// Whether a stamp was written since the last mark was issued (if
    /// not, and no epoch started since, the next mark is the same mark).
    dirty: bool,
    /// Bumped by every change of a stamp or of the epochs: the key of
    /// `memo`.
    gen: u64,
    /// The last answer of [`WriteLog::since`]: its mark, `gen` then, and
    /// the set.
    memo: RefCell<Option<(WriteMark, u64, WriteSet)>>,
}

impl Default for WriteLog {
    fn default() -> Self {
        WriteLog {
            cur: 0,
            last: 0,
            last_mark: 0,
            stamps: Vec::new(),
            blocks: Vec::new(),
            journal: Vec::new(),
            levels: Vec::new(),
            floor: 0,
            dead_below: 0,
            invalid: Vec::new(),
            id: NEXT_LOG_ID.fetch_add(1, Ordering::Relaxed),
            dirty: false,
            gen: 0,
            memo: RefCell::new(None),
        }
    }
}

impl WriteLog {
    /// Records a write of table slot `h`: the hot-path hook.
    #[inline(always)]
    pub(crate) fn touch(&mut self, h: u32) {
        if self.cur != 0 {
            self.touch_tracking(h);
        }
    }

    /// Records the creation or the freeing of the table in slot `h`: a
    /// write, and a change of what [`WriteLog::since`] reports even when
    /// the slot is stamped already (it moves between live and freed).
    #[inline(always)]
    pub(crate) fn touch_life(&mut self, h: u32) {
        self.gen += 1;
        self.touch(h);
    }

    /// Records a write of table slot `h`, with the stamp test inline too:
    /// for the dispatch loop's fast paths, where a repeated write to the
    /// same table in one epoch should not pay a call while tracking.
    #[inline(always)]
    pub(crate) fn touch_fast(&mut self, h: u32) {
        if self.cur != 0 {
            match self.stamps.get(h as usize) {
                Some(&s) if s == self.cur => {}
                _ => self.stamp(h),
            }
        }
    }

    /// [`WriteLog::touch`] while tracking (out of line, so that the
    /// many call sites of `Tables::get_mut` carry only the test of `cur`).
    #[inline(never)]
    fn touch_tracking(&mut self, h: u32) {
        match self.stamps.get(h as usize) {
            Some(&s) if s == self.cur => {}
            _ => self.stamp(h),
        }
    }

    /// The first write of slot `h` in the current epoch.
    #[cold]
    #[inline(never)]
    fn stamp(&mut self, h: u32) {
        let i = h as usize;
        if i >= self.stamps.len() {
            let n = (i + 1).next_power_of_two().max(BLOCK);
            self.stamps.resize(n, 0);
            self.blocks.resize(n / BLOCK, 0);
        }
        let old = self.stamps[i];
        if old < self.floor {
            self.journal.push((h, old));
        }
        self.stamps[i] = self.cur;
        self.dirty = true;
        self.gen += 1;
        // `cur` is the newest epoch: at least every stamp.
        self.blocks[i / BLOCK] = self.cur;
    }

    /// Starts a new epoch (restarting the log if the counter would wrap).
    fn bump(&mut self) -> u32 {
        if self.last == u32::MAX - 1 {
            self.restart();
        }
        self.last += 1;
        self.last
    }

    /// Forgets every stamp and level epoch: all earlier marks die.
    #[cold]
    fn restart(&mut self) {
        self.gen += 1;
        self.stamps.iter_mut().for_each(|s| *s = 0);
        self.blocks.iter_mut().for_each(|s| *s = 0);
        self.journal.clear();
        for l in &mut self.levels {
            // Stamps are all 0 now: a rollback restores 0 (every mark
            // from before is dead, every later one is passed over).
            l.epoch = 1;
            l.start = 0;
        }
        self.invalid.clear();
        self.last = 1;
        self.last_mark = 0;
        self.dead_below = 0;
        // Earlier marks name the old id: they answer `Unknown`.
        self.id = NEXT_LOG_ID.fetch_add(1, Ordering::Relaxed);
        self.floor = if self.levels.is_empty() { 0 } else { 1 };
        if self.cur != 0 {
            self.cur = 1;
        }
    }

    /// A new mark; tracking is on from now on. If nothing was written and
    /// no epoch started since the last mark, that mark again: it reports
    /// the same tables (none so far), and the marks of many clients taken
    /// between two writes are one mark, whose answer is computed once.
    pub(crate) fn mark(&mut self) -> WriteMark {
        if self.cur != 0 && self.cur == self.last_mark && !self.dirty {
            return WriteMark { log: self.id, epoch: self.cur };
        }
        let e = self.bump();
        self.cur = e;
        self.last_mark = e;
        self.dirty = false;
        self.gen += 1;
        WriteMark { log: self.id, epoch: e }
    }

    /// Stops tracking: every mark taken so far answers `Unknown`.
    pub(crate) fn end(&mut self) {
        self.gen += 1;
        self.cur = 0;
        self.dead_below = self.last;
    }

    /// Whether any mark could currently answer (tracking is on).
    pub(crate) fn is_tracking(&self) -> bool {
        self.cur != 0
    }

    /// Whether `m` can answer; if so, its epoch.
    fn valid(&self, m: &WriteMark) -> Option<u32> {
        let e = m.epoch;
        let ok = m.log == self.id
            && e > self.dead_below
            && e <= self.last_mark
            && !self.invalid.iter().any(|&(lo, hi)| e > lo && e <= hi);
        ok.then_some(e)
    }

    /// The slots stamped at or after `m`'s epoch, split by `live`.
    pub(crate) fn since(&self, m: &WriteMark, live: impl Fn(u32) -> bool) -> Written {
        let Some(e) = self.valid(m) else {
            return Written::Unknown;
        };
        if let Some((mm, g, set)) = &*self.memo.borrow() {
            if mm == m && *g == self.gen {
                return Written::Known(set.clone());
            }
        }
        let mut set = WriteSet::default();
        for (b, _) in self.blocks.iter().enumerate().filter(|&(_, &top)| top >= e) {
            let first = b * BLOCK;
            for (i, &s) in self.stamps[first..first + BLOCK].iter().enumerate() {
                if s >= e {
                    let i = (first + i) as u32;
                    if live(i) {
                        set.tables.push(TableRef::from_index(i));
                    } else {
                        set.freed.push(i);
                    }
                }
            }
        }
        *self.memo.borrow_mut() = Some((*m, self.gen, set.clone()));
        Written::Known(set)
    }

    /// Opens a snapshot level.
    pub(crate) fn journal_begin(&mut self) {
        // Not tracking, no epoch is needed: every stamp is at most `last`,
        // and a mark taken inside the level gets a later epoch.
        let e = if self.cur != 0 { self.new_epoch() } else { self.last };
        self.levels.push(Level { epoch: e, start: self.journal.len() });
        self.floor = e;
    }

    /// Rolls back to level `level` (which stays open).
    pub(crate) fn journal_rollback_to(&mut self, level: usize) {
        let Some(&l) = self.levels.get(level) else {
            return;
        };
        self.gen += 1;
        for &(h, old) in self.journal[l.start..].iter().rev() {
            self.stamps[h as usize] = old;
        }
        self.journal.truncate(l.start);
        self.levels.truncate(level + 1);
        self.floor = l.epoch;
        if self.last_mark > l.epoch {
            self.invalid.push((l.epoch, self.last_mark));
        }
        // Writes from here on are told apart from those rolled back.
        if self.cur != 0 {
            self.new_epoch();
        }
    }

    /// Starts a new epoch for the writes from now on (while tracking).
    fn new_epoch(&mut self) -> u32 {
        let e = self.bump();
        self.cur = e;
        e
    }

    /// Closes level `level` and those above it, keeping the stamps.
    pub(crate) fn journal_commit_to(&mut self, level: usize) {
        if level >= self.levels.len() {
            return;
        }
        self.levels.truncate(level);
        match self.levels.last() {
            Some(l) => self.floor = l.epoch,
            None => {
                self.floor = 0;
                self.journal.clear();
            }
        }
    }
}

impl State {
    /// Takes a write mark: [`State::tables_written_since`] will report the
    /// tables written from now on. Starts write tracking on this state if
    /// it was off (see the module docs for its cost). Marks are plain data:
    /// take as many as needed.
    pub fn write_mark(&mut self) -> WriteMark {
        self.heap.tables.write_mark()
    }

    /// The tables written (contents or metatable), created or freed since
    /// `mark`, or [`Written::Unknown`] if the mark cannot tell (see the
    /// module docs). Costs a scan of 1/16 byte per table slot plus 256
    /// bytes per block of 64 slots written since the mark.
    pub fn tables_written_since(&self, mark: &WriteMark) -> Written {
        let tables = &self.heap.tables;
        tables.write_log().since(mark, |i| tables.try_get(i).is_some())
    }

    /// Stops write tracking (the hook goes back to one branch); every mark
    /// taken so far answers [`Written::Unknown`]. A new
    /// [`State::write_mark`] starts it again.
    pub fn end_write_tracking(&mut self) {
        self.heap.tables.end_write_tracking();
    }

    /// Whether write tracking is on (a mark was taken and tracking not
    /// ended since).
    pub fn write_tracking(&self) -> bool {
        self.heap.tables.write_log().is_tracking()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn since(log: &WriteLog, m: &WriteMark, live: u32) -> Written {
        log.since(m, |i| i < live)
    }

    fn tables(ix: &[u32]) -> Written {
        Written::Known(WriteSet {
            tables: ix.iter().map(|&i| TableRef::from_index(i)).collect(),
            freed: vec![],
        })
    }

    #[test]
    fn epochs_wrap_by_restarting() {
        let mut log = WriteLog { last: u32::MAX - 4, ..WriteLog::default() };
        let m = log.mark();
        log.touch(3);
        log.journal_begin();
        log.touch(5);
        let m2 = log.mark();
        log.touch(7);
        assert_eq!(since(&log, &m, 10), tables(&[3, 5, 7]));
        // The next epoch wraps: the log restarts, earlier marks are dead;
        // the mark that restarted it is valid.
        let m3 = log.mark();
        assert!(log.last < 10);
        log.touch(1);
        assert_eq!(since(&log, &m, 10), Written::Unknown);
        assert_eq!(since(&log, &m2, 10), Written::Unknown);
        assert_eq!(since(&log, &m3, 10), tables(&[1]));
        let m4 = log.mark();
        log.touch(2);
        assert_eq!(since(&log, &m4, 10), tables(&[2]));
        // Rolling back the level opened before the restart: m4 was taken
        // after it, so it is passed over.
        log.journal_rollback_to(0);
        assert_eq!(since(&log, &m4, 10), Written::Unknown);
        let m5 = log.mark();
        log.touch(4);
        assert_eq!(since(&log, &m5, 10), tables(&[4]));
        log.journal_commit_to(0);
        assert_eq!(since(&log, &m5, 10), tables(&[4]));
    }

    /// The log against a model that keeps, for every mark, the set of
    /// slots touched since it, copies all of them when a level opens and
    /// puts the copy back on a rollback (marks missing from the copy were
    /// passed over: `Unknown`).
    #[test]
    fn random_ops_against_a_model() {
        use std::collections::{BTreeMap, BTreeSet};
        type Model = BTreeMap<usize, Option<BTreeSet<u32>>>;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for round in 0..200 {
            let mut log = WriteLog::default();
            if round % 2 == 1 {
                // Near the wrap-around.
                log.last = u32::MAX - 40;
            }
            let mut marks: Vec<WriteMark> = Vec::new();
            let mut model: Model = BTreeMap::new();
            let mut levels: Vec<Model> = Vec::new();
            for _ in 0..300 {
                match next(20) {
                    0..=9 => {
                        let h = next(40) as u32;
                        log.touch(h);
                        for set in model.values_mut().flatten() {
                            set.insert(h);
                        }
                    }
                    10 | 11 => {
                        marks.push(log.mark());
                        model.insert(marks.len() - 1, Some(BTreeSet::new()));
                    }
                    12..=14 => {
                        log.journal_begin();
                        levels.push(model.clone());
                    }
                    15..=17 if !levels.is_empty() => {
                        let l = next(levels.len() as u64) as usize;
                        log.journal_rollback_to(l);
                        levels.truncate(l + 1);
                        let saved = &levels[l];
                        for (i, set) in model.iter_mut() {
                            *set = saved.get(i).cloned().flatten();
                        }
                    }
                    18 if !levels.is_empty() => {
                        let l = next(levels.len() as u64) as usize;
                        log.journal_commit_to(l);
                        levels.truncate(l);
                    }
                    19 if next(4) == 0 => {
                        log.end();
                        model.values_mut().for_each(|s| *s = None);
                        for l in &mut levels {
                            l.values_mut().for_each(|s| *s = None);
                        }
                    }
                    _ => {}
                }
                // A restart kills every mark taken before it.
                for (i, m) in marks.iter().enumerate() {
                    if m.log != log.id {
                        model.insert(i, None);
                        levels.iter_mut().for_each(|l| {
                            l.insert(i, None);
                        });
                    }
                }
                for (i, m) in marks.iter().enumerate() {
                    let want = match &model[&i] {
                        Some(set) => tables(&set.iter().copied().collect::<Vec<_>>()),
                        None => Written::Unknown,
                    };
                    assert_eq!(log.since(m, |_| true), want, "round {round}, mark {i}");
                }
            }
        }
    }

    #[test]
    fn no_epochs_are_taken_without_tracking() {
        let mut log = WriteLog::default();
        for _ in 0..1000 {
            log.journal_begin();
            log.touch(1);
            log.journal_rollback_to(0);
            log.journal_commit_to(0);
        }
        assert_eq!(log.last, 0);
        assert!(log.stamps.is_empty() && log.journal.is_empty());
    }
}
