//! Snapshot and rollback of the whole VM state, at a cost proportional to
//! what changed.
//!
//! The engine takes a snapshot of the authoritative world, runs a client's
//! predicted commands on it, rolls back, applies the server's update and
//! starts again, many times a second. Copying a heap of tens of megabytes
//! for each prediction is out of the question, so a snapshot copies
//! nothing: it opens an *undo journal*.
//!
//! # The heap: one journal per arena
//!
//! Every object lives in an arena slot and every mutation goes through
//! `Arena::get_mut` (the arena invariants), so an arena sees every change.
//! While a snapshot is open it saves the old content of a slot at its first
//! change (a copy for `get_mut` and `Arena::free`, a move for the
//! collector's sweep, "was free" for an allocation into a reused slot),
//! truncates the
//! slots created since on rollback, and rebuilds its LIFO free list from a
//! low-water mark (see `arena.rs`). A rollback therefore costs one slot
//! write per object changed, plus the objects created since; taking a
//! snapshot costs a few words per arena plus the state-level copy below.
//! With no snapshot open, `get_mut` pays one predictable branch.
//!
//! The interner follows the string arena: on rollback the strings created
//! since are removed from it and those a collection freed are registered
//! again. Its internal layout may differ afterwards, which is unobservable
//! (it is never iterated); `heap_hash` covers its count.
//!
//! **Table contents, page by page.** Tables are split (`table.rs`): the
//! header is an arena slot like any object (40 bytes of plain data, copied
//! without allocating, and written — hence journaled — only when it
//! changes), and the contents live in the table store's pages
//! (`store.rs`), which keep their own journal at page granularity: the
//! first write to a page copies it into a buffer from a pool, a rollback
//! swaps it back. The pool survives the snapshot, so the engine's cycle
//! (snapshot, predict, roll back, again and again) does not allocate.
//!
//! # Exact copies
//!
//! A saved copy must behave exactly like the original from then on, and some
//! behaviour depends on allocation capacities: a thread's stack capacity
//! enters the collector's accounting (`Thread::estimated_bytes`), hence when
//! the next collection runs. Threads and the running execution state are
//! therefore copied with their capacities (`exec_exact`); the other object
//! kinds account by logical sizes only and are copied with `Clone`.
//!
//! # The rest of the state
//!
//! The state's fields are classified once, in `schema.rs`. A snapshot
//! level keeps a copy of every *world* field (`WorldField::snapshot`: the
//! registry/globals/`_LOADED` handles, the main and running threads, the
//! running execution state `ex` with its capacities, the per-type
//! metatables, the metamethod and type names, the collector's `GcState`, the pins,
//! `last_error`, the warning switch and buffer, the debug hooks and the
//! host data, through its own hooks) plus `heap.bytes`, the collector's
//! accounting; a rollback restores each (`WorldField::rollback`), a
//! release hands the level's copies back (`WorldField::release`). The
//! code is generated from the declaration of the `State`, so a world field
//! cannot be left out.
//!
//! **Not rolled back**: the *host* class (configuration of the host, not
//! state of the Lua world): registered natives and their names, the
//! persistence registry, the limits, the interrupt flag and the
//! instruction `budget` (the host's meter: a rollback does not refund the
//! instructions a prediction ran), `allow_binary_chunks`, the `Lua`
//! back-pointer, stdout/stderr and what was written to them, and the
//! budget hook. The *scratch* class must be at rest: snapshots are
//! refused while it is not (see Refusals). The collector's cycle is world
//! state: its phase and marking state are in `GcState` (copied above), and
//! each arena keeps its mark bits, barrier list and sweep cursor per level
//! (`arena/marks.rs`), so a rollback in the middle of a cycle continues it.
//!
//! **Pins** are roots held by the host, whose handles ([`crate::raw::Pin`]) are
//! not rolled back; each carries a generation. A rollback restores the pin
//! table as it was at the snapshot, then: a pin taken since is discarded
//! (its slot is free again and its generation moves on, so the handle gives
//! nil and unpinning it does nothing, even once the slot is reused), and a
//! pin taken before the snapshot but released since stays released (its
//! handle is gone; re-rooting its value would leak it). Pins taken before
//! the snapshot and still held name their objects again. No pin is left
//! naming a freed object, since the heap is restored with the pin table.
//! Generations are never rolled back. The heap hash is the snapshot's
//! unless the host released such a pin in between.
//!
//! # Levels
//!
//! Snapshots nest like SQL savepoints. Taking one while another is open
//! opens a new level; [`State::rollback`] to a snapshot undoes everything
//! since it, discards the newer levels, and leaves the snapshot open so it
//! can be rolled back to again; [`State::release`] closes it and the newer
//! levels, keeping the current state (their saved slots fold into the
//! enclosing level, which keeps its own older copy of a slot saved by both).
//! A [`Snapshot`] names a level and carries a serial number, so a snapshot
//! that was released or discarded is detected and refused rather than
//! rolling back to whatever level now has its number. (Serials count per
//! state: a snapshot of one state passed to another is not detected.) The
//! saved copies live until the snapshot is rolled back to or released, so
//! memory grows with what changed while a snapshot is open.
//!
//! # Refusals
//!
//! Snapshots are host operations between calls: all three are refused with
//! an [`ErrorKind::Snapshot`] error while Lua code runs (from a native, a
//! coroutine, a finalizer, a message handler) or a scratch field is not at
//! rest. The set of host data is fixed while a snapshot is open
//! (`State::set_host_data` is refused). A userdata whose payload cannot be copied
//! (`Payload::clone_payload` gives `None`) and that is changed while a
//! snapshot is open makes that snapshot impossible to roll back to: the
//! rollback fails naming the payload type and changes nothing (release
//! still works). Error values of these errors are nil, so that failing
//! leaves the heap untouched.

use crate::arena::SnapClone;
use crate::error::{Error, ErrorKind};
use crate::func::{FnProto, LuaClosure, RustClosure, UpVal};
use crate::schema::WorldSaved;
use crate::state::State;
use crate::string::LuaStr;
use crate::table::Table;
use crate::thread::{ExecState, Thread};
use crate::userdata::UserData;
use crate::value::Value;

/// An open snapshot of a [`State`] (see the module docs): an opaque id
/// that can be rolled back to any number of times until it is released or
/// discarded by a rollback to an older snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    level: u32,
    serial: u64,
}

impl Snapshot {
    /// The nesting level (0 for the outermost open snapshot).
    pub fn level(self) -> usize {
        self.level as usize
    }
}

/// The state-level part of one snapshot: the world fields (`schema.rs`)
/// and the heap's byte accounting.
struct Level {
    serial: u64,
    bytes: usize,
    world: WorldSaved,
    pin_gens: Vec<u32>,
}

/// The snapshot journal of a state: the state-level part of each open
/// snapshot (the heap's part is in the arenas).
#[derive(Default)]
pub(crate) struct Journal {
    levels: Vec<Level>,
    /// Serial of the next snapshot; never rolled back, so ids stay unique.
    next_serial: u64,
    /// Generation of each pin slot (see [`crate::raw::Pin`]); never rolled
    /// back, so a discarded pin never matches again.
    pin_gens: Vec<u32>,
}

impl Journal {
    /// The current generation of pin slot `i`.
    pub(crate) fn pin_gen(&self, i: u32) -> u32 {
        self.pin_gens.get(i as usize).copied().unwrap_or(0)
    }

    /// Invalidates the pins of slot `i` issued so far.
    pub(crate) fn bump_pin_gen(&mut self, i: u32) {
        let i = i as usize;
        if self.pin_gens.len() <= i {
            self.pin_gens.resize(i + 1, 0);
        }
        self.pin_gens[i] = self.pin_gens[i].wrapping_add(1);
    }
}

crate::arena::snap_clone_by_clone!(LuaStr, LuaClosure, RustClosure, UpVal, FnProto);

// A table header is plain data (its contents are journaled by the table
// store, page by page).
crate::arena::snap_clone_by_clone!(Table);

/// A copy of an execution state with the same stack and frame capacities
/// (they enter the collector's accounting, `Thread::estimated_bytes`, and
/// the persisted form).
pub(crate) fn exec_exact(ex: &ExecState) -> ExecState {
    // The stack's copy keeps its capacity (`Stack::clone`).
    let mut c = ex.clone();
    c.frames.reserve_exact(ex.frames.capacity() - c.frames.len());
    c
}

/// A thread is copied with its exact stack capacities.
impl SnapClone for Thread {
    fn snap_clone(&self) -> Result<Self, &'static str> {
        Ok(Thread {
            status: self.status,
            started: self.started,
            ex: exec_exact(&self.ex),
            is_main: self.is_main,
            error: self.error,
        })
    }
}

/// A userdata is copied for the journal through its payload's
/// `clone_payload`; an opaque payload cannot be.
impl SnapClone for UserData {
    fn snap_clone(&self) -> Result<Self, &'static str> {
        match self.data.clone_payload() {
            Some(data) => {
                Ok(UserData { meta: self.meta, user_values: self.user_values.clone(), data })
            }
            None => Err(self.data.type_name()),
        }
    }
}

/// The generation pin slot `i` had when the snapshot of `l` was taken.
fn level_gen(l: &Level, i: usize) -> u32 {
    l.pin_gens.get(i).copied().unwrap_or(0)
}

/// A snapshot error (nil value, so that reporting it allocates nothing).
fn snap_error(msg: String) -> Error {
    let mut e = Error::from_value(Value::Nil);
    e.message = msg;
    e.with_kind(ErrorKind::Snapshot)
}

impl State {
    /// Takes a snapshot of the whole state (see the module docs). Cost:
    /// a few words per arena plus a copy of the main stack and the
    /// collector's lists. Refused while Lua code runs.
    pub fn snapshot(&mut self) -> Result<Snapshot, Error> {
        self.check_idle("snapshot")?;
        let serial = self.journal.next_serial;
        self.journal.next_serial += 1;
        self.heap.journal_begin();
        let level = Level {
            serial,
            bytes: self.heap.bytes,
            world: self.snapshot_world(),
            pin_gens: self.journal.pin_gens.clone(),
        };
        self.journal.levels.push(level);
        Ok(Snapshot { level: (self.journal.levels.len() - 1) as u32, serial })
    }

    /// Restores the state exactly as it was when `s` was taken, discarding
    /// the snapshots taken after it; `s` stays open. Cost: proportional to
    /// the objects changed or created since. Fails, changing nothing, if
    /// `s` is stale, if Lua code runs, or if an uncopyable userdata payload
    /// was changed since `s`.
    pub fn rollback(&mut self, s: Snapshot) -> Result<(), Error> {
        self.check_idle("rollback")?;
        let level = self.check_open(s)?;
        if let Some(name) = self.heap.journal_poison(level) {
            return Err(snap_error(format!(
                "cannot roll back: a userdata payload of type {name} was changed and cannot be copied"
            )));
        }
        self.heap.journal_rollback_to(level);
        self.journal.levels.truncate(level + 1);
        let pins_before = self.pins.len();
        let l = std::mem::take(&mut self.journal.levels);
        self.heap.bytes = l[level].bytes;
        self.rollback_world(&l[level].world);
        self.journal.levels = l;
        self.settle_pins(level, pins_before);
        Ok(())
    }

    /// Closes `s` and the snapshots taken after it, keeping the current
    /// state (a commit). Their journal entries fold into the enclosing
    /// snapshot, if any. Fails if `s` is stale or Lua code runs.
    pub fn release(&mut self, s: Snapshot) -> Result<(), Error> {
        self.check_idle("release")?;
        let level = self.check_open(s)?;
        self.heap.journal_commit_to(level);
        while self.journal.levels.len() > level {
            if let Some(l) = self.journal.levels.pop() {
                self.release_world(l.world);
            }
        }
        Ok(())
    }

    /// After the pin table was restored from snapshot `level`: pins issued
    /// since are discarded (the generation of every free slot moves on), and
    /// pins the host released since stay released (the host's handle is
    /// gone, so keeping the value rooted would leak it).
    /// `pins_before` is the length of the pin table before the restore.
    fn settle_pins(&mut self, level: usize, pins_before: usize) {
        let mut free = vec![false; self.pins.len()];
        self.free_pins.iter().for_each(|&i| free[i as usize] = true);
        let slots = self.journal.pin_gens.len().max(pins_before);
        for i in 0..slots {
            let idx = i as u32;
            if free.get(i).copied().unwrap_or(true) {
                self.journal.bump_pin_gen(idx);
            } else if self.journal.pin_gen(idx) != level_gen(&self.journal.levels[level], i) {
                self.pins[i] = Value::Nil;
                self.free_pins.push(idx);
                self.journal.bump_pin_gen(idx);
            }
        }
    }

    /// Number of open snapshots.
    pub fn snapshot_depth(&self) -> usize {
        self.journal.levels.len()
    }

    /// Refuses snapshot operations while Lua code runs.
    fn check_idle(&self, what: &str) -> Result<(), Error> {
        if self.vm_busy() {
            return Err(snap_error(format!("cannot {what} while Lua code is running")));
        }
        Ok(())
    }

    /// The level of `s` if it is still open.
    fn check_open(&self, s: Snapshot) -> Result<usize, Error> {
        match self.journal.levels.get(s.level as usize) {
            Some(l) if l.serial == s.serial => Ok(s.level as usize),
            _ => Err(snap_error("stale snapshot (released or discarded)".into())),
        }
    }
}
