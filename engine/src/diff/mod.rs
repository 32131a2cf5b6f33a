//! Multipass difference transmission (seed 000), server and client.
//!
//! The server keeps, per client, a server-synchronous model (a
//! [`Model::ServerSync`] World) that is always equal to the client's
//! client-synchronous model (seed 003). A *frame* brings the client's
//! model up to date with the master around one player: the server compares
//! the master with its ServerSync copy pass by pass, **applies each pass's
//! messages to the ServerSync copy before computing the next pass** (the
//! seed's rule: "each pass begins after the previous pass has completed
//! fully"), and collects the messages in one [`Frame`]. The client applies
//! the frame pass by pass with the same functions, in the same order, so
//! both synchronous models receive exactly the same mutations and keep
//! equal state hashes.
//!
//! One module per pass, in the seed's order, each named and opening with
//! its own essay; read the seed and this directory side by side:
//!
//! | pass (seed 000)                                  | module                       | messages |
//! |--------------------------------------------------|------------------------------|----------|
//! | (seed 004) the source database                   | [`source_database`]          | changed files' code, then a class rebuild |
//! | Update Player Position                           | [`player_position`]          | queue, IdPlayerPool, print text |
//! | Create and Delete Tangibles                      | [`create_delete`]            | create (class + queue), delete, queue corrections |
//! | Generate the Close Tangible List                 | [`close_list`]               | a hash of the list |
//! | Number the Tables in the Client Model            | [`number_client`]            | a hash of the numbering (beyond the seed) |
//! | Pair Up Tables in the Master and Client Models   | [`pair`]                     | none (server only) |
//! | Number the Remaining Tables in the Master Model  | [`number_remaining`]         | "create tables N+1..M" |
//! | Transmit Table Contents Non Recursively          | [`table_contents`]           | Key→Value, Key→nil; order restoration |
//! | Transmit Tangible Differences                    | [`tangible_differences`]     | the same, for tangible databases and published globals |
//! | Compare Tangible Metatables                      | [`tangible_metatables`]      | class names |
//!
//! The shared machinery is here: the value classification and comparison
//! ([`values`]), the frame and its encoding ([`frame`]), the errors and
//! desync reports, the server driver ([`Transmitter`], [`transmit`]) and
//! the client's [`apply`].
//!
//! # Atomicity (seed 002)
//!
//! A frame is one message and applies as a whole or not at all. The client
//! applies it under a World snapshot; any rejection (an unknown table
//! number, a tangible that does not exist or already exists, a bad key or
//! metatable, a bad animation queue, a failed check) rolls the snapshot
//! back, so the client model is exactly as it was (its state hash
//! unchanged) and [`apply`] returns the error. Nothing that reads the client
//! model ever sees half a frame. The server does the same around its
//! ServerSync copy (snapshot, passes, release), so both synchronous models
//! go through the same snapshot/release sequence too.
//!
//! # Checks and desync reports
//!
//! Beyond the seed's close-list hash the client checks a hash of its table
//! numbering, the clock (below), and, if the server asked for it, the state hash of
//! the ServerSync model after the frame ([`Options::verify_state_hash`],
//! the strongest check, at the cost of hashing the whole model). A failed
//! check on the client is [`DiffError::Desync`]; on the server, where the
//! seed verifies its own copy (close list, order restoration), a failure is
//! a [`DesyncReport`] returned with the frame. Every report names the pass
//! and the first divergent table number or tangible: never a silent
//! divergence.
//!
//! # The clock
//!
//! The clock is not transmitted and never corrected. The host ticks every
//! synchronous model in step with the master (the network server ticks each
//! session's ServerSync model, the client ticks its model at each batch),
//! and the clock is world state: thread wakeups and positions depend on it,
//! and it is in the state hash. A frame carries the master's tick
//! ([`Frame::now`]) and both sides check it before any pass: the server
//! refuses to compute a frame for a ServerSync model at another tick
//! ([`DiffError::Clock`], nothing changed), the client refuses a frame of
//! another tick ([`DiffError::Desync`] of pass [`Pass::Clock`], nothing
//! changed). A mismatch is a host bug; correcting it silently would hide it
//! and make the two synchronous models differ in history. So pass 2's scans
//! are centred on the same point at the same tick on both sides.
//!
//! # Incremental frames
//!
//! Re-walking every reachable table each frame costs what the graph
//! weighs (4 ms for 10,000 tables). A [`Transmitter`] remembers what its
//! last frame looked at and left behind, and the next frame computes only
//! what may differ, **producing exactly the frame a full run of every pass
//! would** (checked: [`Transmitter::check_incremental`] computes both and
//! reports any difference; the property test runs every frame so, over
//! random mutation sequences). Four levels, each with its exact condition:
//!
//! * **Passes 1 to 3.** [`crate::tangible::Tangibles::version`] names the
//!   content of a model's Rust tangibles (process-unique, changed by every
//!   change of a tangible, restored by a rollback). A frame that left the
//!   ServerSync model's tangibles as it found them (so passes 1 and 2 said
//!   nothing) remembers both versions, the tick and its close list and hash.
//!   If both versions are the same at the next frame, and the tick is too
//!   or nothing moves (then no position depends on the tick), passes 1 to 3
//!   get the same inputs, so they give the same (empty) messages and the
//!   same close list: they are not run. Otherwise they run (two scans of
//!   each radius).
//! * **Nothing watched was written.** Write marks (`State::write_mark`) on
//!   both models after each frame; when passes 1 to 3 say nothing, the close
//!   list and its databases are the same and no table the last frame looked
//!   at (numbered tables of both sides, the close tangibles' databases and
//!   metatables, published globals, registries, class databases) was
//!   written, created or freed since, and no class table was written (a
//!   class table is special, not watched, and its `__class` names it),
//!   passes 4 to 9 would say nothing: the frame says so ([`Frame::graph`]
//!   is `None`), and the structure kept for the next frame stays valid.
//! * **Same structure: passes 4 to 6 reused.** The traversals of passes 4
//!   to 6 see, of each table, only its ordinary-table metatable and the
//!   sequence (in iteration order) of sortable keys holding ordinary tables,
//!   plus which tables are special. A frame that created no table and whose
//!   compared tables all had the same structure on both sides before it
//!   stored anything left the ServerSync graph's structure as it found it;
//!   it keeps its numbering, hash, pairing and special sets. The next frame
//!   reuses them if: no ServerSync table the last frame looked at was
//!   written or freed since; the master's and ServerSync's registries and
//!   class databases were not written and no class table was (so the
//!   special sets and every special value's image are the same); the close
//!   list and its databases are the same; no master table the last frame
//!   numbered was freed; and every written master table that was numbered
//!   (and every written root) has the structure of its ServerSync table,
//!   which is what the master table had at the last frame (that frame left
//!   the two equal). Then only the written master tables can differ: passes
//!   7 to 9 compare those (in number order) and nothing else. Cost: what
//!   changed, plus the two write-set scans (a summary of 1/16 byte per table
//!   slot, then the blocks written).
//! * **Otherwise: all of passes 4 to 6, and passes 7 to 9 on what may
//!   differ.** After the traversals, a pair (master table, client table)
//!   that was equal after the last frame can differ now only if either was
//!   written, the pair is new (the master table was paired with another
//!   client table, or not at all), an ordinary table it refers to is now
//!   paired with another client table than the last frame's (the
//!   correspondence the last frame left is kept: by master handle, its
//!   client handle), or a special table it refers to has another image
//!   (compared). Every other pair is skipped by passes 7 and 8 (a scan of
//!   its values, no key lookups); pass 9 compares the close tangibles new
//!   to the list or whose metatable was written (all of them if a class
//!   may have changed). A class rebuild (the source database changed), a
//!   mark that cannot answer, or a failed check in the last frame: every
//!   pass in full.
//!
//! **Invariants.** After a frame: ServerSync and ClientSync have equal
//! state hashes; every tangible within the visibility radius exists on
//! both sides with the master's animation queue; the graph reachable from
//! the close tangibles (and the published globals) in the client model is
//! isomorphic to the master's, entries compared by the seed's equality
//! rules, and every transmitted table iterates its transmittable keys in the
//! master's order (rebuilt so by `State::table_rebuild`, and checked: a
//! [`DesyncReport`] would name the table). No std hash map
//! is iterated; nothing here reads a clock; every input byte string gives a
//! frame or an error, never a panic.

pub(crate) mod close_list;
pub(crate) mod create_delete;
pub mod frame;
pub(crate) mod number_client;
pub(crate) mod number_remaining;
pub(crate) mod pair;
pub(crate) mod player_position;
pub(crate) mod source_database;
pub(crate) mod table_contents;
pub(crate) mod tangible_differences;
pub(crate) mod tangible_metatables;
pub(crate) mod values;

pub use frame::{
    CreateTangible, Frame, Graph, Key, PlayerUpdate, Sets, SourceEntry, TangibleOp, Target, Val,
    WireStep,
};

use crate::error::EngineError;
use crate::world::World;
use luprex_vm::raw::{
    is_sortable, Numbering, Pairing, SpecialSet, State, StateHasher, TableRef, Value, WriteMark,
    WriteSet, Written,
};
use std::fmt;
use values::{ClientNumbers, Refs};

/// The passes, for errors and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pass {
    /// The frame's bytes.
    Decode,
    /// The clock check, before every pass (see "The clock" in the module
    /// docs).
    Clock,
    /// The source database (seed 004).
    SourceDatabase,
    /// Update Player Position.
    UpdatePlayerPosition,
    /// Create and Delete Tangibles.
    CreateAndDeleteTangibles,
    /// Generate the Close Tangible List.
    CloseTangibleList,
    /// Number the Tables in the Client Model.
    NumberClientTables,
    /// Pair Up Tables.
    PairTables,
    /// Number the Remaining Tables.
    NumberRemainingTables,
    /// Transmit Table Contents.
    TableContents,
    /// Transmit Tangible Differences.
    TangibleDifferences,
    /// Compare Tangible Metatables.
    TangibleMetatables,
    /// The final state-hash check.
    StateHash,
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Pass::Decode => "decode",
            Pass::Clock => "clock",
            Pass::SourceDatabase => "source database",
            Pass::UpdatePlayerPosition => "update player position",
            Pass::CreateAndDeleteTangibles => "create and delete tangibles",
            Pass::CloseTangibleList => "generate the close tangible list",
            Pass::NumberClientTables => "number the tables in the client model",
            Pass::PairTables => "pair up tables",
            Pass::NumberRemainingTables => "number the remaining tables",
            Pass::TableContents => "transmit table contents",
            Pass::TangibleDifferences => "transmit tangible differences",
            Pass::TangibleMetatables => "compare tangible metatables",
            Pass::StateHash => "state hash",
        };
        f.write_str(s)
    }
}

/// A divergence between the models found by a check: the pass, and the
/// first divergent table (its number in the frame's numbering) or
/// tangible, if the check can name one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesyncReport {
    /// The pass whose check failed.
    pub pass: Pass,
    /// The first divergent table number, if any.
    pub table: Option<u32>,
    /// The first divergent tangible, if any.
    pub tangible: Option<u64>,
    /// What differed.
    pub detail: String,
}

impl fmt::Display for DesyncReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "desync in pass '{}'", self.pass)?;
        if let Some(t) = self.table {
            write!(f, ", table {t}")?;
        }
        if let Some(t) = self.tangible {
            write!(f, ", tangible {t}")?;
        }
        write!(f, ": {}", self.detail)
    }
}

/// Why a frame message cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Reject {
    /// A table number outside the frame's numbering.
    #[error("unknown table number {0}")]
    UnknownTable(u32),
    /// A tangible the client model does not have.
    #[error("unknown tangible {0}")]
    UnknownTangible(u64),
    /// A tangible the client model already has (create).
    #[error("tangible {0} exists already or its id is not valid")]
    TangibleExists(u64),
    /// A class the client model does not have.
    #[error("unknown class '{0}'")]
    UnknownClass(String),
    /// A key that cannot be stored (NaN) or a metatable key where none is
    /// allowed.
    #[error("bad key")]
    BadKey,
    /// A metatable value that is not a table.
    #[error("bad metatable value")]
    BadMetatable,
    /// An animation queue that is not valid.
    #[error("bad animation queue for tangible {0}")]
    BadQueue(u64),
    /// An IdPlayerPool that is not valid.
    #[error("bad id pool for tangible {0}")]
    BadPool(u64),
    /// A source entry without code whose file the client does not have.
    #[error("source '{0}' has no code and the client has no copy")]
    MissingSource(String),
    /// More tables created than the frame can reference.
    #[error("{0} tables created but the frame references fewer")]
    TooManyTables(u32),
    /// The engine refused an operation.
    #[error("{0}")]
    Engine(String),
}

/// An error of difference transmission.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The frame's bytes are not a frame.
    #[error("malformed frame: {0}")]
    Decode(String),
    /// A message of the frame could not be applied; the client model is
    /// unchanged.
    #[error("frame rejected in pass '{pass}': {reason}")]
    Rejected {
        /// The pass.
        pass: Pass,
        /// Why.
        reason: Reject,
    },
    /// A check failed; the client model is unchanged.
    #[error("{0}")]
    Desync(DesyncReport),
    /// The player tangible is missing from the master.
    #[error("no player tangible {0} in the master")]
    NoPlayer(u64),
    /// The models' clocks differ (the host ticks the synchronous models in
    /// step with the master).
    #[error("clock mismatch: master at tick {master}, synchronous model at tick {sync}")]
    Clock {
        /// The master's tick.
        master: i64,
        /// The synchronous model's tick.
        sync: i64,
    },
    /// An engine error (snapshot, rollback).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl DiffError {
    pub(crate) fn reject(pass: Pass, reason: Reject) -> DiffError {
        DiffError::Rejected { pass, reason }
    }
}

/// The two radii of a frame (seed 000): tangibles within `visibility`
/// exist on the client with correct animation queues; those within
/// `close` (at most `visibility`) also have their Lua data transmitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radii {
    /// The visibility radius.
    pub visibility: f64,
    /// The close radius.
    pub close: f64,
}

/// Options of a [`Transmitter`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Put the ServerSync model's state hash in each frame, for the client
    /// to check (costs a hash of the whole model on both sides).
    pub verify_state_hash: bool,
    /// Use the incremental frames (see the module docs).
    pub incremental: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { verify_state_hash: false, incremental: true }
    }
}

/// What [`Transmitter::frame`] produces: the frame, and the reports of
/// the server-side checks that failed (empty normally).
#[derive(Debug)]
pub struct Transmission {
    /// The frame to send (and already applied to the ServerSync model).
    pub frame: Frame,
    /// Server-side desync reports.
    pub reports: Vec<DesyncReport>,
}

/// What [`apply`] returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// The print text the frame carried for the player.
    pub print: Option<String>,
    /// Whether the table passes ran (false: the frame said nothing changed).
    pub graph: bool,
}

/// What the last frame's table passes looked at and left behind (for the
/// incremental frames; see the module docs).
#[derive(Debug)]
struct LastFrame {
    master_mark: WriteMark,
    sync_mark: WriteMark,
    close: Vec<u64>,
    master_tans: Vec<TableRef>,
    sync_tans: Vec<TableRef>,
    master_watch: SpecialSet,
    sync_watch: SpecialSet,
    /// The correspondence the last frame left: for each master table
    /// numbered then (by handle index), 1 + the handle index of its client
    /// table (0: none).
    corr: Vec<u32>,
    /// The numbering, pairing and special sets of the last frame, if that
    /// frame left the graphs' structure as it found it (see "Incremental
    /// frames" in the module docs).
    structure: Option<Structure>,
}

/// The results of passes 4 to 6 and the special sets of a frame that
/// changed no structure (no table created, no table reference stored or
/// removed, no order of table references changed), for the next frame.
#[derive(Debug)]
struct Structure {
    numbering: Numbering,
    numbering_hash: u64,
    pairing: Pairing,
    mspecial: SpecialSet,
    sspecial: SpecialSet,
}

/// What the table passes of a frame looked at (see [`LastFrame`]): the
/// watch sets and correspondence (`None`: the last frame's, kept, when
/// passes 4 to 6 were reused), and the structure for the next frame.
struct Seen {
    watch: Option<(SpecialSet, SpecialSet, Vec<u32>)>,
    structure: Option<Structure>,
}

/// What passes 1 to 3 produced in a frame that did not change the
/// ServerSync model's Rust tangibles (see "Passes 1 to 3" in the module
/// docs).
#[derive(Debug)]
struct TangibleCache {
    master_version: u64,
    sync_version: u64,
    now: i64,
    close: Vec<u64>,
    close_hash: u64,
}

/// The server side of difference transmission for one client: its player,
/// radii and options, and what its last frame looked at.
#[derive(Debug)]
pub struct Transmitter {
    player: u64,
    radii: Radii,
    options: Options,
    last: Option<LastFrame>,
    tangible_cache: Option<TangibleCache>,
    /// The source database versions of both models at the last frame
    /// that found their databases equal (see [`World::sources_version`]).
    sources_same: Option<(u64, u64)>,
    check: bool,
}

/// Non-incremental one-shot transmission: one frame for `player`, applied
/// to `server_sync` (see [`Transmitter::frame`]).
pub fn transmit(
    master: &mut World,
    server_sync: &mut World,
    player: u64,
    radii: Radii,
) -> Result<Transmission, DiffError> {
    let opts = Options { verify_state_hash: false, incremental: false };
    Transmitter::new(player, radii, opts).frame(master, server_sync, None)
}

/// The server-side context shared by the passes.
pub(crate) struct ServerCtx {
    pub reports: Vec<DesyncReport>,
}

/// The client-side context the passes build and use (on the client, and
/// on the server for its ServerSync copy).
#[derive(Default)]
pub(crate) struct ClientCtx {
    /// The close tangible list.
    pub close: Vec<u64>,
    /// The client numbering and the tables created by this frame.
    pub nums: ClientNumbers,
}

/// What the incremental table passes know of the changes since the last
/// frame (see "Incremental frames" in the module docs).
struct Changes<'a> {
    last: &'a LastFrame,
    /// Master tables written (or created) since the last frame.
    master: SpecialSet,
    /// ServerSync tables written (or created) since the last frame.
    sync: SpecialSet,
    /// The master's written set.
    master_set: WriteSet,
    /// The ServerSync model's written set.
    sync_set: WriteSet,
    /// Whether a class may have changed on either side (a class rebuild,
    /// a written registry, class database or class table): pass 9 then
    /// compares every close tangible.
    classes: bool,
}

/// How a frame is computed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// With the caches and marks of the transmitter (updating them).
    Incremental,
    /// Every pass in full; the transmitter's caches are neither used nor
    /// updated.
    Full,
}

impl Transmitter {
    /// A transmitter for `player`.
    pub fn new(player: u64, radii: Radii, options: Options) -> Transmitter {
        Transmitter {
            player,
            radii,
            options,
            last: None,
            tangible_cache: None,
            sources_same: None,
            check: false,
        }
    }

    /// Tests and debugging: with [`Options::incremental`], also compute
    /// each frame in full (on the ServerSync model, rolled back
    /// afterwards) and report any difference between the two frames, or
    /// between the ServerSync state hashes after them, as a
    /// [`DesyncReport`] naming the first pass that differs. Costs a full
    /// frame and two state hashes per frame.
    pub fn check_incremental(&mut self, on: bool) {
        self.check = on;
    }

    /// The player.
    pub fn player(&self) -> u64 {
        self.player
    }

    /// Forgets the last frame (the next one runs every pass).
    pub fn reset(&mut self) {
        self.last = None;
        self.tangible_cache = None;
        self.sources_same = None;
    }

    /// Computes the next frame: every pass in order, each pass's messages
    /// applied to `server_sync` before the next. `print` is the master's
    /// print output for the player (carried, not world state). Atomic on
    /// `server_sync`: on an error it is left as it was.
    ///
    /// The two models' clocks must agree (the host ticks the synchronous
    /// models in step with the master): otherwise [`DiffError::Clock`],
    /// and nothing changes. The frame carries the clock and the client
    /// checks its own against it (see "The clock" in the module docs).
    pub fn frame(
        &mut self,
        master: &mut World,
        server_sync: &mut World,
        print: Option<String>,
    ) -> Result<Transmission, DiffError> {
        if master.now() != server_sync.now() {
            return Err(DiffError::Clock { master: master.now(), sync: server_sync.now() });
        }
        let incremental = self.options.incremental;
        // The check: the full frame first, on the ServerSync model rolled
        // back afterwards (the transmitter's marks were taken before that
        // snapshot, so they stay valid).
        let full = if incremental && self.check {
            let snap = server_sync.snapshot()?;
            let r = self.frame_inner(master, server_sync, print.clone(), Mode::Full);
            let h = server_sync.state_hash();
            server_sync.rollback(&snap)?;
            server_sync.release(snap)?;
            Some((r, h))
        } else {
            None
        };
        let mode = if incremental { Mode::Incremental } else { Mode::Full };
        let snap = server_sync.snapshot()?;
        match self.frame_inner(master, server_sync, print, mode) {
            Ok(mut t) => {
                server_sync.release(snap)?;
                if incremental {
                    let master_mark = master.state_mut().write_mark();
                    let sync_mark = server_sync.state_mut().write_mark();
                    if let Some(l) = &mut self.last {
                        l.master_mark = master_mark;
                        l.sync_mark = sync_mark;
                    }
                }
                if let Some((full, h)) = full {
                    let mine = server_sync.state_hash();
                    if let Some(r) = check_same(&t.frame, mine, full, h) {
                        t.reports.push(r);
                    }
                }
                Ok(t)
            }
            Err(e) => {
                self.reset();
                server_sync.rollback(&snap)?;
                server_sync.release(snap)?;
                Err(e)
            }
        }
    }

    fn frame_inner(
        &mut self,
        master: &mut World,
        sync: &mut World,
        print: Option<String>,
        mode: Mode,
    ) -> Result<Transmission, DiffError> {
        let mut sctx = ServerCtx { reports: Vec::new() };
        let mut cctx = ClientCtx::default();
        let player = self.player;
        let incremental = mode == Mode::Incremental;
        // The source database: compared only if either model's may have
        // changed since the last frame found them equal.
        let versions = (master.sources_version(), sync.sources_version());
        let sources = match incremental && self.sources_same == Some(versions) {
            true => None,
            false => source_database::transmit_source_database(master, sync)?,
        };
        source_database::apply(sync, sources.as_deref())?;
        if incremental {
            self.sources_same =
                sources.is_none().then(|| (master.sources_version(), sync.sources_version()));
        }

        // Passes 1 to 3, or what they gave last time if neither model's
        // Rust tangibles changed since (see the module docs).
        let (master_version, sync_version) =
            (master.tangibles().version(), sync.tangibles().version());
        let moving = master.tangibles().any_moving() || sync.tangibles().any_moving();
        let cached = self.tangible_cache.as_ref().filter(|c| {
            incremental
                && c.master_version == master_version
                && c.sync_version == sync_version
                && (c.now == master.now() || !moving)
        });
        let (player_msg, tangibles, close_hash) = if let Some(c) = cached {
            cctx.close = c.close.clone();
            (
                PlayerUpdate { id: player, print, ..PlayerUpdate::default() },
                Vec::new(),
                c.close_hash,
            )
        } else {
            let player_msg = player_position::update_player_position(master, sync, player, print)?;
            player_position::apply(sync, &player_msg)?;
            let tangibles =
                create_delete::create_and_delete_tangibles(master, sync, player, self.radii)?;
            create_delete::apply(sync, &tangibles)?;
            let close_hash = close_list::generate_close_tangible_list(
                master,
                sync,
                player,
                self.radii.close,
                &mut sctx,
                &mut cctx,
            )?;
            (player_msg, tangibles, close_hash)
        };

        let quiet = sources.is_none() && player_msg.is_empty() && tangibles.is_empty();
        let structure =
            if incremental { self.last.as_mut().and_then(|l| l.structure.take()) } else { None };
        let last = if incremental { self.last.as_ref() } else { None };
        // What was written since the last frame, on both sides.
        let written = last.and_then(|l| {
            match (
                master.state().tables_written_since(&l.master_mark),
                sync.state().tables_written_since(&l.sync_mark),
            ) {
                (Written::Known(m), Written::Known(s)) => Some((l, m, s)),
                _ => None,
            }
        });
        let (mr, sr) = (Refs::new(master.state_mut()), Refs::new(sync.state_mut()));
        // The close tangibles' databases: last frame's if the close list
        // and both registries are unchanged, else one registry lookup each.
        let (m_tans, s_tans) = match &written {
            Some((l, m, s))
                if l.close == cctx.close
                    && m.tables.binary_search(&mr.reg).is_err()
                    && s.tables.binary_search(&sr.reg).is_err() =>
            {
                (l.master_tans.clone(), l.sync_tans.clone())
            }
            _ => close_tables(master, sync, &mr, &sr, &cctx.close)?,
        };
        let skip = quiet
            && written.as_ref().is_some_and(|(l, m, s)| {
                l.close == cctx.close
                    && l.master_tans == m_tans
                    && l.sync_tans == s_tans
                    && unwritten(m, &l.master_watch)
                    && unwritten(s, &l.sync_watch)
                    && !m.tables.iter().any(|&t| is_class(master.state(), &mr, t))
                    && !s.tables.iter().any(|&t| is_class(sync.state(), &sr, t))
            });
        let graph = if skip {
            // Nothing the last frame's structure depends on was written
            // either: it stays valid for the next frame.
            if let Some(l) = &mut self.last {
                l.structure = structure;
            }
            None
        } else {
            let changes = match written {
                Some((l, m, s)) if sources.is_none() => {
                    Some(changes(master, sync, &mr, &sr, l, m, s))
                }
                _ => None,
            };
            let (g, next) = Self::graph(
                master, sync, &mut sctx, &mut cctx, &m_tans, &s_tans, changes, structure,
            )?;
            // (A full frame leaves the transmitter as it was.)
            let old = if incremental { self.last.take() } else { None };
            let watch = next.watch.or_else(|| old.map(|o| (o.master_watch, o.sync_watch, o.corr)));
            match watch {
                // A check failed: the two sides may differ where the next
                // frame would not look; it compares everything.
                _ if !sctx.reports.is_empty() => {}
                Some((master_watch, sync_watch, corr)) if incremental => {
                    // The marks are taken after the release, in `frame`.
                    self.last = Some(LastFrame {
                        master_mark: master.state_mut().write_mark(),
                        sync_mark: sync.state_mut().write_mark(),
                        close: cctx.close.clone(),
                        master_tans: m_tans,
                        sync_tans: s_tans,
                        master_watch,
                        sync_watch,
                        corr,
                        structure: next.structure,
                    });
                }
                _ => {}
            }
            Some(g)
        };
        if incremental {
            // Cached only if the frame left the ServerSync model's Rust
            // tangibles as they were: then passes 1 to 3 ran on the same
            // tangibles as the next frame's would, and said nothing.
            self.tangible_cache = (sync.tangibles().version() == sync_version
                && player_msg.is_empty()
                && tangibles.is_empty())
            .then(|| TangibleCache {
                master_version,
                sync_version,
                now: master.now(),
                close: cctx.close.clone(),
                close_hash,
            });
        }
        let state_hash = self.options.verify_state_hash.then(|| sync.state_hash());
        let frame = Frame {
            now: master.now(),
            close_radius: self.radii.close,
            sources,
            player: player_msg,
            tangibles,
            close_hash,
            graph,
            state_hash,
        };
        Ok(Transmission { frame, reports: sctx.reports })
    }

    /// Passes 4 to 9; also returns what the next frame needs (the watch
    /// sets and the correspondence; the rest of it is filled by the
    /// caller). With `changes`, passes 7 to 9 compare only what may
    /// differ (see the module docs); without, everything.
    #[allow(clippy::too_many_arguments)]
    fn graph(
        master: &mut World,
        sync: &mut World,
        sctx: &mut ServerCtx,
        cctx: &mut ClientCtx,
        m_tans: &[TableRef],
        s_tans: &[TableRef],
        changes: Option<Changes<'_>>,
        structure: Option<Structure>,
    ) -> Result<(Graph, Seen), DiffError> {
        let mrefs = Refs::new(master.state_mut());
        let srefs = Refs::new(sync.state_mut());
        // Passes 4 to 6: the last frame's results if the structure is
        // unchanged since (see the module docs), else computed.
        let reuse = match (structure, &changes) {
            (Some(st), Some(ch))
                if ch.structure_unchanged(master, sync, &mrefs, &srefs, &st, m_tans, s_tans) =>
            {
                Some(st)
            }
            _ => None,
        };
        let reused = reuse.is_some();
        let (mspecial, sspecial, numbering_hash, pairing, new_tables) = match reuse {
            Some(st) => {
                cctx.nums.set_numbering(st.numbering);
                (st.mspecial, st.sspecial, st.numbering_hash, st.pairing, 0)
            }
            None => {
                let mspecial = special(master, &mrefs);
                let sspecial = special(sync, &srefs);
                let mroots = roots(&mrefs, m_tans);
                let sroots = roots(&srefs, s_tans);
                let numbering_hash =
                    number_client::number_client_tables(sync.state(), &sroots, &sspecial, cctx);
                let mut pairing = pair::pair_tables(
                    master.state(),
                    &mroots,
                    &mspecial,
                    sync.state(),
                    &sroots,
                    &sspecial,
                    &cctx.nums,
                );
                let new_tables = number_remaining::number_remaining_tables(
                    master.state(),
                    &mroots,
                    &mspecial,
                    &mut pairing,
                );
                number_remaining::apply(sync, new_tables, cctx);
                (mspecial, sspecial, numbering_hash, pairing, new_tables)
            }
        };
        let mut g = Graph {
            numbering_hash,
            new_tables,
            tables: Vec::new(),
            reorder: Vec::new(),
            dbs: Vec::new(),
            db_reorder: Vec::new(),
            classes: Vec::new(),
        };
        // The correspondence this frame establishes.
        let corr = match reused {
            // Not used: passes 4 to 6 are the last frame's.
            true => Vec::new(),
            false => {
                let mut corr = Vec::new();
                for n in 1..=pairing.max_number() {
                    if let (Some(tm), Some(tc)) = (pairing.table(n), cctx.nums.table(n)) {
                        let i = tm.index() as usize;
                        if corr.len() <= i {
                            corr.resize(i + 1, 0);
                        }
                        corr[i] = tc.index() + 1;
                    }
                }
                corr
            }
        };
        let keys = values::KeyCache::default();
        macro_rules! cmp {
            () => {
                values::Compare::new(
                    master.state(),
                    &mrefs,
                    &mspecial,
                    &pairing,
                    sync.state(),
                    &srefs,
                    &sspecial,
                    &cctx.nums,
                    &keys,
                )
            };
        }
        // Pass 7: contents, then order.
        let targets = match &changes {
            // The same structure: only the written tables may differ.
            Some(ch) if reused => {
                let mut v: Vec<_> = ch
                    .master_set
                    .tables
                    .iter()
                    .filter_map(|&tm| {
                        let n = pairing.number_of(tm)?;
                        Some((Target::Table(n), tm, cctx.nums.table(n)?))
                    })
                    .collect();
                v.sort_unstable_by_key(|&(t, _, _)| match t {
                    Target::Table(n) => n,
                    _ => 0,
                });
                v
            }
            Some(ch) => {
                let c = cmp!();
                let mut v = table_contents::table_targets(&c);
                v.retain(|&(_, tm, tc)| ch.may_differ(&c, &corr, tm, tc, true));
                v
            }
            None => table_contents::table_targets(&cmp!()),
        };
        // Whether this frame leaves the structure as it found it (then the
        // next frame may reuse passes 4 to 6): checked on the tables it
        // compares, before it changes them.
        // (Passes 1 to 3 ran before the numbering: what they changed is in
        // it, and in the special sets.)
        let mut preserving = changes.is_some() && new_tables == 0;
        if preserving && !reused {
            let (m, c) = (master.state(), sync.state());
            preserving = targets.iter().all(|&(_, tm, tc)| {
                same_structure(m, tm, &mspecial, c, tc, &sspecial, &corr, true)
            });
        }
        g.tables = table_contents::transmit_table_contents(&cmp!(), &targets);
        table_contents::apply_sets(sync, &srefs, &g.tables, cctx, Pass::TableContents)?;
        g.reorder = table_contents::restore_order(&cmp!(), &targets);
        table_contents::apply_sets(sync, &srefs, &g.reorder, cctx, Pass::TableContents)?;
        table_contents::verify_order(&cmp!(), &targets, &g.reorder, Pass::TableContents, sctx);
        // Pass 8: databases, then order.
        let mut dbs = tangible_differences::db_targets(&mrefs, &srefs, &cctx.close, m_tans, s_tans);
        if let (Some(ch), true) = (&changes, reused) {
            dbs.retain(|&(_, tm, _)| ch.master.contains(tm));
        } else if let Some(ch) = &changes {
            let c = cmp!();
            dbs.retain(|&(target, tm, tc)| {
                let was_close = match target {
                    Target::Tangible(id) => {
                        ch.last.close.binary_search(&id).ok().is_some_and(|i| {
                            ch.last.master_tans[i] == tm && ch.last.sync_tans[i] == tc
                        })
                    }
                    _ => true,
                };
                !was_close || ch.may_differ(&c, &corr, tm, tc, false)
            });
        }
        if preserving && !reused {
            let (m, c) = (master.state(), sync.state());
            preserving = dbs.iter().all(|&(_, tm, tc)| {
                same_structure(m, tm, &mspecial, c, tc, &sspecial, &corr, false)
            });
        }
        g.dbs = tangible_differences::transmit_tangible_differences(&cmp!(), &dbs);
        table_contents::apply_sets(sync, &srefs, &g.dbs, cctx, Pass::TangibleDifferences)?;
        g.db_reorder = table_contents::restore_order(&cmp!(), &dbs);
        table_contents::apply_sets(sync, &srefs, &g.db_reorder, cctx, Pass::TangibleDifferences)?;
        table_contents::verify_order(&cmp!(), &dbs, &g.db_reorder, Pass::TangibleDifferences, sctx);
        // Pass 9: every close tangible, or those whose class may differ.
        let close: Vec<u64> = match &changes {
            Some(ch) if !ch.classes => cctx
                .close
                .iter()
                .zip(m_tans.iter().zip(s_tans))
                .filter(|&(&id, (&tm, &tc))| {
                    let was = ch.last.close.binary_search(&id).ok().is_some_and(|i| {
                        ch.last.master_tans[i] == tm && ch.last.sync_tans[i] == tc
                    });
                    let mt_written = |st: &State, t: TableRef, w: &SpecialSet| {
                        st.metatable(Value::Table(t)).is_some_and(|mt| w.contains(mt))
                    };
                    !was || mt_written(master.state(), tm, &ch.master)
                        || mt_written(sync.state(), tc, &ch.sync)
                })
                .map(|(&id, _)| id)
                .collect(),
            _ => cctx.close.clone(),
        };
        g.classes = tangible_metatables::compare_tangible_metatables(master, sync, &close, sctx);
        tangible_metatables::apply(sync, &g.classes)?;

        // What this frame looked at, for the next one's fast path.
        if reused {
            let structure = (preserving && sctx.reports.is_empty()).then(|| Structure {
                numbering: cctx.nums.take_numbering(),
                numbering_hash,
                pairing,
                mspecial,
                sspecial,
            });
            return Ok((g, Seen { watch: None, structure }));
        }
        let mut mw = SpecialSet::new();
        for n in 1..=pairing.max_number() {
            if let Some(t) = pairing.table(n) {
                mw.mark(t);
            }
        }
        let mut sw = SpecialSet::new();
        for &t in cctx.nums.tables() {
            sw.mark(t);
        }
        for (st, refs, tans, w) in
            [(master.state(), &mrefs, m_tans, &mut mw), (sync.state(), &srefs, s_tans, &mut sw)]
        {
            for &t in tans {
                w.mark(t);
                if let Some(mt) = st.metatable(Value::Table(t)) {
                    w.mark(mt);
                }
            }
            w.mark(refs.globalpub);
            w.mark(refs.reg);
            w.mark(refs.classdb);
        }
        let structure = (preserving && sctx.reports.is_empty()).then(|| Structure {
            numbering: cctx.nums.take_numbering(),
            numbering_hash,
            pairing,
            mspecial,
            sspecial,
        });
        Ok((g, Seen { watch: Some((mw, sw, corr)), structure }))
    }
}

/// The close tangibles' databases on both sides (one registry lookup
/// each).
fn close_tables(
    master: &World,
    sync: &World,
    mr: &Refs,
    sr: &Refs,
    close: &[u64],
) -> Result<(Vec<TableRef>, Vec<TableRef>), DiffError> {
    let mut m_tans = Vec::with_capacity(close.len());
    let mut s_tans = Vec::with_capacity(close.len());
    for &id in close {
        let (Value::Table(m), Value::Table(s)) = (
            master.state().table(mr.reg).get_int(id as i64),
            sync.state().table(sr.reg).get_int(id as i64),
        ) else {
            return Err(DiffError::Desync(DesyncReport {
                pass: Pass::CloseTangibleList,
                table: None,
                tangible: Some(id),
                detail: "close tangible without a database".into(),
            }));
        };
        m_tans.push(m);
        s_tans.push(s);
    }
    Ok((m_tans, s_tans))
}

/// Whether table `t` may be a class table (it has a `__class` string; a
/// class table is special, so not watched: a write to one may change a
/// class's name, hence the image of every value naming it).
fn is_class(st: &State, r: &Refs, t: TableRef) -> bool {
    matches!(st.table(t).get_str(r.class), Value::Str(_))
}

/// The changes since the last frame, from the written sets of both sides.
fn changes<'a>(
    master: &World,
    sync: &World,
    mr: &Refs,
    sr: &Refs,
    last: &'a LastFrame,
    m: WriteSet,
    s: WriteSet,
) -> Changes<'a> {
    let mut ms = SpecialSet::new();
    m.tables.iter().for_each(|&t| ms.mark(t));
    let mut ss = SpecialSet::new();
    s.tables.iter().for_each(|&t| ss.mark(t));
    let classes = [mr.reg, mr.classdb].iter().any(|&t| ms.contains(t))
        || [sr.reg, sr.classdb].iter().any(|&t| ss.contains(t))
        || m.tables.iter().any(|&t| is_class(master.state(), mr, t))
        || s.tables.iter().any(|&t| is_class(sync.state(), sr, t));
    Changes { last, master: ms, sync: ss, master_set: m, sync_set: s, classes }
}

/// Whether master table `tm` and client table `tc` have the same
/// structure under the correspondence `corr`: the same ordinary-table
/// metatable (if `with_meta`; or both none, or both special), and the same
/// sequence, in iteration order, of sortable keys holding ordinary tables,
/// each pair of tables corresponding. The traversals of passes 4 to 6 see
/// nothing else of a table.
#[allow(clippy::too_many_arguments)]
fn same_structure(
    m: &State,
    tm: TableRef,
    mspecial: &SpecialSet,
    c: &State,
    tc: TableRef,
    cspecial: &SpecialSet,
    corr: &[u32],
    with_meta: bool,
) -> bool {
    let pair = |a: TableRef, b: TableRef| {
        corr.get(a.index() as usize).is_some_and(|&x| x == b.index() + 1)
    };
    if with_meta {
        let ok = match (m.metatable(Value::Table(tm)), c.metatable(Value::Table(tc))) {
            (None, None) => true,
            (Some(a), Some(b)) => match (mspecial.contains(a), cspecial.contains(b)) {
                (true, true) => true,
                (false, false) => pair(a, b),
                _ => false,
            },
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    let mut mi = m.table(tm).iter().filter_map(|(k, v)| match v {
        Value::Table(t) if is_sortable(k) && !mspecial.contains(t) => Some((k, t)),
        _ => None,
    });
    let mut ci = c.table(tc).iter().filter_map(|(k, v)| match v {
        Value::Table(t) if is_sortable(k) && !cspecial.contains(t) => Some((k, t)),
        _ => None,
    });
    loop {
        match (mi.next(), ci.next()) {
            (None, None) => return true,
            (Some((ka, a)), Some((kb, b))) => {
                let same_key = match (ka, kb) {
                    (Value::Str(x), Value::Str(y)) => m.str_bytes(x) == c.str_bytes(y),
                    (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
                    // Other keys are numbers, booleans or a tangible's
                    // table: equal by value or handle.
                    _ => ka.raw_eq_interned(kb),
                };
                if !same_key || !pair(a, b) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

impl Changes<'_> {
    /// Whether the last frame's passes 4 to 6 (`st`) are this frame's:
    /// the roots, the special sets and every traversed table's structure
    /// are unchanged. On the ServerSync side: no table the last frame
    /// looked at was written or freed since. On the master side: no class
    /// or registry changed, no table the last frame looked at was freed,
    /// and every written table it numbered (and every written root) has
    /// the structure of its client table, which is the master table's
    /// structure at the last frame (that frame left the two equal).
    #[allow(clippy::too_many_arguments)]
    fn structure_unchanged(
        &self,
        master: &World,
        sync: &World,
        mr: &Refs,
        sr: &Refs,
        st: &Structure,
        m_tans: &[TableRef],
        s_tans: &[TableRef],
    ) -> bool {
        let l = self.last;
        if self.classes
            || l.master_tans != m_tans
            || l.sync_tans != s_tans
            || !unwritten(&self.sync_set, &l.sync_watch)
            || self
                .master_set
                .freed
                .iter()
                .any(|&i| l.master_watch.contains(TableRef::from_index(i)))
        {
            return false;
        }
        let (m, c) = (master.state(), sync.state());
        let same =
            |tm, tc, meta| same_structure(m, tm, &st.mspecial, c, tc, &st.sspecial, &l.corr, meta);
        if self.master.contains(mr.globalpub) && !same(mr.globalpub, sr.globalpub, false) {
            return false;
        }
        for (&tm, &tc) in m_tans.iter().zip(s_tans) {
            if self.master.contains(tm) && !same(tm, tc, false) {
                return false;
            }
        }
        self.master_set.tables.iter().all(|&tm| match st.pairing.number_of(tm) {
            Some(n) => st.numbering.table(n).is_some_and(|tc| same(tm, tc, true)),
            None => true,
        })
    }

    /// Whether the pair `(tm, tc)` (compared as a table if `with_meta`,
    /// else as a database) may differ now, though it was equal after the
    /// last frame: false only if neither table was written since, the
    /// pair is the last frame's, every ordinary table `tm` refers to kept
    /// its client table, and every special table it refers to still has
    /// the same image (compared, as the pass would).
    fn may_differ(
        &self,
        cmp: &values::Compare<'_>,
        corr: &[u32],
        tm: TableRef,
        tc: TableRef,
        with_meta: bool,
    ) -> bool {
        if self.master.contains(tm) || self.sync.contains(tc) {
            return true;
        }
        let last = |t: TableRef| self.last.corr.get(t.index() as usize).copied().unwrap_or(0);
        let now = |t: TableRef| corr.get(t.index() as usize).copied().unwrap_or(0);
        if with_meta && last(tm) != tc.index() + 1 {
            return true;
        }
        let changed = |mv: Value, cv: &dyn Fn() -> Value| match mv {
            Value::Table(x) if cmp.master_special(x) => !cmp.same(mv, cv()),
            Value::Table(x) => last(x) != now(x),
            _ => false,
        };
        if with_meta {
            let mm = cmp.m.metatable(Value::Table(tm)).map_or(Value::Nil, Value::Table);
            let cm = || cmp.c.metatable(Value::Table(tc)).map_or(Value::Nil, Value::Table);
            if changed(mm, &cm) {
                return true;
            }
        }
        cmp.m.table(tm).iter().any(|(k, v)| is_sortable(k) && changed(v, &|| cmp.client_get(tc, k)))
    }
}

/// Compares the incremental frame (and the ServerSync state hash after
/// it) with the full one ([`Options::check_incremental`]); a report naming
/// the first pass whose messages differ, if any.
fn check_same(
    frame: &Frame,
    hash: u128,
    full: Result<Transmission, DiffError>,
    full_hash: u128,
) -> Option<DesyncReport> {
    let report = |pass: Pass, detail: String| {
        Some(DesyncReport { pass, table: None, tangible: None, detail })
    };
    let full = match full {
        Ok(t) => t.frame,
        Err(e) => return report(Pass::Decode, format!("the full frame failed: {e}")),
    };
    let differs = |what: &str| format!("incremental frame differs from the full re-walk: {what}");
    if frame.sources != full.sources {
        return report(Pass::SourceDatabase, differs("sources"));
    }
    if frame.player != full.player {
        return report(Pass::UpdatePlayerPosition, differs("player"));
    }
    if frame.tangibles != full.tangibles {
        return report(Pass::CreateAndDeleteTangibles, differs("tangibles"));
    }
    if frame.close_hash != full.close_hash {
        return report(Pass::CloseTangibleList, differs("close list hash"));
    }
    match (&frame.graph, &full.graph) {
        (None, Some(g)) if !g.is_empty() => {
            return report(Pass::NumberClientTables, differs("graph skipped"));
        }
        (Some(a), Some(b)) => {
            if a.numbering_hash != b.numbering_hash {
                return report(Pass::NumberClientTables, differs("numbering"));
            }
            if a.new_tables != b.new_tables {
                return report(Pass::NumberRemainingTables, differs("new tables"));
            }
            if a.tables != b.tables || a.reorder != b.reorder {
                return report(Pass::TableContents, differs(&format!("{a:?} / {b:?}")));
            }
            if a.dbs != b.dbs || a.db_reorder != b.db_reorder {
                return report(Pass::TangibleDifferences, differs(&format!("{a:?} / {b:?}")));
            }
            if a.classes != b.classes {
                return report(Pass::TangibleMetatables, differs("classes"));
            }
        }
        (Some(_), None) => return report(Pass::NumberClientTables, differs("no full graph")),
        _ => {}
    }
    if hash != full_hash {
        return report(Pass::StateHash, differs("ServerSync state hash"));
    }
    None
}

/// Whether no table of `watch` was written, created or freed (by the
/// written set `w`).
fn unwritten(w: &WriteSet, watch: &SpecialSet) -> bool {
    w.tables.iter().all(|&t| !watch.contains(t))
        && w.freed.iter().all(|&i| !watch.contains(TableRef::from_index(i)))
}

/// The special set of a model: the World's ([`World::special_set`]) and
/// its published globals.
pub(crate) fn special(w: &mut World, refs: &Refs) -> SpecialSet {
    let mut s = w.special_set();
    s.mark(refs.globalpub);
    s
}

/// The roots of the traversals: the published globals, then the close
/// tangibles' databases (all special, so expanded one level).
pub(crate) fn roots(refs: &Refs, tans: &[TableRef]) -> Vec<Value> {
    let mut r = Vec::with_capacity(tans.len() + 1);
    r.push(Value::Table(refs.globalpub));
    r.extend(tans.iter().map(|&t| Value::Table(t)));
    r
}

/// A 64-bit hash of a sequence of words (close list, numbering).
pub(crate) fn hash_words(tag: &[u8], words: impl Iterator<Item = u64>) -> u64 {
    let mut h = StateHasher::new();
    h.write(tag);
    let mut n = 0u64;
    for w in words {
        h.write_u64(w);
        n += 1;
    }
    h.write_u64(n);
    h.finish128() as u64
}

/// Applies `frame` to the client model `client`, pass by pass, atomically:
/// on any error the model is rolled back to what it was.
pub fn apply(client: &mut World, frame: &Frame) -> Result<Applied, DiffError> {
    if client.now() != frame.now {
        return Err(DiffError::Desync(DesyncReport {
            pass: Pass::Clock,
            table: None,
            tangible: None,
            detail: format!("clock: frame at tick {}, client at tick {}", frame.now, client.now()),
        }));
    }
    let snap = client.snapshot()?;
    match apply_inner(client, frame) {
        Ok(a) => {
            client.release(snap)?;
            Ok(a)
        }
        Err(e) => {
            client.rollback(&snap)?;
            client.release(snap)?;
            Err(e)
        }
    }
}

/// Decodes `bytes` ([`Frame::decode`]) and applies the frame ([`apply`]).
pub fn apply_bytes(client: &mut World, bytes: &[u8]) -> Result<Applied, DiffError> {
    let frame = Frame::decode(bytes)?;
    apply(client, &frame)
}

fn apply_inner(client: &mut World, frame: &Frame) -> Result<Applied, DiffError> {
    let mut cctx = ClientCtx::default();
    let player = frame.player.id;
    source_database::apply(client, frame.sources.as_deref())?;
    player_position::apply(client, &frame.player)?;
    create_delete::apply(client, &frame.tangibles)?;
    close_list::apply(client, player, frame.close_radius, frame.close_hash, &mut cctx)?;
    if let Some(g) = &frame.graph {
        let refs = Refs::new(client.state_mut());
        let mut tans = Vec::with_capacity(cctx.close.len());
        for &id in &cctx.close {
            tans.push(client.tangible(id).ok_or_else(|| {
                DiffError::reject(Pass::CloseTangibleList, Reject::UnknownTangible(id))
            })?);
        }
        let sp = special(client, &refs);
        let rts = roots(&refs, &tans);
        let h = number_client::number_client_tables(client.state(), &rts, &sp, &mut cctx);
        if h != g.numbering_hash {
            return Err(DiffError::Desync(DesyncReport {
                pass: Pass::NumberClientTables,
                table: None,
                tangible: None,
                detail: format!(
                    "numbering hash {h:016x} (client, {} tables) differs from the server's {:016x}",
                    cctx.nums.len(),
                    g.numbering_hash
                ),
            }));
        }
        number_remaining::check_referenced(g)?;
        number_remaining::apply(client, g.new_tables, &mut cctx);
        table_contents::apply_sets(client, &refs, &g.tables, &cctx, Pass::TableContents)?;
        table_contents::apply_sets(client, &refs, &g.reorder, &cctx, Pass::TableContents)?;
        table_contents::apply_sets(client, &refs, &g.dbs, &cctx, Pass::TangibleDifferences)?;
        table_contents::apply_sets(client, &refs, &g.db_reorder, &cctx, Pass::TangibleDifferences)?;
        tangible_metatables::apply(client, &g.classes)?;
    }
    if let Some(h) = frame.state_hash {
        let mine = client.state_hash();
        if mine != h {
            return Err(DiffError::Desync(DesyncReport {
                pass: Pass::StateHash,
                table: None,
                tangible: None,
                detail: format!("client state hash {mine:032x}, server {h:032x}"),
            }));
        }
    }
    Ok(Applied { print: frame.player.print.clone(), graph: frame.graph.is_some() })
}
