//! The tokio server: the tick thread, the accept loop, the connections.
//!
//! **Design.** A World is not `Send`, so every World of the server lives on
//! one OS thread, the *tick thread*, inside a [`ServerCore`]. The network
//! lives on a tokio runtime of its own (the *I/O runtime*): the accept
//! loop and two tasks per connection (a reader and a writer). They talk to
//! the tick thread through one bounded channel of [`Event`]s (the reader
//! waits when it is full: back-pressure on that client's socket, never on
//! the tick) and, downwards, one bounded channel of frames per connection
//! that the tick thread fills with `try_send`: a client whose channel is
//! full is *too far behind* and is disconnected with that reason. So the
//! tick never waits on a client.
//!
//! The tick thread runs ticks at the configured rate (a fixed schedule:
//! tick `n` is due at `start + n / tick_hz`; a late tick runs at once and
//! the schedule is kept, not shifted) and handles events between them.
//!
//! **Handshake.** A reader's first frame, if it is a `Hello`, has its
//! secret checked against the [`Registry`] on tokio's blocking pool (argon2
//! costs tens of milliseconds), then goes to the tick thread with the
//! result; anything else goes as a frame and the core closes the session
//! as bogus.
//!
//! **Limits.** At most [`NetConfig::max_connections`] connections (a
//! semaphore; one over the limit gets `Closing { "server full" }`), frames
//! up to [`protocol::MAX_UP_FRAME`], the core's per-session throttles.
//!
//! **Shutdown** ([`ServerHandle::shutdown`]): the accept loop stops, every
//! session is closed with the reason `server shutting down` (its writer
//! sends what is queued, then closes), the tick thread stops and returns
//! its [`ServerReport`].
//!
//! **Invariants.** Worlds never leave the tick thread; no channel into the
//! tick thread is unbounded; a connection's frames reach the core in the
//! order they arrived.

use crate::auth::Registry;
use crate::connection::{self, NetError};
use crate::protocol::{self, Down, Up};
use crate::server_core::{ServerConfig, ServerCore, SessionId};
use luprex_engine::World;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch, Semaphore};

/// Network limits of the TCP server.
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// Where to listen (port 0: any free port).
    pub bind: SocketAddr,
    /// Most simultaneous connections.
    pub max_connections: usize,
    /// Frames a connection's down channel holds (about
    /// `max_queued_down / tick_hz` seconds of batches).
    pub max_queued_down: usize,
    /// Events the tick thread's channel holds.
    pub event_queue: usize,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_connections: 1024,
            max_queued_down: 200,
            event_queue: 4096,
        }
    }
}

type Inspect = Box<dyn FnOnce(&mut ServerCore) + Send>;

/// What connections tell the tick thread.
enum Event {
    Open { down: mpsc::Sender<Vec<u8>>, reply: oneshot::Sender<SessionId> },
    Hello { sid: SessionId, hello: protocol::Hello, auth: Result<(), crate::AuthError> },
    Frame { sid: SessionId, bytes: Vec<u8> },
    Gone { sid: SessionId },
    Inspect(Inspect),
    Shutdown,
}

/// What the tick thread reports when it stops.
#[derive(Clone, Debug, Default)]
pub struct ServerReport {
    /// The core's counters.
    pub stats: crate::ServerStats,
    /// How long each tick took (the core's work, not the wait).
    pub tick_times: Vec<Duration>,
    /// The master's state hash at the end.
    pub master_hash: u128,
}

/// A running server.
pub struct ServerHandle {
    /// The address it listens on.
    pub addr: SocketAddr,
    events: mpsc::Sender<Event>,
    stop: watch::Sender<bool>,
    tick: Option<std::thread::JoinHandle<ServerReport>>,
    io: Option<std::thread::JoinHandle<()>>,
}

/// Starts a server: `master` makes the master World on the tick thread.
pub fn spawn(
    master: impl FnOnce() -> World + Send + 'static,
    cfg: ServerConfig,
    net: NetConfig,
    registry: Registry,
) -> std::io::Result<ServerHandle> {
    spawn_with(master, None, cfg, net, registry)
}

/// As [`spawn`], with a journal for a persistent master
/// ([`ServerCore::set_journal`]).
pub fn spawn_with(
    master: impl FnOnce() -> World + Send + 'static,
    journal: Option<crate::server_core::Journal>,
    cfg: ServerConfig,
    net: NetConfig,
    registry: Registry,
) -> std::io::Result<ServerHandle> {
    let std_listener = std::net::TcpListener::bind(net.bind)?;
    std_listener.set_nonblocking(true)?;
    let addr = std_listener.local_addr()?;
    let (ev_tx, ev_rx) = mpsc::channel(net.event_queue);
    let (stop_tx, stop_rx) = watch::channel(false);
    let reg = registry.clone();
    let tick = std::thread::Builder::new().name("luprex-tick".into()).spawn(move || {
        let mut core = ServerCore::new(master(), cfg, reg);
        if let Some(j) = journal {
            core.set_journal(j);
        }
        tick_thread(core, ev_rx)
    })?;
    let tx = ev_tx.clone();
    let io = std::thread::Builder::new().name("luprex-io".into()).spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => return tracing::error!(error = %e, "no I/O runtime"),
        };
        rt.block_on(async move {
            match TcpListener::from_std(std_listener) {
                Ok(l) => accept_loop(l, tx, net, registry, stop_rx).await,
                Err(e) => tracing::error!(error = %e, "listener"),
            }
        });
    })?;
    Ok(ServerHandle { addr, events: ev_tx, stop: stop_tx, tick: Some(tick), io: Some(io) })
}

impl ServerHandle {
    /// Runs `f` on the tick thread with the core (tests, tools) and returns
    /// its result.
    pub async fn with_core<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut ServerCore) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = oneshot::channel();
        let job: Inspect = Box::new(move |c| {
            let _ = tx.send(f(c));
        });
        self.events.send(Event::Inspect(job)).await.ok()?;
        rx.await.ok()
    }

    /// Stops the server gracefully (see the module docs) and returns the
    /// tick thread's report.
    pub fn shutdown(mut self) -> ServerReport {
        let _ = self.stop.send(true);
        while let Err(mpsc::error::TrySendError::Full(_)) = self.events.try_send(Event::Shutdown) {
            std::thread::sleep(Duration::from_millis(1));
        }
        if let Some(io) = self.io.take() {
            let _ = io.join();
        }
        self.tick.take().and_then(|t| t.join().ok()).unwrap_or_default()
    }
}

/// The accept loop: one reader and one writer task per connection, at
/// most `max_connections` at once, until `stop`.
async fn accept_loop(
    listener: TcpListener,
    events: mpsc::Sender<Event>,
    net: NetConfig,
    registry: Registry,
    mut stop: watch::Receiver<bool>,
) {
    let limit = Arc::new(Semaphore::new(net.max_connections));
    let mut conns = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, peer)) => {
                    tracing::info!(%peer, "connection");
                    s
                }
                Err(e) => { tracing::warn!(error = %e, "accept"); continue; }
            },
            _ = stop.changed() => break,
        };
        let Ok(permit) = limit.clone().try_acquire_owned() else {
            tracing::warn!("connection refused: server full");
            conns.spawn(refuse(stream, "server full"));
            continue;
        };
        let (ev, reg, q) = (events.clone(), registry.clone(), net.max_queued_down);
        conns.spawn(async move {
            if let Err(e) = serve(stream, ev, reg, q).await {
                tracing::debug!(error = %e, "connection ended");
            }
            drop(permit);
        });
    }
    // Let the writers send their closing frames (the tick thread closes
    // every session on shutdown).
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while conns.join_next().await.is_some() {}
    })
    .await;
}

async fn refuse(stream: TcpStream, reason: &str) {
    let (_, mut w) = connection::split(stream, protocol::MAX_UP_FRAME);
    let _ = w.send(protocol::encode(&Down::Closing { reason: reason.into() })).await;
}

/// One connection: registers with the tick thread, then reads frames into
/// events while a writer task drains the down channel.
async fn serve(
    stream: TcpStream,
    events: mpsc::Sender<Event>,
    registry: Registry,
    queue: usize,
) -> Result<(), NetError> {
    let (mut reader, mut writer) = connection::split(stream, protocol::MAX_UP_FRAME);
    let (down_tx, mut down_rx) = mpsc::channel::<Vec<u8>>(queue);
    let (reply_tx, reply_rx) = oneshot::channel();
    let gone = |_| NetError::Eof;
    events.send(Event::Open { down: down_tx, reply: reply_tx }).await.map_err(gone)?;
    let sid = reply_rx.await.map_err(|_| NetError::Eof)?;
    let write = tokio::spawn(async move {
        while let Some(b) = down_rx.recv().await {
            writer.feed(b).await?;
            while let Ok(b) = down_rx.try_recv() {
                writer.feed(b).await?;
            }
            writer.flush().await?;
        }
        Ok::<(), NetError>(())
    });
    let r = read_loop(sid, &mut reader, &events, registry).await;
    if let Err(NetError::Oversized(max)) = &r {
        // A bogus frame: let the core close the session with the reason.
        let bytes = vec![0; max + 1];
        let _ = events.send(Event::Frame { sid, bytes }).await;
    }
    let _ = events.send(Event::Gone { sid }).await;
    let _ = tokio::time::timeout(Duration::from_secs(2), write).await;
    r
}

async fn read_loop(
    sid: SessionId,
    reader: &mut connection::FrameReader,
    events: &mpsc::Sender<Event>,
    registry: Registry,
) -> Result<(), NetError> {
    let first = reader.read().await?;
    match protocol::decode_up(&first) {
        Ok(Up::Hello(hello)) => {
            let (name, secret) = (hello.name.clone(), hello.secret.clone());
            let auth = tokio::task::spawn_blocking(move || {
                registry.check_or_register(&name, &secret).map(|_| ())
            })
            .await
            .unwrap_or(Err(crate::AuthError::Hash("verification task failed".into())));
            events.send(Event::Hello { sid, hello, auth }).await.map_err(|_| NetError::Eof)?;
        }
        _ => {
            let bytes = first.to_vec();
            events.send(Event::Frame { sid, bytes }).await.map_err(|_| NetError::Eof)?;
        }
    }
    loop {
        let bytes = reader.read().await?.to_vec();
        events.send(Event::Frame { sid, bytes }).await.map_err(|_| NetError::Eof)?;
    }
}

/// The tick thread's loop (see the module docs).
fn tick_thread(mut core: ServerCore, mut events: mpsc::Receiver<Event>) -> ServerReport {
    core.set_realtime(Box::new(utc_now));
    let rt = match tokio::runtime::Builder::new_current_thread().enable_time().build() {
        Ok(rt) => rt,
        Err(_) => return ServerReport::default(),
    };
    let period = Duration::from_secs_f64(1.0 / core.config().tick_hz.max(1) as f64);
    let mut downs: BTreeMap<SessionId, mpsc::Sender<Vec<u8>>> = BTreeMap::new();
    let mut report = ServerReport::default();
    let start = Instant::now();
    let mut n: u32 = 1;
    'run: loop {
        let due = start + period * n;
        while let Some(left) = due.checked_duration_since(Instant::now()) {
            let ev = match rt.block_on(async { tokio::time::timeout(left, events.recv()).await }) {
                Ok(Some(ev)) => ev,
                Ok(None) => break 'run,
                Err(_) => break,
            };
            if !handle(&mut core, &mut downs, ev) {
                break 'run;
            }
            flush(&mut core, &mut downs);
        }
        if core.storage_failed().is_some() {
            break 'run;
        }
        let t0 = Instant::now();
        core.tick();
        flush(&mut core, &mut downs);
        let took = t0.elapsed();
        if took > period {
            tracing::warn!(tick = n, ms = took.as_secs_f64() * 1e3, "tick overrun");
        }
        report.tick_times.push(took);
        n += 1;
    }
    for (sid, _, _) in core.live() {
        core.close(sid, "server shutting down", false);
    }
    flush(&mut core, &mut downs);
    report.stats = core.stats().clone();
    report.master_hash = core.master().state_hash();
    report
}

/// Handles one event; false on shutdown.
fn handle(
    core: &mut ServerCore,
    downs: &mut BTreeMap<SessionId, mpsc::Sender<Vec<u8>>>,
    ev: Event,
) -> bool {
    match ev {
        Event::Open { down, reply } => {
            let sid = core.open();
            downs.insert(sid, down);
            if reply.send(sid).is_err() {
                core.disconnected(sid);
                downs.remove(&sid);
            }
        }
        Event::Hello { sid, hello, auth } => core.join(sid, hello, auth),
        Event::Frame { sid, bytes } => core.receive(sid, &bytes),
        Event::Gone { sid } => {
            core.disconnected(sid);
            downs.remove(&sid);
        }
        Event::Inspect(f) => f(core),
        Event::Shutdown => return false,
    }
    true
}

/// Moves every outbox into its connection's channel; a full channel
/// closes that session (too far behind); closed sessions lose their
/// channel after their last frame.
fn flush(core: &mut ServerCore, downs: &mut BTreeMap<SessionId, mpsc::Sender<Vec<u8>>>) {
    // The journal first: nothing leaves before the events behind it are
    // durable (a persistent master; see `ServerCore::persist`).
    if let Err(e) = core.persist() {
        tracing::error!(error = %e, "the journal failed: the server stops sending and shuts down");
        return;
    }
    let mut behind = Vec::new();
    for (&sid, tx) in downs.iter() {
        for b in core.take_outbox(sid) {
            if tx.try_send(b).is_err() {
                behind.push(sid);
                break;
            }
        }
    }
    for sid in behind {
        core.close(sid, "too far behind: the client does not read", false);
        let _ = core.take_outbox(sid);
        downs.remove(&sid);
        core.disconnected(sid);
    }
    for (sid, _) in core.take_closed() {
        // The Closing frame is in the channel; dropping the sender lets the
        // writer send it and end.
        downs.remove(&sid);
        core.disconnected(sid);
    }
}

/// The real UTC time, ISO 8601 (for `realtime`).
pub fn utc_now() -> String {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}
