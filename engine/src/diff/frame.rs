//! The frame: every message of one round of difference transmission, in
//! pass order, and its byte encoding.
//!
//! A [`Frame`] is plain data with serde derives. Values cross as [`Val`]
//! (the seed's list: string, number, boolean, nil, table N, tangible ID,
//! class name, globalenv; functions and threads are sent as nil) and keys as
//! [`Key`] (the sortable keys, plus `METATABLE`). Table numbers are those of
//! the frame's numbering: `1..=N` the client's own numbering of its model
//! (pass 4, recomputed by the client), `N+1..=M` the tables the frame
//! creates (pass 6).
//!
//! **Encoding.** [`Frame::encode`] / [`Frame::decode`] use `bitcode`
//! (serde mode), chosen over `postcard` by measurement
//! (`benches/RESULTS.md`, "Difference transmission"; `benches/diff.rs`):
//! on the frames that carry data bitcode's are 2.2 times smaller
//! (1% of 40,000 entries changed: 2,010 bytes against 4,509; a full
//! resend of 10,000 tables: 278 KB against 502 KB), at about the same
//! speed (encode + decode of those: 56 µs against 49 µs, 11.8 ms against
//! 10.6 ms). postcard is faster only on an empty frame (0.4 µs against
//! 2.1 µs; both about 30 bytes), which costs nothing either way.
//!
//! Decoding accepts exactly what serde's derive accepts; everything else
//! (truncation, a bad enum tag, trailing bytes, a length past the input)
//! is a [`DiffError::Decode`], never a panic (fuzzed: `fuzz/README.md`).

use super::DiffError;
use serde::{Deserialize, Serialize};

/// A key of a table entry: a sortable key, or the metatable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Key {
    /// The metatable (the seed's `METATABLE` key).
    Metatable,
    /// A boolean key.
    Bool(bool),
    /// An integer key.
    Int(i64),
    /// A float key (IEEE bits; never integral, never NaN from a server).
    Float(u64),
    /// A string key's bytes.
    Str(Vec<u8>),
}

/// A value of a table entry as the client should store it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Val {
    /// nil (also functions, threads, userdata and tables the client cannot
    /// know).
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float, as its IEEE bits.
    Float(u64),
    /// A string's bytes.
    Str(Vec<u8>),
    /// The table of that number.
    Table(u32),
    /// The tangible of that ID (its database).
    Tangible(u64),
    /// The class of that name.
    Class(String),
    /// The global environment.
    GlobalEnv,
}

/// One step of an animation queue on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireStep {
    /// Its tick.
    pub tick: i64,
    /// Its point.
    pub pos: [f64; 3],
}

/// A source database entry (seed 004): a file in load order, its
/// fingerprint, and its code if the client's copy differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceEntry {
    /// The file name.
    pub name: String,
    /// The fingerprint.
    pub fingerprint: u128,
    /// The code, or `None`: the client's copy has the same hash.
    pub code: Option<Vec<u8>>,
}

/// Create a tangible (pass 2, and pass 1 for a missing player).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateTangible {
    /// Its ID.
    pub id: u64,
    /// Its class name.
    pub class: String,
    /// Its animation queue.
    pub queue: Vec<WireStep>,
}

/// Pass 1: the player's non-Lua data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerUpdate {
    /// The player's ID.
    pub id: u64,
    /// Create the player first (it is not in the client model).
    pub create: Option<CreateTangible>,
    /// A new animation queue.
    pub queue: Option<Vec<WireStep>>,
    /// A new IdPlayerPool (`Some(None)`: remove it).
    pub pool: Option<Option<Vec<(u64, u64)>>>,
    /// Print output for the player (not world state).
    pub print: Option<String>,
}

impl PlayerUpdate {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.create.is_none() && self.queue.is_none() && self.pool.is_none()
    }
}

/// A pass-2 message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TangibleOp {
    /// Create a tangible.
    Create(CreateTangible),
    /// Delete a tangible.
    Delete(u64),
    /// An animation queue correction.
    Queue(u64, Vec<WireStep>),
}

/// Which table a [`Sets`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// The table of that number.
    Table(u32),
    /// The database of that tangible.
    Tangible(u64),
    /// The published globals (`global.set`).
    Published,
}

/// Entries to store in one table, in order; with `rewrite`, the table is
/// emptied first (its metatable kept) and `sets` are its whole contents in
/// the master's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sets {
    /// The table.
    pub target: Target,
    /// Empty the table first.
    pub rewrite: bool,
    /// `Key → Value` (a `Nil` value deletes).
    pub sets: Vec<(Key, Val)>,
}

/// Passes 4 to 9.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Pass 4: the hash of the client numbering (beyond the seed).
    pub numbering_hash: u64,
    /// Pass 6: how many tables to create (numbers `N+1..=N+new_tables`).
    pub new_tables: u32,
    /// Pass 7: table contents.
    pub tables: Vec<Sets>,
    /// Pass 7: rewrites restoring the master's key order.
    pub reorder: Vec<Sets>,
    /// Pass 8: tangible databases and published globals.
    pub dbs: Vec<Sets>,
    /// Pass 8: rewrites restoring the master's key order.
    pub db_reorder: Vec<Sets>,
    /// Pass 9: `(tangible, class name)`.
    pub classes: Vec<(u64, String)>,
}

impl Graph {
    /// Whether it carries no message (the hash aside).
    pub fn is_empty(&self) -> bool {
        self.new_tables == 0
            && self.tables.is_empty()
            && self.reorder.is_empty()
            && self.dbs.is_empty()
            && self.db_reorder.is_empty()
            && self.classes.is_empty()
    }
}

/// One frame of difference transmission (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The master's tick (the client checks its own).
    pub now: i64,
    /// The close radius of pass 3.
    pub close_radius: f64,
    /// The source database, if it changed: every file in load order.
    pub sources: Option<Vec<SourceEntry>>,
    /// Pass 1.
    pub player: PlayerUpdate,
    /// Pass 2.
    pub tangibles: Vec<TangibleOp>,
    /// Pass 3: the hash of the close tangible list.
    pub close_hash: u64,
    /// Passes 4 to 9, or `None`: nothing the table passes look at changed
    /// since the last frame.
    pub graph: Option<Graph>,
    /// The ServerSync model's state hash after the frame, if the server
    /// verifies it.
    pub state_hash: Option<u128>,
}

impl Frame {
    /// Whether the frame changes nothing in the client model.
    pub fn is_empty(&self) -> bool {
        self.sources.is_none()
            && self.player.is_empty()
            && self.tangibles.is_empty()
            && self.graph.as_ref().is_none_or(Graph::is_empty)
    }

    /// The frame's bytes.
    pub fn encode(&self) -> Vec<u8> {
        bitcode::serialize(self).unwrap_or_default()
    }

    /// The frame of `bytes` (all of them).
    pub fn decode(bytes: &[u8]) -> Result<Frame, DiffError> {
        bitcode::deserialize(bytes).map_err(|e| DiffError::Decode(e.to_string()))
    }
}
