//! Tangibles: the game's objects in the world (seed 004, "Tangibles").
//!
//! Every tangible has a 64-bit **ID** (a positive Lua integer) and two
//! halves:
//!
//! * **The Lua tangible**, a table that belongs to the scripts: every key
//!   is theirs. Its metatable is the engine's and is protected:
//!
//!   ```text
//!   metatable of a tangible
//!     __id        = 12            -- the ID
//!     __index     = <class>       -- methods come from the class (setclass)
//!     __metatable = "tangible"    -- getmetatable(t) gives this string,
//!                                 -- setmetatable(t, ...) fails
//!     threads     = {}            -- the thread table (`threads.rs`)
//!   ```
//!
//!   Registry key `tangibles` maps ID → Lua tangible; it is what keeps a
//!   tangible alive and how `gettangible(id)` finds it.
//! * **The Rust tangible** ([`Tangible`]): the ID, the **animation queue**
//!   ([`AnimationQueue`]), the **positional tracker** (its registration in
//!   the spatial index, `spatial.rs`) and, for players, the
//!   **IdPlayerPool** ([`IdPlayerPool`]). All Rust tangibles live in one
//!   [`HostData`] attached to the World's state, [`Tangibles`], with the
//!   World's simulated clock, the master's ID counter, the current actor,
//!   the schedule of arrivals and the spatial index, so that the VM's
//!   snapshot/rollback, save/load and state hash cover the Rust side too.
//!
//! **Time.** A World has a simulated clock: `now`, an integer tick,
//! advanced by one by [`crate::World::tick`] and by nothing else (no OS
//! clock anywhere). Positions are functions of the animation queue and
//! `now`.
//!
//! **The animation queue** is a list of steps `(tick, x, y, z)`, ticks
//! non-decreasing; the first step is where the current movement started,
//! the last is where the tangible will be (its *position* once the queue
//! completes). The position at tick `t`:
//!
//! * before or at the first step's tick: the first step's point;
//! * at or after the last step's tick: the last step's point;
//! * between steps `a` and `b` with `a.tick <= t < b.tick`: the linear
//!   interpolation `a + (b - a) * (t - a.tick) / (b.tick - a.tick)`,
//!   per coordinate, in `f64` (`ticks` as `f64`, one division then one
//!   multiplication and one addition per coordinate: the same bits on
//!   every IEEE machine). Two steps at the same tick are a teleport: the
//!   later one counts from that tick on.
//!
//! `moveto(t, x, y, z, ticks)` adds a step arriving `ticks` (≥ 0) after
//! the queue's last step; if the tangible is at rest, the movement starts
//! now (the queue becomes `[(now, here), (now + ticks, there)]`). A queue
//! whose last step is reached *settles* on that tick: it keeps only its
//! last step. So a queue has several steps exactly while its tangible is
//! moving (last tick > now), and the schedule of arrivals holds exactly
//! the moving tangibles, by `(arrival tick, id)`: [`Tangibles::tick`]
//! settles those whose tick has come, in that order.
//!
//! `halt(t)` stops a tangible where it is at this tick: its queue becomes
//! that one point (the walk of `players.rs` halts, then queues its step).
//!
//! **The positional tracker and the spatial index** are described in
//! `spatial.rs`: a tangible at rest is in the cell of its position, a
//! moving one in the cells of its queue's bounding box, re-registered when
//! it settles or gets a new step. The index is a pure function of the
//! queues, so it is not saved or hashed: a load rebuilds it.
//!
//! **IDs and the IdPlayerPool.** IDs are allocated deterministically:
//!
//! * The master has one counter, `next_id` (IDs start at 1). Code running
//!   with no actor takes the next ID from it.
//! * A player (a tangible made one by [`crate::World::make_player`], on
//!   the master) has an **IdPlayerPool**: blocks of IDs, `[start, end)`,
//!   granted by the master's counter ([`POOL_BLOCK`] IDs each; the pool
//!   is given [`POOL_BLOCKS`] blocks, and after every allocation the master
//!   grants another block whenever fewer than [`POOL_BLOCK`] IDs remain).
//!   While the host runs a player's command it sets that player as the
//!   *actor* ([`crate::World::set_actor`]), and every ID the command
//!   allocates comes from the front of the actor's pool.
//!
//!   Why blocks: a command is predicted on the client (ClientSync under a
//!   snapshot), then runs on the master, then on both synchronous models
//!   when acknowledged. The pool is part of the player's tangible, which
//!   difference transmission carries to the synchronous models, and taking
//!   the next ID from it is a pure function of the pool, so the four runs
//!   of the command take the same IDs in the same order, whatever other
//!   players did meanwhile. Only the *grant* needs the master's counter,
//!   and only the master grants: a synchronous model learns of new blocks
//!   by difference transmission. Blocks are disjoint from each other and
//!   from the counter's IDs because they are cut from the counter, so IDs
//!   stay unique world-wide. A scheme deriving IDs as (player, counter)
//!   would need to reserve bits of the 64 for the player and could not
//!   express "master-owned" IDs so simply; blocks cost nothing to check.
//!   A command that allocates more IDs than its pool holds cannot be
//!   predicted: in a synchronous model it is an error (the thread
//!   increment will turn it into a NoPredict). A synchronous model with no
//!   actor has no allocator at all: creating a tangible there is an error,
//!   as tangibles reach it by difference transmission.
//!
//! **Destroying** a tangible removes it from the registry, the index and
//! the host data. Its table stays a table (its script data readable), but
//! every engine function given it raises
//! `bad argument #1 to 'position' (tangible 12 was destroyed)`.
//!
//! **Snapshots.** Copying every Rust tangible at each snapshot would cost
//! O(tangibles) per prediction round, so [`Tangibles`] keeps an undo
//! journal instead, like the VM's arenas: while a snapshot is open, every
//! change first records what it replaces (the clock, counter, actor and
//! tick budget as
//! one entry; a whole Rust tangible, or its absence, as another). A
//! snapshot level is the journal's length; a rollback pops entries down to
//! it, re-registering each restored tangible in the index and the
//! arrivals, so they come back exactly; releasing the outermost level
//! empties the journal. The cost of a snapshot is O(1), of a rollback
//! O(changes).
//!
//! **Version.** [`Tangibles::version`] names the content of the Rust
//! tangibles: a process-unique number taken at each change of a tangible
//! and put back by a rollback (a snapshot level keeps it). Difference
//! transmission compares versions to skip passes 1 to 3 when neither
//! model's tangibles changed (`diff/mod.rs`). Bookkeeping like the journal:
//! not in the hash, the save or equality.
//!
//! **Hash and save format** of [`Tangibles`]: `now`, `next_id`, the actor
//! (0 for none, else id + 1), the tick budget left (the instructions
//! thread runs may still take before the next tick: it decides which due
//! threads run now, so it is world state), the number of tangibles, then per tangible
//! in ID order: the ID, the steps (count, then tick and the bits of x, y,
//! z), the pool (0, or 1 and the blocks); then the schedule of thread
//! wakeups (count, then time, thread ID, tangible ID each, in order;
//! `threads.rs`). The save is those words as
//! little-endian bytes; the loader checks them (IDs ascending and below
//! `next_id`, steps non-empty with non-decreasing ticks and finite
//! coordinates, a moving queue exactly when its last tick is ahead of
//! `now`; wakeups with a time >= 0, an allocated thread ID used once and
//! an existing tangible) and rebuilds the index and the arrivals. The
//! schedule is journaled entry by entry (`Undo::Sched`).

mod lua;

use crate::spatial::{Entry, Grid, Tracker};
pub(crate) use lua::{
    as_tangible, check_class, create, destroy, make, open, resolve_class, set_class, AsTangible,
    ClassError, Keys,
};
use luprex_vm::raw::{
    Action, Error, HostData, HostVisitor, NativeFn, State, StrRef, TableRef, Value,
};
use std::any::Any;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

type R = Result<Action, Error>;

/// Registry key of the Lua tangibles (ID → table).
pub(crate) const TANGIBLES: &str = "tangibles";
/// The name of the host data.
pub(crate) const HOST_DATA: &str = "engine.tangibles";
/// IDs per block granted to an IdPlayerPool.
pub const POOL_BLOCK: u64 = 256;
/// Blocks a new IdPlayerPool is given.
pub const POOL_BLOCKS: u64 = 2;
/// The largest ID (IDs are positive Lua integers).
const MAX_ID: u64 = i64::MAX as u64;

/// One step of an animation queue: the point reached at `tick`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The tick at which the point is reached.
    pub tick: i64,
    /// The point.
    pub pos: [f64; 3],
}

/// A tangible's animation queue (see the module docs): never empty, ticks
/// non-decreasing.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationQueue {
    steps: Vec<Step>,
}

impl AnimationQueue {
    /// A queue at rest at `pos` since `tick`.
    pub fn at_rest(pos: [f64; 3], tick: i64) -> AnimationQueue {
        AnimationQueue { steps: vec![Step { tick, pos }] }
    }

    /// A queue of `steps` as the master has it (difference transmission):
    /// `None` unless non-empty, ticks non-decreasing, coordinates finite.
    pub fn from_steps(steps: Vec<Step>) -> Option<AnimationQueue> {
        let ok = !steps.is_empty()
            && steps.windows(2).all(|w| w[0].tick <= w[1].tick)
            && steps.iter().all(|s| s.pos.iter().all(|c| c.is_finite()));
        ok.then_some(AnimationQueue { steps })
    }

    /// The steps, first to last.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The last step (where the tangible ends up).
    pub fn last(&self) -> Step {
        self.steps[self.steps.len() - 1]
    }

    /// The position at tick `t`.
    pub fn position_at(&self, t: i64) -> [f64; 3] {
        let i = self.steps.partition_point(|s| s.tick <= t);
        if i == 0 {
            return self.steps[0].pos;
        }
        if i == self.steps.len() {
            return self.last().pos;
        }
        let (a, b) = (self.steps[i - 1], self.steps[i]);
        let f = (t - a.tick) as f64 / (b.tick - a.tick) as f64;
        [0, 1, 2].map(|k| a.pos[k] + (b.pos[k] - a.pos[k]) * f)
    }

    /// The bounding box of every step.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        let mut lo = self.steps[0].pos;
        let mut hi = lo;
        for s in &self.steps[1..] {
            for k in 0..3 {
                lo[k] = lo[k].min(s.pos[k]);
                hi[k] = hi[k].max(s.pos[k]);
            }
        }
        (lo, hi)
    }

    /// Adds a step to `pos` arriving `ticks` after the last step, or after
    /// `now` if the queue is at rest. `None` on tick overflow.
    fn push(&mut self, pos: [f64; 3], ticks: i64, now: i64) -> Option<()> {
        let last = self.last();
        if last.tick <= now {
            self.steps.clear();
            self.steps.push(Step { tick: now, pos: last.pos });
        }
        let tick = self.last().tick.checked_add(ticks)?;
        self.steps.push(Step { tick, pos });
        if tick <= now {
            self.settle();
        }
        Some(())
    }

    /// Keeps only the last step.
    fn settle(&mut self) {
        let last = self.last();
        self.steps.clear();
        self.steps.push(last);
    }

    /// Whether the tangible moves after `now`.
    pub fn is_moving(&self) -> bool {
        self.steps.len() > 1
    }
}

/// A player's pool of IDs: blocks `[start, end)` granted by the master,
/// used front to back (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdPlayerPool {
    blocks: Vec<(u64, u64)>,
}

impl IdPlayerPool {
    /// A pool of the blocks `[start, end)` (non-empty, in order of use).
    pub fn from_blocks(blocks: Vec<(u64, u64)>) -> Option<IdPlayerPool> {
        blocks
            .iter()
            .all(|&(a, b)| 0 < a && a < b && b - 1 <= MAX_ID)
            .then_some(IdPlayerPool { blocks })
    }

    /// The blocks, in order of use.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks
    }

    /// How many IDs remain.
    pub fn available(&self) -> u64 {
        self.blocks.iter().map(|(a, b)| b - a).sum()
    }

    /// Takes the next ID.
    fn take(&mut self) -> Option<u64> {
        let (a, b) = self.blocks.first_mut()?;
        let id = *a;
        *a += 1;
        if a == b {
            self.blocks.remove(0);
        }
        Some(id)
    }
}

/// The Rust side of one tangible.
#[derive(Clone, Debug, PartialEq)]
pub struct Tangible {
    /// The ID.
    pub id: u64,
    /// The animation queue.
    pub queue: AnimationQueue,
    /// The positional tracker: where it is registered in the index.
    pub tracker: Tracker,
    /// The IdPlayerPool, if it is a player.
    pub pool: Option<IdPlayerPool>,
}

/// All the Rust tangibles of a World, its clock and allocators: the
/// engine's host data (see the module docs).
#[derive(Clone, Debug)]
pub struct Tangibles {
    now: i64,
    next_id: u64,
    actor: Option<u64>,
    /// Instructions the thread runs may still take before the next tick
    /// (`WorldLimits::per_tick`, reset by `World::tick`): world state,
    /// since it decides which due threads run in this tick.
    budget: u64,
    map: BTreeMap<u64, Tangible>,
    arrivals: BTreeSet<(i64, u64)>,
    grid: Grid,
    /// The schedule of thread wakeups `(time, thread id, tangible id)`
    /// (`threads.rs`; time 0 = run now).
    schedule: BTreeSet<(i64, u64, u64)>,
    /// The thread running now, if any (`threads.rs`): transient, always
    /// `None` when the World is at rest, so not content.
    pub(crate) running: Option<crate::threads::Running>,
    /// The undo journal of the open snapshots (see "Snapshots" in the
    /// module docs): not content.
    journal: Vec<Undo>,
    /// How many snapshots are open (set through `&self` by
    /// `HostData::snapshot`).
    depth: Cell<usize>,
    /// The version of the Rust tangibles (see [`Tangibles::version`]):
    /// bookkeeping, not content.
    version: u64,
}

/// Versions of the Rust tangibles, process-unique (not Lua-observable,
/// not content: see [`Tangibles::version`]).
static NEXT_VERSION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(crate) fn next_version() -> u64 {
    NEXT_VERSION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Equality of content: the journal and the version are bookkeeping.
impl PartialEq for Tangibles {
    fn eq(&self, o: &Tangibles) -> bool {
        (self.now, self.next_id, self.actor, self.budget) == (o.now, o.next_id, o.actor, o.budget)
            && (&self.map, &self.arrivals, &self.grid, &self.schedule)
                == (&o.map, &o.arrivals, &o.grid, &o.schedule)
    }
}

/// One entry of the undo journal: what to put back.
#[derive(Clone, Debug)]
enum Undo {
    /// The clock, the counter, the actor and the tick budget.
    Scalars { now: i64, next_id: u64, actor: Option<u64>, budget: u64 },
    /// Tangible `id` as it was (`None`: it did not exist).
    Tangible(u64, Option<Box<Tangible>>),
    /// A schedule entry and whether it was present.
    Sched((i64, u64, u64), bool),
}

/// What a snapshot level keeps: the journal length, the depth and the
/// version when it was taken.
struct Mark {
    len: usize,
    depth: usize,
    version: u64,
}

impl Default for Tangibles {
    fn default() -> Self {
        Tangibles {
            now: 0,
            next_id: 1,
            actor: None,
            budget: u64::MAX,
            map: BTreeMap::new(),
            arrivals: BTreeSet::new(),
            grid: Grid::new(),
            schedule: BTreeSet::new(),
            running: None,
            journal: Vec::new(),
            depth: Cell::new(0),
            version: next_version(),
        }
    }
}

/// Why an ID could not be allocated.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AllocError {
    NoAllocator,
    NotAPlayer(u64),
    PoolEmpty(u64),
    Exhausted,
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AllocError::NoAllocator => f.write_str(
                "cannot allocate a tangible id: a synchronous model allocates ids only from \
                 the actor's id pool, and there is no actor",
            ),
            AllocError::NotAPlayer(a) => {
                write!(f, "cannot allocate a tangible id: the actor {a} has no id pool")
            }
            AllocError::PoolEmpty(a) => write!(
                f,
                "cannot allocate a tangible id: the id pool of player {a} is empty (the master \
                 has not granted it more ids yet)"
            ),
            AllocError::Exhausted => f.write_str("cannot allocate a tangible id: ids exhausted"),
        }
    }
}

impl Tangibles {
    /// The current tick.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The master's next ID.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// The current actor.
    pub fn actor(&self) -> Option<u64> {
        self.actor
    }

    /// The instructions thread runs may still take before the next tick.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// Sets the tick budget (journaled).
    pub(crate) fn set_budget(&mut self, budget: u64) {
        if self.budget != budget {
            self.note_scalars();
            self.budget = budget;
        }
    }

    /// The Rust tangible `id`.
    pub fn get(&self, id: u64) -> Option<&Tangible> {
        self.map.get(&id)
    }

    /// Every tangible, in ID order.
    pub fn iter(&self) -> impl Iterator<Item = &Tangible> {
        self.map.values()
    }

    /// The number of tangibles.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The position of `id` now.
    pub fn position(&self, id: u64) -> Option<[f64; 3]> {
        Some(self.map.get(&id)?.queue.position_at(self.now))
    }

    /// The IDs of the tangibles within `r` of `center` now (inclusive),
    /// ascending, into `out`.
    pub fn scan_radius(&self, center: [f64; 3], r: f64, out: &mut Vec<u64>) {
        let now = self.now;
        let map = &self.map;
        self.grid.scan(
            center,
            r,
            |id| map.get(&id).map_or([f64::NAN; 3], |t| t.queue.position_at(now)),
            out,
        );
    }

    /// The spatial index (tests).
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Journals the scalars before they change (while a snapshot is open).
    fn note_scalars(&mut self) {
        if self.depth.get() > 0 {
            let (now, next_id, actor, budget) = (self.now, self.next_id, self.actor, self.budget);
            self.journal.push(Undo::Scalars { now, next_id, actor, budget });
        }
    }

    /// The version of the Rust tangibles (the map of IDs to queues, pools
    /// and trackers, hence the spatial index; not the clock and the other
    /// scalars): a process-unique number that changes with every change
    /// of a tangible (each goes through `note`) and comes back with a
    /// rollback to a snapshot taken at it. Two `Tangibles` with the same
    /// version hold the same tangibles (a clone keeps the version until
    /// either changes; a loaded one gets a new version). Bookkeeping for
    /// the difference transmitter's passes 1 to 3 (`diff/mod.rs`): not
    /// content (not hashed, not saved, not compared).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether any tangible is moving (its position depends on the clock).
    pub fn any_moving(&self) -> bool {
        !self.arrivals.is_empty()
    }

    /// Journals tangible `id` before it changes (while a snapshot is open);
    /// gives the tangibles a new version.
    fn note(&mut self, id: u64) {
        self.version = next_version();
        if self.depth.get() > 0 {
            let old = self.map.get(&id).map(|t| Box::new(t.clone()));
            self.journal.push(Undo::Tangible(id, old));
        }
    }

    /// Undoes the journal down to length `len`, newest first. Each
    /// tangible put back is unregistered and re-registered, so the index
    /// and the arrivals come back exactly as they were.
    fn undo_to(&mut self, len: usize) {
        while self.journal.len() > len {
            match self.journal.pop() {
                Some(Undo::Scalars { now, next_id, actor, budget }) => {
                    (self.now, self.next_id, self.actor, self.budget) =
                        (now, next_id, actor, budget);
                }
                Some(Undo::Tangible(id, old)) => {
                    if let Some(cur) = self.map.remove(&id) {
                        self.grid.remove(cur.tracker, id);
                        if cur.queue.is_moving() {
                            self.arrivals.remove(&(cur.queue.last().tick, id));
                        }
                    }
                    if let Some(old) = old {
                        let at = (!old.queue.is_moving()).then(|| old.queue.last().pos);
                        self.grid.insert(old.tracker, Entry { id, at });
                        if old.queue.is_moving() {
                            self.arrivals.insert((old.queue.last().tick, id));
                        }
                        self.map.insert(id, *old);
                    }
                }
                Some(Undo::Sched(e, present)) => {
                    if present {
                        self.schedule.insert(e);
                    } else {
                        self.schedule.remove(&e);
                    }
                }
                None => break,
            }
        }
    }

    /// The schedule of thread wakeups, in order.
    pub fn schedule(&self) -> &BTreeSet<(i64, u64, u64)> {
        &self.schedule
    }

    /// Adds a wakeup `(time, tid, tangible)` to the schedule.
    pub(crate) fn schedule_add(&mut self, e: (i64, u64, u64)) {
        let was = self.schedule.contains(&e);
        if self.depth.get() > 0 {
            self.journal.push(Undo::Sched(e, was));
        }
        self.schedule.insert(e);
    }

    /// Removes a wakeup from the schedule.
    pub(crate) fn schedule_remove(&mut self, e: (i64, u64, u64)) {
        let was = self.schedule.contains(&e);
        if self.depth.get() > 0 {
            self.journal.push(Undo::Sched(e, was));
        }
        self.schedule.remove(&e);
    }

    /// The first wakeup due at tick `now` (time 0 or `<= now`), removed.
    pub(crate) fn pop_due(&mut self) -> Option<(i64, u64, u64)> {
        let &e = self.schedule.first()?;
        if e.0 > self.now {
            return None;
        }
        self.schedule_remove(e);
        Some(e)
    }

    /// Removes every wakeup of tangible `id` (it was destroyed).
    pub(crate) fn unschedule_tangible(&mut self, id: u64) {
        let gone: Vec<_> = self.schedule.iter().filter(|e| e.2 == id).copied().collect();
        for e in gone {
            self.schedule_remove(e);
        }
    }

    /// Removes the wakeup of thread `tid`, if it is scheduled.
    pub(crate) fn unschedule_thread(&mut self, tid: u64) {
        let gone: Vec<_> = self.schedule.iter().filter(|e| e.1 == tid).copied().collect();
        for e in gone {
            self.schedule_remove(e);
        }
    }

    /// Sets the actor without checks (`None` if `actor` is not a player):
    /// the scheduler, around a thread that uses its actor's ID pool.
    pub(crate) fn set_actor_for_thread(&mut self, actor: Option<u64>) {
        let actor = actor.filter(|a| self.map.get(a).is_some_and(|t| t.pool.is_some()));
        if self.actor != actor {
            self.note_scalars();
            self.actor = actor;
        }
    }

    /// Entries in the undo journal (tests: it is emptied when the last
    /// snapshot closes).
    pub fn journal_len(&self) -> usize {
        self.journal.len()
    }

    /// Allocates an ID (see the module docs); `master` says whether this
    /// World may grant blocks.
    pub(crate) fn alloc_id(&mut self, master: bool) -> Result<u64, AllocError> {
        self.note_scalars();
        if let Some(a) = self.actor {
            self.note(a);
        }
        let Some(actor) = self.actor else {
            if !master {
                return Err(AllocError::NoAllocator);
            }
            return self.counter(1);
        };
        let pool = self
            .map
            .get_mut(&actor)
            .and_then(|t| t.pool.as_mut())
            .ok_or(AllocError::NotAPlayer(actor))?;
        let id = pool.take().ok_or(AllocError::PoolEmpty(actor))?;
        if master {
            self.top_up(actor)?;
        }
        Ok(id)
    }

    /// Takes `n` consecutive IDs from the master's counter; the first.
    fn counter(&mut self, n: u64) -> Result<u64, AllocError> {
        let id = self.next_id;
        match id.checked_add(n) {
            Some(next) if next - 1 <= MAX_ID => {
                self.next_id = next;
                Ok(id)
            }
            _ => Err(AllocError::Exhausted),
        }
    }

    /// Grants blocks to player `id`'s pool until it holds at least
    /// [`POOL_BLOCK`] IDs (master only).
    fn top_up(&mut self, id: u64) -> Result<(), AllocError> {
        loop {
            let Some(pool) = self.map.get(&id).and_then(|t| t.pool.as_ref()) else {
                return Err(AllocError::NotAPlayer(id));
            };
            if pool.available() >= POOL_BLOCK {
                return Ok(());
            }
            let start = self.counter(POOL_BLOCK)?;
            if let Some(p) = self.map.get_mut(&id).and_then(|t| t.pool.as_mut()) {
                p.blocks.push((start, start + POOL_BLOCK));
            }
        }
    }

    /// Makes `id` a player: gives it a pool of [`POOL_BLOCKS`] blocks
    /// (master only). False if there is no such tangible or it is one.
    pub(crate) fn make_player(&mut self, id: u64) -> Result<bool, AllocError> {
        self.note_scalars();
        self.note(id);
        match self.map.get_mut(&id) {
            Some(t) if t.pool.is_none() => t.pool = Some(IdPlayerPool::default()),
            _ => return Ok(false),
        }
        for _ in 0..POOL_BLOCKS {
            let start = self.counter(POOL_BLOCK)?;
            if let Some(p) = self.map.get_mut(&id).and_then(|t| t.pool.as_mut()) {
                p.blocks.push((start, start + POOL_BLOCK));
            }
        }
        Ok(true)
    }

    /// Whether ID `id` can be given to a tangible made with a known ID
    /// (difference transmission): positive, representable, unused.
    pub(crate) fn id_is_free(&self, id: u64) -> bool {
        (1..=MAX_ID).contains(&id) && !self.map.contains_key(&id)
    }

    /// Sets the pool of `id` as the master has it (difference
    /// transmission). False if there is no such tangible.
    pub(crate) fn set_pool(&mut self, id: u64, pool: Option<IdPlayerPool>) -> bool {
        let end = pool.as_ref().and_then(|p| p.blocks.iter().map(|b| b.1).max()).unwrap_or(0);
        self.note_scalars();
        self.note(id);
        let Some(t) = self.map.get_mut(&id) else { return false };
        t.pool = pool;
        if self.actor == Some(id) && t.pool.is_none() {
            self.actor = None;
        }
        self.next_id = self.next_id.max(end);
        true
    }

    /// Replaces the animation queue of `id` by `queue` as the master has
    /// it (difference transmission). False if there is no such tangible,
    /// or the queue has several steps and does not move after `now` (a
    /// queue settles when its last tick comes).
    pub(crate) fn set_queue(&mut self, id: u64, queue: AnimationQueue) -> bool {
        if queue.is_moving() && queue.last().tick <= self.now {
            return false;
        }
        self.note(id);
        self.put_queue(id, queue)
    }

    /// Gives `id` the queue `queue` (already journaled by the caller),
    /// keeping the arrivals and the index right. False if there is no
    /// such tangible.
    fn put_queue(&mut self, id: u64, queue: AnimationQueue) -> bool {
        let Some(t) = self.map.get_mut(&id) else { return false };
        if t.queue.is_moving() {
            self.arrivals.remove(&(t.queue.last().tick, id));
        }
        t.queue = queue;
        if t.queue.is_moving() {
            self.arrivals.insert((t.queue.last().tick, id));
        }
        Self::reindex(&mut self.grid, t);
        true
    }

    /// Sets the actor (must be a player, or `None`).
    pub(crate) fn set_actor(&mut self, actor: Option<u64>) -> bool {
        if let Some(a) = actor {
            if self.map.get(&a).is_none_or(|t| t.pool.is_none()) {
                return false;
            }
        }
        self.note_scalars();
        self.actor = actor;
        true
    }

    /// Adds the Rust tangible `id` at rest at `pos`.
    pub(crate) fn insert(&mut self, id: u64, pos: [f64; 3]) {
        // In a synchronous model (IDs given by the master) the counter is
        // only kept past every known ID, so saved states stay valid.
        self.note_scalars();
        self.note(id);
        self.next_id = self.next_id.max(id + 1);
        let queue = AnimationQueue::at_rest(pos, self.now);
        let tracker = Grid::tracker_for(pos, pos);
        self.grid.insert(tracker, Entry { id, at: Some(pos) });
        self.map.insert(id, Tangible { id, queue, tracker, pool: None });
    }

    /// Removes the Rust tangible `id`; false if there was none.
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        self.note_scalars();
        self.note(id);
        let Some(t) = self.map.remove(&id) else { return false };
        self.grid.remove(t.tracker, id);
        if t.queue.is_moving() {
            self.arrivals.remove(&(t.queue.last().tick, id));
        }
        if self.actor == Some(id) {
            self.actor = None;
        }
        self.unschedule_tangible(id);
        true
    }

    /// Queues a step of `id` to `pos`, `ticks` after its last one. False
    /// if there is no such tangible or the tick overflows.
    pub(crate) fn move_to(&mut self, id: u64, pos: [f64; 3], ticks: i64) -> bool {
        let now = self.now;
        self.note(id);
        let Some(t) = self.map.get_mut(&id) else { return false };
        let mut queue = t.queue.clone();
        if queue.push(pos, ticks, now).is_none() {
            return false;
        }
        self.put_queue(id, queue)
    }

    /// Stops `id` where it is now: its queue becomes one step, its
    /// position at this tick. False if there is no such tangible.
    pub(crate) fn halt(&mut self, id: u64) -> bool {
        let now = self.now;
        let Some(t) = self.map.get(&id) else { return false };
        if !t.queue.is_moving() {
            return true;
        }
        let here = AnimationQueue::at_rest(t.queue.position_at(now), now);
        self.note(id);
        self.put_queue(id, here)
    }

    /// Registers `t` in the index according to its queue.
    fn reindex(grid: &mut Grid, t: &mut Tangible) {
        grid.remove(t.tracker, t.id);
        let (lo, hi) = t.queue.bounds();
        t.tracker = Grid::tracker_for(lo, hi);
        let at = (!t.queue.is_moving()).then(|| t.queue.last().pos);
        grid.insert(t.tracker, Entry { id: t.id, at });
    }

    /// Advances the clock by one tick and settles the tangibles that
    /// arrive, in `(tick, id)` order.
    pub fn tick(&mut self) {
        self.note_scalars();
        self.now += 1;
        while let Some(&(tick, id)) = self.arrivals.first() {
            if tick > self.now {
                break;
            }
            self.note(id);
            self.arrivals.pop_first();
            if let Some(t) = self.map.get_mut(&id) {
                t.queue.settle();
                Self::reindex(&mut self.grid, t);
            }
        }
    }

    /// Rebuilds the index and the arrivals from the queues (after a load).
    fn rebuild_index(&mut self) {
        self.grid = Grid::new();
        self.arrivals.clear();
        for t in self.map.values_mut() {
            let (lo, hi) = t.queue.bounds();
            t.tracker = Grid::tracker_for(lo, hi);
            let at = (!t.queue.is_moving()).then(|| t.queue.last().pos);
            self.grid.insert(t.tracker, Entry { id: t.id, at });
            if t.queue.is_moving() {
                self.arrivals.insert((t.queue.last().tick, t.id));
            }
        }
    }

    /// Whether the index and arrivals are exactly what the queues give
    /// (tests).
    pub fn index_is_consistent(&self) -> bool {
        let mut fresh = self.clone();
        fresh.rebuild_index();
        fresh == *self
    }

    /// The plain words of the content (hash and save; see the module
    /// docs).
    fn words(&self, mut w: impl FnMut(u64)) {
        w(self.now as u64);
        w(self.next_id);
        w(self.actor.map_or(0, |a| a + 1));
        w(self.budget);
        w(self.map.len() as u64);
        for t in self.map.values() {
            w(t.id);
            w(t.queue.steps.len() as u64);
            for s in &t.queue.steps {
                w(s.tick as u64);
                s.pos.iter().for_each(|c| w(c.to_bits()));
            }
            match &t.pool {
                None => w(0),
                Some(p) => {
                    w(1);
                    w(p.blocks.len() as u64);
                    for &(a, b) in &p.blocks {
                        w(a);
                        w(b);
                    }
                }
            }
        }
        w(self.schedule.len() as u64);
        for &(time, tid, tan) in &self.schedule {
            w(time as u64);
            w(tid);
            w(tan);
        }
    }

    /// Reads what [`Tangibles::words`] wrote; `None` if invalid.
    fn from_words(b: &[u8]) -> Option<Tangibles> {
        if !b.len().is_multiple_of(8) {
            return None;
        }
        let mut it = b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        let mut next = || it.next();
        let mut t = Tangibles {
            now: next()? as i64,
            next_id: next()?,
            actor: match next()? {
                0 => None,
                a => Some(a - 1),
            },
            budget: next()?,
            ..Tangibles::default()
        };
        let n = next()?;
        let mut prev = 0;
        for _ in 0..n {
            let id = next()?;
            if id <= prev || id >= t.next_id {
                return None;
            }
            prev = id;
            let ns = next()?;
            if ns == 0 || ns > (b.len() / 32) as u64 {
                return None;
            }
            let mut steps = Vec::new();
            for _ in 0..ns {
                let tick = next()? as i64;
                let pos =
                    [f64::from_bits(next()?), f64::from_bits(next()?), f64::from_bits(next()?)];
                if !pos.iter().all(|c| c.is_finite())
                    || steps.last().is_some_and(|s: &Step| s.tick > tick)
                {
                    return None;
                }
                steps.push(Step { tick, pos });
            }
            let queue = AnimationQueue { steps };
            if queue.is_moving() != (queue.last().tick > t.now) {
                return None;
            }
            let pool = match next()? {
                0 => None,
                1 => {
                    let nb = next()?;
                    if nb > (b.len() / 16) as u64 {
                        return None;
                    }
                    let mut blocks = Vec::new();
                    for _ in 0..nb {
                        let (a, e) = (next()?, next()?);
                        if a >= e || e > t.next_id {
                            return None;
                        }
                        blocks.push((a, e));
                    }
                    Some(IdPlayerPool { blocks })
                }
                _ => return None,
            };
            t.map.insert(id, Tangible { id, queue, tracker: Tracker::Wide, pool });
        }
        let ns = next()?;
        if ns > (b.len() / 24) as u64 {
            return None;
        }
        let mut tids = BTreeSet::new();
        for _ in 0..ns {
            let (time, tid, tan) = (next()? as i64, next()?, next()?);
            // A wakeup is at time 0 (now) or a tick; its thread ID was
            // allocated; its tangible exists; a thread is scheduled once.
            if time < 0
                || tid == 0
                || tid >= t.next_id
                || !t.map.contains_key(&tan)
                || !tids.insert(tid)
            {
                return None;
            }
            t.schedule.insert((time, tid, tan));
        }
        if next().is_some()
            || t.actor.is_some_and(|a| t.map.get(&a).is_none_or(|x| x.pool.is_none()))
        {
            return None;
        }
        t.rebuild_index();
        Some(t)
    }
}

impl HostData for Tangibles {
    fn name(&self) -> &'static str {
        HOST_DATA
    }
    fn visit(&self, v: &mut HostVisitor<'_>) {
        self.words(|x| v.u64(x));
    }
    fn save(&self, out: &mut Vec<u8>) -> Result<(), String> {
        self.words(|x| out.extend_from_slice(&x.to_le_bytes()));
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn snapshot(&self) -> Box<dyn Any> {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        Box::new(Mark { len: self.journal.len(), depth, version: self.version })
    }
    fn rollback(&mut self, saved: &dyn Any) {
        if let Some(m) = saved.downcast_ref::<Mark>() {
            self.undo_to(m.len);
            // The tangibles are exactly as they were at the snapshot.
            self.version = m.version;
            // The levels above are gone; this one stays open.
            self.depth.set(m.depth + 1);
        }
    }
    fn release(&mut self, saved: Box<dyn Any>) {
        if let Ok(m) = saved.downcast::<Mark>() {
            self.depth.set(m.depth);
            if m.depth == 0 {
                self.journal.clear();
            }
        }
    }
}

/// The loader of the host data (registered by every World).
pub(crate) fn load_host_data(b: &[u8]) -> Option<Box<dyn HostData>> {
    Tangibles::from_words(b).map(|t| Box::new(t) as Box<dyn HostData>)
}

/// The World's tangibles (attached at open time).
pub(crate) fn host(st: &State) -> &Tangibles {
    st.host_data::<Tangibles>().expect("the tangibles host data is attached when the world is made")
}

/// The World's tangibles, mutably.
pub(crate) fn host_mut(st: &mut State) -> &mut Tangibles {
    st.host_data_mut::<Tangibles>()
        .expect("the tangibles host data is attached when the world is made")
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_positions() {
        let mut q = AnimationQueue::at_rest([0.0, 0.0, 0.0], 0);
        q.push([10.0, 0.0, -4.0], 10, 0).unwrap();
        q.push([10.0, 20.0, -4.0], 5, 0).unwrap();
        assert_eq!(q.steps().len(), 3);
        assert_eq!(q.position_at(-5), [0.0, 0.0, 0.0]);
        assert_eq!(q.position_at(0), [0.0, 0.0, 0.0]);
        assert_eq!(q.position_at(5), [5.0, 0.0, -2.0]);
        assert_eq!(q.position_at(10), [10.0, 0.0, -4.0]);
        assert_eq!(q.position_at(12), [10.0, 8.0, -4.0]);
        assert_eq!(q.position_at(15), [10.0, 20.0, -4.0]);
        assert_eq!(q.position_at(99), [10.0, 20.0, -4.0]);
        assert_eq!(q.bounds(), ([0.0, 0.0, -4.0], [10.0, 20.0, 0.0]));
        // At rest since tick 15; a move at tick 40 departs at 40.
        q.settle();
        q.push([0.0; 3], 10, 40).unwrap();
        assert_eq!(q.steps()[0], Step { tick: 40, pos: [10.0, 20.0, -4.0] });
        assert_eq!(q.position_at(45), [5.0, 10.0, -2.0]);
        // A teleport (0 ticks) at rest settles at once.
        let mut q = AnimationQueue::at_rest([1.0; 3], 0);
        q.push([2.0; 3], 0, 3).unwrap();
        assert_eq!(q.steps(), [Step { tick: 3, pos: [2.0; 3] }]);
        assert!(q.push([0.0; 3], i64::MAX, 3).is_none());
    }

    #[test]
    fn pools_and_counter() {
        let mut t = Tangibles::default();
        let a = t.alloc_id(true).unwrap();
        t.insert(a, [0.0; 3]);
        assert!(t.make_player(a).unwrap());
        assert!(!t.make_player(a).unwrap(), "already a player");
        assert_eq!(t.get(a).unwrap().pool.as_ref().unwrap().available(), 2 * POOL_BLOCK);
        assert!(t.set_actor(Some(a)));
        let first = t.alloc_id(true).unwrap();
        assert_eq!(first, 2, "the pool's first block starts after the player");
        // Allocations on a replica take the same ids from a copy of the pool.
        let mut replica = t.clone();
        let mut ids = Vec::new();
        let mut rids = Vec::new();
        for _ in 0..300 {
            ids.push(t.alloc_id(true).unwrap());
            rids.push(replica.alloc_id(false).unwrap());
        }
        assert_eq!(ids, rids);
        // The master topped up; the replica did not.
        assert!(t.get(a).unwrap().pool.as_ref().unwrap().available() >= POOL_BLOCK);
        assert!(replica.get(a).unwrap().pool.as_ref().unwrap().available() < POOL_BLOCK);
        for _ in 0..211 {
            replica.alloc_id(false).unwrap();
        }
        assert_eq!(replica.alloc_id(false), Err(AllocError::PoolEmpty(a)));
        assert!(t.set_actor(None));
        let m = t.alloc_id(true).unwrap();
        assert!(ids.iter().all(|&i| i != m), "the counter never gives a pooled id");
        let mut r2 = replica.clone();
        r2.set_actor(None);
        assert_eq!(r2.alloc_id(false), Err(AllocError::NoAllocator));
    }

    #[test]
    fn save_words_round_trip() {
        let mut t = Tangibles::default();
        for i in 0..5 {
            let id = t.alloc_id(true).unwrap();
            t.insert(id, [i as f64 * 10.0, 0.0, 0.0]);
        }
        t.make_player(3).unwrap();
        t.set_actor(Some(3));
        t.move_to(2, [100.0, 0.0, 0.0], 7);
        t.move_to(4, [0.0, 3000.0, 0.0], 70);
        t.tick();
        let mut bytes = Vec::new();
        t.save(&mut bytes).unwrap();
        let back = Tangibles::from_words(&bytes).unwrap();
        assert_eq!(back, t);
        assert!(t.index_is_consistent());
        for n in 0..bytes.len() {
            let _ = Tangibles::from_words(&bytes[..n]);
        }
    }
}
