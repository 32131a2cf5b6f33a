//! The client without I/O: the client-synchronous model and the
//! predictions on top of it.
//!
//! **Design.** [`ClientCore`] holds one World of kind `ClientSync`. While
//! commands are unacknowledged it is, in fact, the *asynchronous* model:
//! a snapshot of the synchronous state is open and the pending commands
//! have been applied on top (seed 004, "Snapshot"). The seven steps of a
//! command (seed 003):
//! 1. [`ClientCore::command`] queues the command, with the next sequence
//!    number, for the server, and
//! 2. applies it at once to the asynchronous model (the prediction);
//!
//! 3 to 5 happen on the server; then a batch arrives
//! ([`ClientCore::receive`]):
//! 6. the client rolls back to the snapshot (the synchronous state), ticks,
//!    runs the acknowledged commands that executed, applies the view
//!    frame, compares the state hash when the batch carries one, and
//! 7. opens a new snapshot and re-applies the commands still pending.
//!
//! **Mispredictions** (seed 001, "the client learns when its prediction
//! lost a conflict"): when a batch acknowledges a command, the client
//! compares what it predicted with what the batch gave: whether the
//! command executed, where the command's tangible (the player for a
//! walk, the target for an invocation) ends up (its last animation step,
//! or its absence), and what it did to the script data of the player and
//! of the target. Where is compared for the last command a batch
//! acknowledges (the earlier ones' moves are overwritten by it). Data:
//! each tangible's database has a digest ([`data_digest`]: the sum of its
//! entries' digests, tables in them by content to depth [`DIGEST_DEPTH`],
//! tangibles by ID, functions and other objects by type only; insensitive
//! to key order); the prediction records how the command changed the two
//! digests (after minus before), and when a batch acknowledges exactly one
//! command of this client, the client compares that with how the batch
//! changed them (the client-synchronous model after the batch minus
//! before it). So changes made to the player while the command was in
//! flight (an item crafted earlier arriving) do not count, but a change to
//! the same data in the tick that ran the command (another player's chop
//! of the same tree) does, and so does data that records the tick
//! (`now() + 10`): a prediction runs at the client's tick, earlier than
//! the master's. A difference counts one misprediction and raises
//! [`ClientEvent::Misprediction`].
//!
//! **Prints.** Predicted prints are discarded: the player sees the
//! master's output, carried in the batches ([`ClientCore::take_prints`]).
//!
//! **Invariants.**
//! * Outside [`ClientCore::receive`] the synchronous state is the
//!   snapshot's, exactly: it only changes by batches, in order, so it is
//!   hash-equal to the server-synchronous model after the same batch.
//! * A bogus message from the server (undecodable, out of order) ends the
//!   session ([`ClientError`]); no input bytes make the client panic.

use crate::protocol::{self, Batch, Command, Down, Hello, Outcome, Up, PROTOCOL_VERSION};
use crate::server_core::{drain, run_command};
use crate::view::{self, WireSource};
use luprex_engine::diff::{self, DiffError};
use luprex_engine::raw::{TableRef, Value};
use luprex_engine::{Model, ThreadReportKind, World, WorldSnapshot};
use std::collections::VecDeque;

/// Why a client session ended.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The server sent something this protocol does not allow.
    #[error("bogus message from the server: {0}")]
    Bogus(String),
    /// The server closed the session.
    #[error("closed by the server: {0}")]
    Closed(String),
    /// Not in a state that allows this.
    #[error("not connected")]
    NotLive,
    /// The World failed.
    #[error("world: {0}")]
    World(String),
    /// A view frame failed a check of difference transmission: the
    /// desync report. The client model no longer follows its twin; the
    /// host reconnects (a late join rebuilds it).
    #[error("desync: {0}")]
    Desync(String),
}

/// What happened, for the host (UI).
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// The handshake succeeded.
    Welcome {
        /// The player's tangible.
        player: u64,
    },
    /// A command was acknowledged.
    Acked {
        /// Its sequence number.
        seq: u64,
        /// What the master did.
        outcome: Outcome,
    },
    /// A prediction lost a conflict.
    Misprediction {
        /// The command.
        seq: u64,
        /// The count so far.
        count: u64,
    },
    /// The synchronous twins' hashes differ.
    Desync {
        /// The batch's tick.
        tick: i64,
    },
}

/// Counters of a client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Batches applied.
    pub batches: u64,
    /// Commands acknowledged.
    pub acks: u64,
    /// Of which failed.
    pub failed: u64,
    /// Mispredictions.
    pub mispredictions: u64,
    /// State checks made.
    pub checks: u64,
    /// State checks that failed.
    pub desyncs: u64,
    /// Bytes received.
    pub bytes_down: u64,
}

/// What a prediction expected: executed, where its tangible ends up, and
/// how it changed the player's and the target's data.
#[derive(Clone, Debug, PartialEq)]
struct Expect {
    ok: bool,
    at: Option<[f64; 3]>,
    data: [Change; 2],
}

/// How a tangible's data digest changed: whether the tangible was there
/// before and after, and the digest's difference (wrapping).
type Change = (bool, bool, u64);

fn change(before: Option<u64>, after: Option<u64>) -> Change {
    let d = match (before, after) {
        (Some(b), Some(a)) => a.wrapping_sub(b),
        _ => 0,
    };
    (before.is_some(), after.is_some(), d)
}

struct Pending {
    seq: u64,
    cmd: Command,
    expect: Expect,
}

enum Phase {
    AwaitWelcome,
    Live,
    Closed(String),
}

/// The client state machine (see the module docs).
pub struct ClientCore {
    phase: Phase,
    world: World,
    snap: Option<WorldSnapshot>,
    pending: VecDeque<Pending>,
    next_seq: u64,
    player: u64,
    radius: f64,
    tick_hz: u32,
    cache: Vec<WireSource>,
    outbox: Vec<Vec<u8>>,
    events: Vec<ClientEvent>,
    prints: String,
    stats: ClientStats,
}

impl ClientCore {
    /// A client for player `name` with `secret`; `cache` is the source
    /// database of an earlier session (empty for none). The handshake is
    /// in the outbox.
    pub fn new(
        name: &str,
        secret: &str,
        cache: Vec<WireSource>,
    ) -> Result<ClientCore, ClientError> {
        let mut world =
            World::new(Model::ClientSync).map_err(|e| ClientError::World(e.to_string()))?;
        let mut hash = 0;
        if !cache.is_empty() {
            let mut probe =
                World::new(Model::ClientSync).map_err(|e| ClientError::World(e.to_string()))?;
            if view::load_wire_sources(&mut probe, &cache).is_ok() {
                hash = view::source_hash(&mut probe);
            }
        }
        world.take_output();
        let hello = Hello {
            version: PROTOCOL_VERSION,
            name: name.to_owned(),
            secret: secret.to_owned(),
            sources: hash,
        };
        Ok(ClientCore {
            phase: Phase::AwaitWelcome,
            world,
            snap: None,
            pending: VecDeque::new(),
            next_seq: 1,
            player: 0,
            radius: 0.0,
            tick_hz: 0,
            cache,
            outbox: vec![protocol::encode(&Up::Hello(hello))],
            events: Vec::new(),
            prints: String::new(),
            stats: ClientStats::default(),
        })
    }

    /// The encoded messages for the server, oldest first.
    pub fn take_outbox(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.outbox)
    }

    /// The events since the last call.
    pub fn take_events(&mut self) -> Vec<ClientEvent> {
        std::mem::take(&mut self.events)
    }

    /// The master's output to this player since the last call.
    pub fn take_prints(&mut self) -> String {
        std::mem::take(&mut self.prints)
    }

    /// The counters.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    /// The player's tangible (0 before the welcome).
    pub fn player(&self) -> u64 {
        self.player
    }

    /// The view radius the server gave.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The server's ticks per second (0 before the welcome).
    pub fn tick_hz(&self) -> u32 {
        self.tick_hz
    }

    /// Whether the session is live.
    pub fn is_live(&self) -> bool {
        matches!(self.phase, Phase::Live)
    }

    /// Why the session ended, if it did.
    pub fn closed(&self) -> Option<&str> {
        match &self.phase {
            Phase::Closed(r) => Some(r),
            _ => None,
        }
    }

    /// How many commands await their acknowledgement.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The asynchronous model: what the player sees.
    pub fn view(&mut self) -> &mut World {
        &mut self.world
    }

    /// The source database now held (for the next session's cache).
    pub fn sources(&mut self) -> Vec<WireSource> {
        view::wire_sources(&mut self.world)
    }

    /// The state hash of the synchronous model (rolls the predictions
    /// back and re-applies them).
    pub fn sync_hash(&mut self) -> Result<u128, ClientError> {
        self.unpredict()?;
        let h = self.world.state_hash();
        self.repredict()?;
        Ok(h)
    }

    /// Issues a command: queued for the server and predicted now. Returns
    /// its sequence number.
    pub fn command(&mut self, cmd: Command) -> Result<u64, ClientError> {
        if !self.is_live() {
            return Err(ClientError::NotLive);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.outbox.push(protocol::encode(&Up::Command { seq, cmd: cmd.clone() }));
        if self.snap.is_none() {
            self.snap = Some(self.world.snapshot().map_err(world_err)?);
        }
        let expect = predict(&mut self.world, self.player, &cmd);
        self.pending.push_back(Pending { seq, cmd, expect });
        Ok(seq)
    }

    /// Says goodbye (the session ends).
    pub fn bye(&mut self) {
        self.outbox.push(protocol::encode(&Up::Bye));
        self.phase = Phase::Closed("said goodbye".into());
    }

    /// The bytes of one frame from the server.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.stats.bytes_down += bytes.len() as u64 + 4;
        let r = self.receive_inner(bytes);
        if let Err(e) = &r {
            if !matches!(self.phase, Phase::Closed(_)) {
                self.phase = Phase::Closed(e.to_string());
            }
        }
        r
    }

    fn receive_inner(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let msg = protocol::decode_down(bytes).map_err(|e| ClientError::Bogus(e.to_string()))?;
        match (msg, &self.phase) {
            (Down::Closing { reason }, _) => Err(ClientError::Closed(reason)),
            (
                Down::Welcome { version, player, tick, tick_hz, cached, radius, blank, .. },
                Phase::AwaitWelcome,
            ) => {
                if version != PROTOCOL_VERSION {
                    return Err(ClientError::Bogus(format!("server protocol {version}")));
                }
                self.tick_hz = tick_hz;
                self.welcome(player, tick, cached, radius, &blank)
            }
            (Down::Batch(b), Phase::Live) => self.batch(b),
            (m, _) => Err(ClientError::Bogus(format!("unexpected {}", kind(&m)))),
        }
    }

    fn welcome(
        &mut self,
        player: u64,
        tick: i64,
        cached: bool,
        radius: f64,
        blank: &[u8],
    ) -> Result<(), ClientError> {
        self.world = World::restore(Model::ClientSync, blank)
            .map_err(|e| ClientError::Bogus(format!("blank model: {e}")))?;
        if cached {
            view::load_wire_sources(&mut self.world, &self.cache)
                .map_err(|e| ClientError::World(e.to_string()))?;
        }
        if self.world.now() != tick {
            return Err(ClientError::Bogus(format!(
                "blank model at tick {}, welcome at tick {tick}",
                self.world.now()
            )));
        }
        self.player = player;
        self.radius = radius;
        self.phase = Phase::Live;
        self.events.push(ClientEvent::Welcome { player });
        Ok(())
    }

    fn unpredict(&mut self) -> Result<(), ClientError> {
        if let Some(s) = self.snap.take() {
            self.world.rollback(&s).map_err(world_err)?;
            self.world.release(s).map_err(world_err)?;
        }
        Ok(())
    }

    fn repredict(&mut self) -> Result<(), ClientError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.snap = Some(self.world.snapshot().map_err(world_err)?);
        for p in &self.pending {
            predict(&mut self.world, self.player, &p.cmd);
        }
        Ok(())
    }

    /// Steps 6 and 7 (see the module docs).
    fn batch(&mut self, b: Batch) -> Result<(), ClientError> {
        self.unpredict()?;
        // The data of the one command this batch acknowledges, before.
        let single = match b.acks.as_slice() {
            [a] => self.pending.iter().find(|p| p.seq == a.seq).map(|p| p.cmd.clone()),
            _ => None,
        };
        let before = single.as_ref().map(|c| data_of(&mut self.world, self.player, c));
        if b.tick != self.world.now() + 1 {
            return Err(ClientError::Bogus(format!(
                "batch of tick {} after tick {}",
                b.tick,
                self.world.now()
            )));
        }
        self.world.tick();
        let mut acked = Vec::new();
        for ack in &b.acks {
            let Some(i) = self.pending.iter().position(|p| p.seq == ack.seq) else {
                return Err(ClientError::Bogus(format!("ack of unknown command {}", ack.seq)));
            };
            let Some(p) = self.pending.remove(i) else { continue };
            let ok = ack.outcome == Outcome::Executed;
            if ok {
                let _ = run_command(&mut self.world, self.player, &p.cmd);
            } else {
                self.stats.failed += 1;
            }
            self.stats.acks += 1;
            self.events.push(ClientEvent::Acked { seq: ack.seq, outcome: ack.outcome.clone() });
            acked.push((p, ok));
        }
        let applied = match b.view.is_empty() {
            true => Ok(diff::Applied::default()),
            false => diff::apply_bytes(&mut self.world, &b.view),
        };
        match applied {
            Ok(_) => {}
            Err(DiffError::Desync(r)) => {
                self.stats.desyncs += 1;
                tracing::error!(tick = b.tick, report = %r, "desync: a view frame failed its check");
                self.events.push(ClientEvent::Desync { tick: b.tick });
                return Err(ClientError::Desync(r.to_string()));
            }
            Err(e) => return Err(ClientError::Bogus(e.to_string())),
        }
        drain(&mut self.world, self.player);
        self.prints.push_str(&b.prints);
        self.stats.batches += 1;
        if let Some(h) = b.check {
            self.stats.checks += 1;
            let mine = self.world.state_hash();
            if mine != h {
                self.stats.desyncs += 1;
                tracing::error!(tick = b.tick, ours = %format!("{mine:032x}"), theirs = %format!("{h:032x}"),
                    tangibles = ?self.world.tangible_ids(), "desync: client-synchronous state differs");
                self.events.push(ClientEvent::Desync { tick: b.tick });
            }
        }
        let changed = match (single, before) {
            (Some(c), Some(before)) => {
                let after = data_of(&mut self.world, self.player, &c);
                Some([change(before[0], after[0]), change(before[1], after[1])])
            }
            _ => None,
        };
        self.mispredictions(&acked, changed);
        self.repredict()
    }

    /// Compares each acknowledged command's prediction with the outcome
    /// (the position only for the last one: later ones moved it again;
    /// `changed`, the data's change, when the batch acknowledged one).
    fn mispredictions(&mut self, acked: &[(Pending, bool)], changed: Option<[Change; 2]>) {
        let n = acked.len();
        for (i, (p, ok)) in acked.iter().enumerate() {
            let mut wrong = p.expect.ok != *ok;
            if i + 1 == n && *ok && p.expect.ok {
                wrong |= where_is(&self.world, self.player, &p.cmd) != p.expect.at;
                wrong |= changed.is_some_and(|c| c != p.expect.data);
            }
            if wrong {
                self.stats.mispredictions += 1;
                self.events.push(ClientEvent::Misprediction {
                    seq: p.seq,
                    count: self.stats.mispredictions,
                });
            }
        }
    }
}

fn world_err(e: luprex_engine::EngineError) -> ClientError {
    ClientError::World(e.to_string())
}

fn kind(m: &Down) -> &'static str {
    match m {
        Down::Welcome { .. } => "welcome",
        Down::Batch(_) => "batch",
        Down::Closing { .. } => "closing",
    }
}

/// The tangible `cmd` acts on.
fn subject(player: u64, cmd: &Command) -> u64 {
    match cmd {
        Command::Walk { .. } => player,
        Command::Invoke { target, .. } => *target,
    }
}

/// Where the tangible `cmd` acts on ends up (its last animation step).
fn where_is(w: &World, player: u64, cmd: &Command) -> Option<[f64; 3]> {
    w.tangibles().get(subject(player, cmd)).map(|t| t.queue.last().pos)
}

/// The digests of the player's and the command's tangible's data.
fn data_of(w: &mut World, player: u64, cmd: &Command) -> [Option<u64>; 2] {
    [data_digest(w, player), data_digest(w, subject(player, cmd))]
}

/// How deep [`data_digest`] looks into the tables of a database.
pub const DIGEST_DEPTH: u32 = 3;

/// A digest of tangible `id`'s script data (its database), or `None` if
/// the model has no such tangible: see the module docs.
pub fn data_digest(w: &mut World, id: u64) -> Option<u64> {
    let t = w.tangible(id)?;
    Some(digest_table(w, t, DIGEST_DEPTH))
}

/// The entries of `t`, combined by a wrapping sum of their mixed digests
/// (so the order of keys does not matter, and a change of one entry
/// changes the sum by a difference of two entry digests).
fn digest_table(w: &mut World, t: TableRef, depth: u32) -> u64 {
    let entries: Vec<(Value, Value)> = w.state().table(t).iter().collect();
    let mut acc = 0u64;
    for (k, v) in entries {
        let (k, v) = (digest_value(w, k, depth), digest_value(w, v, depth));
        acc = acc.wrapping_add(mix(k, v));
    }
    acc
}

fn digest_value(w: &mut World, v: Value, depth: u32) -> u64 {
    match v {
        Value::Nil => 1,
        Value::Bool(b) => 2 + u64::from(b),
        Value::Int(i) => mix(4, i as u64),
        Value::Float(f) => mix(5, f.to_bits()),
        Value::Str(s) => {
            let bytes = w.state().str_bytes(s);
            bytes.iter().fold(mix(6, bytes.len() as u64), |h, &b| mix(h, u64::from(b)))
        }
        Value::Table(t) => match w.tangible_id(v) {
            Some(id) => mix(7, id),
            None if depth == 0 => 8,
            None => mix(9, digest_table(w, t, depth - 1)),
        },
        Value::LuaFn(_) | Value::RustFn(_) => 10,
        Value::Thread(_) => 11,
        _ => 12,
    }
}

/// A 64-bit mix of two words (splitmix64's finalizer).
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.rotate_left(23) ^ b.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Applies `cmd` as a prediction; what it expects.
fn predict(w: &mut World, player: u64, cmd: &Command) -> Expect {
    let before = data_of(w, player, cmd);
    let ok = match run_command(w, player, cmd) {
        Ok(tid) => !w.take_thread_reports().iter().any(|r| {
            r.thread == tid && matches!(r.kind, ThreadReportKind::Error | ThreadReportKind::Limit)
        }),
        Err(_) => false,
    };
    drain(w, player);
    let after = data_of(w, player, cmd);
    let data = [change(before[0], after[0]), change(before[1], after[1])];
    Expect { ok, at: where_is(w, player, cmd), data }
}
