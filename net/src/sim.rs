//! A deterministic in-process network: the cores with simulated latency.
//!
//! **Design.** [`SimNet`] owns a [`ServerCore`] and any number of
//! [`ClientCore`]s and moves their frames through a priority queue of
//! deliveries in simulated milliseconds. Each direction of each link is a
//! FIFO (TCP's ordering) with a latency drawn per message from
//! `[min, max]` by a seeded generator ([`Rng`]); the server ticks every
//! `1000 / tick_hz` simulated milliseconds. There are no sockets, threads
//! or wall clock, so a run is a function of its seed: the same scenario
//! runs in the same way on every machine, fast.
//!
//! [`SimNet::settle`] runs until nothing is in flight and nothing moves,
//! which is when the tests compare every client's view with the master's.
//! [`random_command`] is the scripted bot of the tests and benchmarks.
//!
//! **Invariants.** Frames of a link are delivered in the order they were
//! sent; events at the same millisecond are handled in the order they were
//! scheduled; the realtime answer is the simulated time.

use crate::client_core::ClientCore;
use crate::protocol::{Arg, Command};
use crate::server_core::{ServerCore, SessionId};
use crate::view;
use luprex_engine::World;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// xorshift64*: the simulation's and bots' generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// Latency and tick rate of a simulation.
#[derive(Clone, Copy, Debug)]
pub struct SimConfig {
    /// The generator's seed.
    pub seed: u64,
    /// Fewest milliseconds a frame takes.
    pub min_ms: u64,
    /// Most milliseconds a frame takes.
    pub max_ms: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { seed: 1, min_ms: 20, max_ms: 80 }
    }
}

enum Packet {
    Up(usize, Vec<u8>),
    Down(usize, Vec<u8>),
}

/// One simulated client.
pub struct SimClient {
    /// The client.
    pub core: ClientCore,
    /// Its session on the server.
    pub sid: SessionId,
    up_last: u64,
    down_last: u64,
    /// Whether its connection is open.
    pub connected: bool,
    /// The error that ended it, if any.
    pub error: Option<String>,
}

/// The simulated network (see the module docs).
pub struct SimNet {
    /// The server.
    pub server: ServerCore,
    /// The clients, by index.
    pub clients: Vec<SimClient>,
    cfg: SimConfig,
    rng: Rng,
    now: Rc<Cell<u64>>,
    next_tick: u64,
    tick_ms: u64,
    queue: BTreeMap<(u64, u64), Packet>,
    order: u64,
}

impl SimNet {
    /// A network around `server`.
    pub fn new(mut server: ServerCore, cfg: SimConfig) -> SimNet {
        let now = Rc::new(Cell::new(0u64));
        let clock = now.clone();
        server.set_realtime(Box::new(move || format!("sim+{}ms", clock.get())));
        let tick_ms = (1000 / server.config().tick_hz.max(1)) as u64;
        SimNet {
            server,
            clients: Vec::new(),
            rng: Rng::new(cfg.seed),
            cfg,
            now,
            next_tick: tick_ms,
            tick_ms,
            queue: BTreeMap::new(),
            order: 0,
        }
    }

    /// The simulated time, in milliseconds.
    pub fn now_ms(&self) -> u64 {
        self.now.get()
    }

    /// Connects a new client (its handshake leaves now).
    pub fn connect(&mut self, core: ClientCore) -> usize {
        let sid = self.server.open();
        self.clients.push(SimClient {
            core,
            sid,
            up_last: 0,
            down_last: 0,
            connected: true,
            error: None,
        });
        let i = self.clients.len() - 1;
        self.flush_client(i);
        i
    }

    /// Sends raw bytes from client `i` (garbage, for the bogus tests).
    pub fn send_raw(&mut self, i: usize, bytes: Vec<u8>) {
        self.schedule_up(i, bytes);
    }

    /// Issues `cmd` from client `i` (predicted now, sent now).
    pub fn command(&mut self, i: usize, cmd: Command) -> Option<u64> {
        let seq = self.clients[i].core.command(cmd).ok()?;
        self.flush_client(i);
        Some(seq)
    }

    /// Sends client `i`'s outbox.
    pub fn flush_client(&mut self, i: usize) {
        for b in self.clients[i].core.take_outbox() {
            self.schedule_up(i, b);
        }
    }

    fn latency(&mut self) -> u64 {
        self.cfg.min_ms + self.rng.below(self.cfg.max_ms - self.cfg.min_ms + 1)
    }

    fn schedule_up(&mut self, i: usize, b: Vec<u8>) {
        if !self.clients[i].connected {
            return;
        }
        let t = (self.now.get() + self.latency()).max(self.clients[i].up_last);
        self.clients[i].up_last = t;
        self.order += 1;
        self.queue.insert((t, self.order), Packet::Up(i, b));
    }

    fn schedule_down(&mut self, i: usize, b: Vec<u8>) {
        let t = (self.now.get() + self.latency()).max(self.clients[i].down_last);
        self.clients[i].down_last = t;
        self.order += 1;
        self.queue.insert((t, self.order), Packet::Down(i, b));
    }

    /// Moves every server outbox onto the links; closes closed sessions.
    fn flush_server(&mut self) {
        for i in 0..self.clients.len() {
            if !self.clients[i].connected {
                continue;
            }
            for b in self.server.take_outbox(self.clients[i].sid) {
                self.schedule_down(i, b);
            }
        }
        for (sid, _) in self.server.take_closed() {
            if let Some(c) = self.clients.iter_mut().find(|c| c.sid == sid) {
                c.connected = false;
            }
            self.server.disconnected(sid);
        }
    }

    /// Runs the network until simulated time `t`.
    pub fn run_until(&mut self, t: u64) {
        loop {
            let packet = self.queue.keys().next().map(|k| k.0);
            let next = packet.map_or(self.next_tick, |p| p.min(self.next_tick));
            if next > t {
                break;
            }
            self.now.set(next);
            if packet == Some(next) {
                let Some((_, p)) = self.queue.pop_first() else { break };
                self.deliver(p);
            } else {
                self.next_tick += self.tick_ms;
                self.server.tick();
                self.flush_server();
            }
        }
        self.now.set(t);
    }

    /// Runs for `ms` milliseconds.
    pub fn run_ms(&mut self, ms: u64) {
        self.run_until(self.now.get() + ms);
    }

    fn deliver(&mut self, p: Packet) {
        match p {
            Packet::Up(i, b) => {
                self.server.receive(self.clients[i].sid, &b);
                self.flush_server();
            }
            Packet::Down(i, b) => {
                let c = &mut self.clients[i];
                if c.error.is_none() {
                    if let Err(e) = c.core.receive(&b) {
                        c.error = Some(e.to_string());
                    }
                }
                self.flush_client(i);
            }
        }
    }

    /// Runs until nothing is in flight, no command is pending and nothing
    /// moves in the master (at most `max_ms`). Whether it settled.
    pub fn settle(&mut self, max_ms: u64) -> bool {
        let end = self.now.get() + max_ms;
        while self.now.get() < end {
            self.run_ms(self.tick_ms);
            let up = self.queue.values().any(|p| matches!(p, Packet::Up(..)));
            let quiet = !up && self.clients.iter().all(|c| !c.connected || c.core.pending() == 0);
            let still = self.server.master().tangibles().iter().all(|t| !t.queue.is_moving());
            if quiet && still {
                // One more tick so that the last state is in every view.
                self.run_ms(self.tick_ms * 2 + self.cfg.max_ms * 2);
                return true;
            }
        }
        false
    }

    /// Client `i`'s view and the master's within its radius, as
    /// [`view::summary`]s: equal when the client is up to date.
    pub fn views(&mut self, i: usize) -> (ViewMap, ViewMap) {
        let c = &mut self.clients[i].core;
        let (player, r) = (c.player(), c.radius());
        // The client keeps tangibles that left its radius (seed 000 deletes
        // only within the radius): compare within it on both sides.
        let w = c.view();
        let mine = match w.position(player) {
            Some(p) => view::summary(w, Some((p, r))),
            None => ViewMap::new(),
        };
        let master = self.server.master();
        let theirs = match master.position(player) {
            Some(p) => view::summary(master, Some((p, r))),
            None => ViewMap::new(),
        };
        (mine, theirs)
    }
}

/// A view summary: ID → (class, final position).
pub type ViewMap = BTreeMap<u64, (String, [f64; 3])>;

/// A random permitted command of the test worlds' bots: walk somewhere
/// near, push a rock in view, or say something.
pub fn random_command(rng: &mut Rng, view: &mut World, player: u64) -> Command {
    let roll = rng.below(10);
    if roll < 5 {
        let to = [rng.range(-30, 30) as f64, rng.range(-30, 30) as f64, 0.0];
        return Command::Walk { to };
    }
    if roll < 8 {
        let rocks: Vec<u64> = view::summary(view, None)
            .into_iter()
            .filter(|(_, (c, _))| c == "rock")
            .map(|(id, _)| id)
            .collect();
        if !rocks.is_empty() {
            let target = rocks[rng.below(rocks.len() as u64) as usize];
            let args = vec![Arg::Int(rng.range(-2, 2)), Arg::Int(rng.range(-2, 2))];
            return Command::Invoke { target, function: "push".into(), args };
        }
    }
    let args = vec![Arg::Str(format!("hello {}", rng.below(1000)))];
    Command::Invoke { target: player, function: "shout".into(), args }
}
