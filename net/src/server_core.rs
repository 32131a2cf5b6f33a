//! The server without I/O: the master, one synchronous model per client,
//! the tick.
//!
//! **Design.** [`ServerCore`] is a state machine driven by three calls:
//! [`ServerCore::receive`] (bytes of one frame from a connection),
//! [`ServerCore::tick`] (the fixed-rate clock) and
//! [`ServerCore::disconnected`]. It answers by filling each session's
//! outbox ([`ServerCore::take_outbox`]) and the list of sessions to close
//! ([`ServerCore::take_closed`]). It has no sockets, no clock and no
//! threads, so the TCP server (`server.rs`), the deterministic in-process
//! network (`sim.rs`) and the fuzz target drive the very same code.
//!
//! A session is `AwaitHello` until its handshake, then `Live`: it owns the
//! client's server-synchronous World, its inbox of commands, and the
//! acknowledgements waiting for the next batch. One tick
//! ([`ServerCore::tick`]) is:
//! 1. the master ticks (clock, due threads) and blocking requests are
//!    answered (`realtime` with the host's UTC time);
//! 2. each live session, in session order, has up to
//!    [`ServerConfig::max_commands_per_tick`] queued commands run on the
//!    master (seed 003 step 3), each acknowledged as executed or failed
//!    (step 4);
//! 3. each live session's server-synchronous model ticks, runs the
//!    executed commands of the tick in order (step 5), and gets the view
//!    frame (difference transmission); the batch (tick, acks, frame,
//!    prints, every N acks the state hash) goes into the outbox.
//!
//! **Bogus and impossible.** A frame that does not decode, a message the
//! session's state does not allow (a command before the handshake, a
//! second handshake, a sequence number that does not increase), or a
//! handshake that is refused closes that session with a logged reason
//! ([`Down::Closing`] is its last message). A well-formed command that
//! fails on the master is *impossible*: acknowledged as failed with the
//! error, and the session goes on.
//!
//! **Throttling.** A session runs at most `max_commands_per_tick` commands
//! per tick (80 a second at 20 Hz by default); commands beyond
//! `max_queued_commands` waiting are acknowledged as failed
//! (`throttled`) without running. A session whose outbox holds more than
//! `max_outbox` batches (the driver cannot deliver them: the client does
//! not read) is closed as too far behind. Nothing here waits for a
//! client.
//!
//! **Invariants.**
//! * A session's synchronous model receives exactly what its batches
//!   carry, in the same order, so after each batch it is hash-equal to the
//!   client's model after the same batch.
//! * A player has at most one live session; a new handshake as the same
//!   player replaces the old session (reconnect resumes its tangible).
//! * No input bytes make the core panic.

use crate::auth::{AuthError, Registry};
use crate::protocol::{self, Ack, Batch, Command, Down, Hello, Outcome, Up, PROTOCOL_VERSION};
use crate::view;
use luprex_engine::diff::{Options, Radii, Transmitter};
use luprex_engine::{Model, ThreadReportKind, World};
use std::collections::{BTreeMap, VecDeque};

/// A session's identifier (per server, never reused).
pub type SessionId = u64;

/// Server configuration (see the module docs for the limits).
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Ticks per second (20 by default).
    pub tick_hz: u32,
    /// The radius of a player's view (tangibles within it exist on the
    /// client with their motion).
    pub radius: f64,
    /// The close radius (at most `radius`): tangibles within it also have
    /// their Lua data transmitted.
    pub close_radius: f64,
    /// The state hash is sent every this many acknowledgements (0: never).
    pub check_every: u32,
    /// Commands a session may run per tick.
    pub max_commands_per_tick: usize,
    /// Commands a session may have waiting.
    pub max_queued_commands: usize,
    /// Batches a session's outbox may hold before it is too far behind.
    pub max_outbox: usize,
    /// A session gets a view frame every this many ticks (1: every tick;
    /// the sessions take turns); the batches between carry no frame. Trades the latency of other
    /// players' changes for server CPU (difference transmission is most of
    /// a tick's cost).
    pub frame_every: u32,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            tick_hz: 20,
            radius: 50.0,
            close_radius: 25.0,
            check_every: 16,
            max_commands_per_tick: 4,
            max_queued_commands: 64,
            max_outbox: 256,
            frame_every: 1,
        }
    }
}

/// Counters of a server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Ticks run.
    pub ticks: u64,
    /// Commands run on the master.
    pub commands: u64,
    /// Commands acknowledged as failed.
    pub failed: u64,
    /// Sessions closed for a bogus message or a refused handshake.
    pub bogus: u64,
    /// Bytes of every down message.
    pub bytes_down: u64,
}

struct Live {
    name: String,
    player: u64,
    sync: World,
    tx: Transmitter,
    inbox: VecDeque<(u64, Command)>,
    last_seq: u64,
    acks: Vec<Ack>,
    executed: Vec<Command>,
    acks_since_check: u32,
    prints: String,
}

enum Phase {
    AwaitHello,
    Live(Box<Live>),
    Closed,
}

struct Session {
    phase: Phase,
    outbox: VecDeque<Vec<u8>>,
}

/// The server state machine (see the module docs).
pub struct ServerCore {
    master: World,
    cfg: ServerConfig,
    registry: Registry,
    sessions: BTreeMap<SessionId, Session>,
    players: BTreeMap<u64, SessionId>,
    next_sid: SessionId,
    closed: Vec<(SessionId, String)>,
    realtime: Box<dyn FnMut() -> String>,
    stats: ServerStats,
    /// An empty synchronous model ticked with the master: a new session's
    /// twins start from its saved bytes.
    blank: World,
    /// Where the master's events go before anything is sent
    /// ([`ServerCore::set_journal`]).
    journal: Option<Journal>,
    /// Why the journal failed, if it did: the server must stop.
    storage_failed: Option<String>,
}

/// The sink of a persistent master's events (see [`ServerCore::persist`]).
pub type Journal = Box<dyn FnMut(&[luprex_engine::Event]) -> Result<(), String> + Send>;

/// Runs `cmd` for `player` on `w`: the thread's ID, or why it failed.
/// Failures are refusals (`invoke refused: ...`) and errors the thread
/// raised before it first waited.
pub fn run_command(w: &mut World, player: u64, cmd: &Command) -> Result<u64, String> {
    let tid = match cmd {
        Command::Walk { to } => w.walk(player, *to),
        Command::Invoke { target, function, args } => w.invoke(player, *target, function, args),
    }
    .map_err(|e| e.to_string())?;
    Ok(tid)
}

impl ServerCore {
    /// A server around `master` (loaded and started).
    ///
    /// Panics only if an empty World cannot be made (out of memory).
    pub fn new(master: World, cfg: ServerConfig, registry: Registry) -> ServerCore {
        let mut blank = World::new(Model::ServerSync).expect("an empty World");
        while blank.now() < master.now() {
            blank.tick();
        }
        ServerCore {
            blank,
            master,
            cfg,
            registry,
            sessions: BTreeMap::new(),
            players: BTreeMap::new(),
            next_sid: 1,
            closed: Vec::new(),
            realtime: Box::new(|| "1970-01-01T00:00:00Z".to_owned()),
            stats: ServerStats::default(),
            journal: None,
            storage_failed: None,
        }
    }

    /// Makes the master persistent: it records every event applied to it
    /// (`World::record_events`) and [`ServerCore::persist`] hands them to
    /// `journal`, which must make them durable before it returns. Drivers
    /// call `persist` before they send anything out, so no acknowledgement
    /// (or any other consequence of an event) leaves the server before the
    /// event is in the journal.
    pub fn set_journal(&mut self, journal: Journal) {
        self.master.record_events(true);
        self.journal = Some(journal);
    }

    /// Hands the events applied to the master since the last call to the
    /// journal. After a failure the server must stop sending
    /// ([`ServerCore::storage_failed`]): what it would send could depend on
    /// events a restart would not know.
    pub fn persist(&mut self) -> Result<(), String> {
        if let Some(why) = &self.storage_failed {
            return Err(why.clone());
        }
        let Some(j) = self.journal.as_mut() else { return Ok(()) };
        let events = self.master.take_events();
        if events.is_empty() {
            return Ok(());
        }
        j(&events).inspect_err(|e| self.storage_failed = Some(e.clone()))
    }

    /// Why the journal failed, if it did.
    pub fn storage_failed(&self) -> Option<&str> {
        self.storage_failed.as_deref()
    }

    /// Sets how `realtime` requests are answered (the TCP server: the
    /// real UTC time; the simulation: its simulated time).
    pub fn set_realtime(&mut self, f: Box<dyn FnMut() -> String>) {
        self.realtime = f;
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    /// The master World.
    pub fn master(&mut self) -> &mut World {
        &mut self.master
    }

    /// The counters.
    pub fn stats(&self) -> &ServerStats {
        &self.stats
    }

    /// The player registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// A new connection: its session awaits the handshake.
    pub fn open(&mut self) -> SessionId {
        let sid = self.next_sid;
        self.next_sid += 1;
        self.sessions.insert(sid, Session { phase: Phase::AwaitHello, outbox: VecDeque::new() });
        sid
    }

    /// The live sessions: (session, player name, player tangible).
    pub fn live(&self) -> Vec<(SessionId, String, u64)> {
        self.sessions
            .iter()
            .filter_map(|(&sid, s)| match &s.phase {
                Phase::Live(l) => Some((sid, l.name.clone(), l.player)),
                _ => None,
            })
            .collect()
    }

    /// The server-synchronous World of session `sid`, if live.
    pub fn sync_world(&mut self, sid: SessionId) -> Option<&mut World> {
        match &mut self.sessions.get_mut(&sid)?.phase {
            Phase::Live(l) => Some(&mut l.sync),
            _ => None,
        }
    }

    /// Takes the encoded messages for session `sid`, oldest first.
    pub fn take_outbox(&mut self, sid: SessionId) -> Vec<Vec<u8>> {
        self.sessions.get_mut(&sid).map(|s| s.outbox.drain(..).collect()).unwrap_or_default()
    }

    /// How many messages wait in session `sid`'s outbox.
    pub fn outbox_len(&self, sid: SessionId) -> usize {
        self.sessions.get(&sid).map_or(0, |s| s.outbox.len())
    }

    /// The sessions the core closed since the last call, with the reason.
    /// The driver sends their outbox (ending in [`Down::Closing`]), then
    /// drops the connection and calls [`ServerCore::disconnected`].
    pub fn take_closed(&mut self) -> Vec<(SessionId, String)> {
        std::mem::take(&mut self.closed)
    }

    /// The bytes of one frame from session `sid`'s connection.
    pub fn receive(&mut self, sid: SessionId, bytes: &[u8]) {
        let msg = match protocol::decode_up(bytes) {
            Ok(m) => m,
            Err(e) => return self.bogus(sid, &e.to_string()),
        };
        let awaiting = match self.sessions.get(&sid).map(|s| &s.phase) {
            Some(Phase::AwaitHello) => true,
            Some(Phase::Live(_)) => false,
            _ => return,
        };
        match (msg, awaiting) {
            (Up::Hello(h), true) => {
                let auth = self.registry.check_or_register(&h.name, &h.secret);
                self.join(sid, h, auth.map(|_| ()));
            }
            (Up::Command { seq, cmd }, false) => self.queue(sid, seq, cmd),
            (Up::Bye, _) => self.close(sid, "client said goodbye", false),
            (Up::Hello(_), false) => self.bogus(sid, "second handshake"),
            (Up::Command { .. }, true) => self.bogus(sid, "command before the handshake"),
        }
    }

    /// A handshake whose secret the driver has already checked against the
    /// registry (off the tick thread): `auth` is the result.
    pub fn join(&mut self, sid: SessionId, h: Hello, auth: Result<(), AuthError>) {
        if !matches!(self.sessions.get(&sid).map(|s| &s.phase), Some(Phase::AwaitHello)) {
            return self.bogus(sid, "handshake in the wrong state");
        }
        if h.version != PROTOCOL_VERSION {
            let m =
                format!("protocol version {} (the server speaks {PROTOCOL_VERSION})", h.version);
            return self.bogus(sid, &m);
        }
        if let Err(e) = auth {
            return self.bogus(sid, &format!("refused: {e}"));
        }
        // A reconnect replaces the player's live session: the old one
        // leaves (`onleave`) before the new one joins (`onjoin`).
        if let Some(old) = self.master.player_id(&h.name).and_then(|p| self.players.get(&p)) {
            let old = *old;
            self.close(old, "replaced by a new connection of the same player", false);
        }
        let adm = match self.master.admit(&h.name) {
            Ok(a) => a,
            Err(e) => return self.bogus(sid, &format!("refused: {e}")),
        };
        self.players.insert(adm.id, sid);
        match self.make_live(&h, adm.id) {
            Ok((live, welcome)) => {
                tracing::info!(sid, name = %h.name, player = adm.id, new = adm.new, "joined");
                self.push(sid, &welcome);
                if let Some(s) = self.sessions.get_mut(&sid) {
                    s.phase = Phase::Live(live);
                }
            }
            Err(e) => self.bogus(sid, &format!("cannot make the view: {e}")),
        }
    }

    fn make_live(&mut self, h: &Hello, player: u64) -> Result<(Box<Live>, Down), String> {
        let blank = self.blank.save().map_err(|e| e.to_string())?;
        let mut sync = World::restore(Model::ServerSync, &blank).map_err(|e| e.to_string())?;
        let src = view::source_hash(&mut self.master);
        let cached = h.sources != 0 && h.sources == src;
        if cached {
            let files = view::wire_sources(&mut self.master);
            view::load_wire_sources(&mut sync, &files)?;
        }
        let now = self.master.now();
        let radii = Radii { visibility: self.cfg.radius, close: self.cfg.close_radius };
        let opts = Options { verify_state_hash: false, incremental: true };
        let welcome = Down::Welcome {
            version: PROTOCOL_VERSION,
            player,
            tick: now,
            tick_hz: self.cfg.tick_hz,
            sources: src,
            cached,
            radius: self.cfg.radius,
            blank,
        };
        let live = Live {
            name: h.name.clone(),
            player,
            sync,
            tx: Transmitter::new(player, radii, opts),
            inbox: VecDeque::new(),
            last_seq: 0,
            acks: Vec::new(),
            executed: Vec::new(),
            acks_since_check: 0,
            prints: String::new(),
        };
        Ok((Box::new(live), welcome))
    }

    fn queue(&mut self, sid: SessionId, seq: u64, cmd: Command) {
        let max = self.cfg.max_queued_commands;
        let Some(Phase::Live(l)) = self.sessions.get_mut(&sid).map(|s| &mut s.phase) else {
            return;
        };
        if seq <= l.last_seq {
            let m = format!("sequence number {seq} after {}", l.last_seq);
            return self.bogus(sid, &m);
        }
        l.last_seq = seq;
        if l.inbox.len() >= max {
            let why = format!("throttled: more than {max} commands waiting");
            l.acks.push(Ack { seq, outcome: Outcome::Failed(why) });
            self.stats.failed += 1;
        } else {
            l.inbox.push_back((seq, cmd));
        }
    }

    /// Closes `sid` for a bogus message (logged, counted).
    fn bogus(&mut self, sid: SessionId, reason: &str) {
        if !self.sessions.contains_key(&sid) {
            return;
        }
        tracing::warn!(sid, reason, "closing connection: bogus message");
        self.stats.bogus += 1;
        self.close(sid, reason, true);
    }

    /// Closes `sid`: [`Down::Closing`] is queued, the player departs.
    pub fn close(&mut self, sid: SessionId, reason: &str, logged: bool) {
        let Some(s) = self.sessions.get_mut(&sid) else { return };
        if matches!(s.phase, Phase::Closed) {
            return;
        }
        if !logged {
            tracing::info!(sid, reason, "closing connection");
        }
        let phase = std::mem::replace(&mut s.phase, Phase::Closed);
        self.push(sid, &Down::Closing { reason: reason.to_owned() });
        self.closed.push((sid, reason.to_owned()));
        if let Phase::Live(l) = phase {
            self.depart(sid, l.player);
        }
    }

    fn depart(&mut self, sid: SessionId, player: u64) {
        if self.players.get(&player) == Some(&sid) {
            self.players.remove(&player);
            if let Err(e) = self.master.depart(player) {
                tracing::warn!(player, error = %e, "onleave failed");
            }
        }
    }

    /// The connection of `sid` is gone: the session is forgotten (its
    /// player departs if it was live).
    pub fn disconnected(&mut self, sid: SessionId) {
        if let Some(s) = self.sessions.remove(&sid) {
            if let Phase::Live(l) = s.phase {
                tracing::info!(sid, name = %l.name, "disconnected");
                self.depart(sid, l.player);
            }
        }
    }

    fn push(&mut self, sid: SessionId, msg: &Down) {
        let b = protocol::encode(msg);
        self.stats.bytes_down += b.len() as u64 + 4;
        if let Some(s) = self.sessions.get_mut(&sid) {
            s.outbox.push_back(b);
        }
    }

    /// One server tick (see the module docs).
    pub fn tick(&mut self) {
        self.stats.ticks += 1;
        self.master.tick();
        self.blank.tick();
        self.answer_requests();
        let sids: Vec<SessionId> = self.sessions.keys().copied().collect();
        for &sid in &sids {
            self.run_commands(sid);
        }
        self.answer_requests();
        self.route_reports(None);
        for &sid in &sids {
            self.send_batch(sid);
        }
    }

    fn answer_requests(&mut self) {
        for req in self.master.take_requests() {
            let ans = match req.name.as_str() {
                "realtime" => vec![luprex_engine::Plain::Str((self.realtime)())],
                _ => vec![luprex_engine::Plain::Nil],
            };
            if let Err(e) = self.master.answer(&req, &ans) {
                tracing::warn!(error = %e, "answering a blocking request");
            }
        }
    }

    /// Runs up to the per-tick limit of `sid`'s queued commands.
    fn run_commands(&mut self, sid: SessionId) {
        for _ in 0..self.cfg.max_commands_per_tick {
            let Some(Phase::Live(l)) = self.sessions.get_mut(&sid).map(|s| &mut s.phase) else {
                return;
            };
            let Some((seq, cmd)) = l.inbox.pop_front() else { return };
            let player = l.player;
            let ran = run_command(&mut self.master, player, &cmd);
            self.stats.commands += 1;
            let outcome = match ran {
                Ok(tid) => self.route_reports(Some(tid)).map_or(Outcome::Executed, Outcome::Failed),
                Err(e) => Outcome::Failed(e),
            };
            let Some(Phase::Live(l)) = self.sessions.get_mut(&sid).map(|s| &mut s.phase) else {
                return;
            };
            if outcome == Outcome::Executed {
                l.executed.push(cmd);
            } else {
                self.stats.failed += 1;
            }
            l.acks.push(Ack { seq, outcome });
        }
    }

    /// Sends the master's thread reports to their players' prints (world
    /// threads to the log); returns the message of thread `tid`'s report.
    fn route_reports(&mut self, tid: Option<u64>) -> Option<String> {
        let mut mine = None;
        for r in self.master.take_thread_reports() {
            if Some(r.thread) == tid && r.kind != ThreadReportKind::NoPredict {
                mine = Some(r.message);
                continue;
            }
            let live = r.actor.and_then(|a| self.players.get(&a)).and_then(|sid| {
                match &mut self.sessions.get_mut(sid)?.phase {
                    Phase::Live(l) => Some(l),
                    _ => None,
                }
            });
            match live {
                Some(l) => l.prints.push_str(&format!("error: {}\n", r.message)),
                None => tracing::warn!(thread = r.thread, message = %r.message, "thread failed"),
            }
        }
        mine
    }

    /// Runs the tick on `sid`'s synchronous model and queues its batch.
    fn send_batch(&mut self, sid: SessionId) {
        let every = self.cfg.check_every;
        let k = u64::from(self.cfg.frame_every.max(1));
        // Sessions take turns (staggered by session ID), so each tick
        // computes about 1/k of the frames.
        let framing = (self.stats.ticks + sid).checked_rem(k) == Some(0);
        let Some(Phase::Live(l)) = self.sessions.get_mut(&sid).map(|s| &mut s.phase) else {
            return;
        };
        l.sync.tick();
        for cmd in std::mem::take(&mut l.executed) {
            let _ = run_command(&mut l.sync, l.player, &cmd);
        }
        drain(&mut l.sync, l.player);
        let mut view = Vec::new();
        if framing {
            let t = match l.tx.frame(&mut self.master, &mut l.sync, None) {
                Ok(t) => t,
                Err(e) => {
                    tracing::error!(sid, error = %e, "difference transmission failed");
                    return self.close(sid, &format!("difference transmission failed: {e}"), true);
                }
            };
            for r in &t.reports {
                tracing::error!(sid, report = %r, "desync between the master and a ServerSync");
            }
            view = t.frame.encode();
        }
        drain(&mut l.sync, l.player);
        let mut prints = std::mem::take(&mut l.prints);
        prints.push_str(&self.master.take_prints(l.player));
        let acks = std::mem::take(&mut l.acks);
        l.acks_since_check += acks.len() as u32;
        let check = (every > 0 && l.acks_since_check >= every).then(|| {
            l.acks_since_check = 0;
            l.sync.state_hash()
        });
        let batch = Batch { tick: self.master.now(), acks, view, prints, check };
        self.push(sid, &Down::Batch(batch));
        if self.outbox_len(sid) > self.cfg.max_outbox {
            self.close(sid, "too far behind: the client does not read its batches", false);
        }
    }

    /// Forces a state check in every session's next batch (tests, soaks).
    pub fn check_next(&mut self) {
        let every = self.cfg.check_every.max(1);
        for s in self.sessions.values_mut() {
            if let Phase::Live(l) = &mut s.phase {
                l.acks_since_check = every;
            }
        }
    }
}

/// Empties a synchronous model's output buffers (not world state).
pub(crate) fn drain(w: &mut World, player: u64) {
    w.take_prints(player);
    w.take_output();
    w.take_thread_reports();
}
