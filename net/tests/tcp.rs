//! The protocol over loopback TCP, through a proxy that adds latency and
//! jitter: scripted bots, convergence, bogus clients, refusals, shutdown.

use luprex_engine::{Model, World};
use luprex_net::client::Client;
use luprex_net::server::{self, NetConfig, ServerHandle};
use luprex_net::sim::{random_command, Rng, ViewMap};
use luprex_net::{view, ClientCore, HashCost, Registry, ServerConfig};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

fn arena() -> World {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/worlds/arena");
    World::from_dir(Model::Master, dir).unwrap()
}

fn start(cfg: ServerConfig, net: NetConfig) -> ServerHandle {
    server::spawn(arena, cfg, net, Registry::new(HashCost::test())).unwrap()
}

/// A TCP proxy to `upstream` that delays every chunk by `base` plus up to
/// `jitter` milliseconds (seeded), keeping each direction in order.
async fn proxy(upstream: SocketAddr, base: u64, jitter: u64, seed: u64) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::task::spawn_local(async move {
        let mut n = 0;
        while let Ok((down, _)) = l.accept().await {
            n += 1;
            let Ok(up) = TcpStream::connect(upstream).await else { continue };
            let (dr, dw) = down.into_split();
            let (ur, uw) = up.into_split();
            tokio::task::spawn_local(pipe(dr, uw, base, jitter, seed * 1000 + n * 2));
            tokio::task::spawn_local(pipe(ur, dw, base, jitter, seed * 1000 + n * 2 + 1));
        }
    });
    addr
}

async fn pipe<R, W>(mut r: R, mut w: W, base: u64, jitter: u64, seed: u64)
where
    R: AsyncReadExt + Unpin + 'static,
    W: AsyncWriteExt + Unpin + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    tokio::task::spawn_local(async move {
        while let Some((due, b)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if w.write_all(&b).await.is_err() {
                return;
            }
        }
        let _ = w.shutdown().await;
    });
    let mut rng = Rng::new(seed);
    let mut last = Instant::now();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let due = Instant::now() + Duration::from_millis(base + rng.below(jitter + 1));
        last = last.max(due);
        if tx.send((last, buf[..n].to_vec())).is_err() {
            return;
        }
    }
}

async fn connect(addr: SocketAddr, name: &str, secret: &str) -> Result<Client, String> {
    let core = ClientCore::new(name, secret, Vec::new()).unwrap();
    Client::connect(addr, core, Duration::from_secs(10)).await.map_err(|e| e.to_string())
}

async fn master_view(h: &ServerHandle, player: u64, r: f64) -> ViewMap {
    h.with_core(move |c| {
        let m = c.master();
        m.position(player).map(|p| view::summary(m, Some((p, r)))).unwrap_or_default()
    })
    .await
    .unwrap()
}

async fn pump_all(clients: &mut [Client], d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        for c in clients.iter_mut() {
            if c.core().is_live() {
                let _ = c.pump(Duration::from_millis(2)).await;
            }
        }
    }
}

/// Waits until no command is pending and nothing moves in the master,
/// then compares every view with the master's and forces a state check.
async fn assert_converged(h: &ServerHandle, clients: &mut [Client]) {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        pump_all(clients, Duration::from_millis(200)).await;
        let pending: usize = clients.iter_mut().map(|c| c.core().pending()).sum();
        let moving = h
            .with_core(|c| c.master().tangibles().iter().any(|t| t.queue.is_moving()))
            .await
            .unwrap();
        if pending == 0 && !moving {
            break;
        }
        assert!(Instant::now() < end, "did not settle");
    }
    pump_all(clients, Duration::from_millis(400)).await;
    for (i, c) in clients.iter_mut().enumerate() {
        let (player, r) = (c.core().player(), c.core().radius());
        let w = c.core().view();
        let at = w.position(player).unwrap();
        let mine = view::summary(w, Some((at, r)));
        let theirs = master_view(h, player, r).await;
        assert!(!theirs.is_empty());
        assert_eq!(mine, theirs, "client {i}'s view differs from the master's");
    }
    let before: Vec<u64> = clients.iter_mut().map(|c| c.core().stats().checks).collect();
    h.with_core(|c| c.check_next()).await.unwrap();
    pump_all(clients, Duration::from_millis(400)).await;
    for (i, c) in clients.iter_mut().enumerate() {
        let s = c.core().stats().clone();
        assert!(s.checks > before[i], "client {i} got no state check");
        assert_eq!(s.desyncs, 0, "client {i} desynced");
    }
}

async fn bots(clients: &mut [Client], total: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sent = 0;
    while sent < total {
        for c in clients.iter_mut() {
            if rng.below(4) == 0 && sent < total {
                let player = c.core().player();
                let cmd = random_command(&mut rng, c.core().view(), player);
                c.command(cmd).await.unwrap();
                sent += 1;
            }
            let _ = c.pump(Duration::from_millis(1)).await;
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn fifty_bots_through_a_jittery_proxy_while_one_sends_garbage() {
    tokio::task::LocalSet::new()
        .run_until(async {
            let cfg = ServerConfig { check_every: 4, ..Default::default() };
            let h = start(cfg, NetConfig::default());
            let addr = proxy(h.addr, 10, 40, 1).await;
            let mut clients = Vec::new();
            for i in 0..50 {
                clients.push(connect(addr, &format!("bot{i}"), "pw").await.unwrap());
            }
            let mut rogue = connect(addr, "rogue", "pw").await.unwrap();
            bots(&mut clients[..25], 150, 1).await;
            rogue.send_raw(vec![0xde, 0xad, 0xbe, 0xef]).await.unwrap();
            bots(&mut clients, 350, 2).await;
            let _ = rogue.pump(Duration::from_millis(500)).await;
            let why = rogue.core().closed().unwrap_or("").to_owned();
            assert!(why.contains("malformed"), "rogue: {why}");
            assert_converged(&h, &mut clients).await;
            let acks: u64 = clients.iter_mut().map(|c| c.core().stats().acks).sum();
            assert_eq!(acks, 500);
            let report = tokio::task::spawn_blocking(move || h.shutdown()).await.unwrap();
            assert_eq!(report.stats.bogus, 1);
            assert_eq!(report.stats.commands, 500);
        })
        .await;
}

#[tokio::test(flavor = "current_thread")]
async fn refusals_limits_and_shutdown() {
    tokio::task::LocalSet::new()
        .run_until(async {
            let net = NetConfig { max_connections: 3, ..Default::default() };
            let h = start(ServerConfig::default(), net);
            let mut a = connect(h.addr, "ann", "secret").await.unwrap();
            // wrong secret
            let e = connect(h.addr, "ann", "guess").await.err().unwrap();
            assert!(e.contains("wrong secret"), "{e}");
            // oversized frame: closed with the reason
            let mut b = connect(h.addr, "bob", "pw").await.unwrap();
            b.send_raw(vec![0; luprex_net::protocol::MAX_UP_FRAME + 10]).await.unwrap();
            let _ = b.pump(Duration::from_millis(500)).await;
            assert!(b.core().closed().unwrap_or("").contains("oversized"));
            // the limit: ann + two more
            let _c = connect(h.addr, "cy", "pw").await.unwrap();
            let _d = connect(h.addr, "dee", "pw").await.unwrap();
            let e = connect(h.addr, "eve", "pw").await.err().unwrap();
            assert!(e.contains("server full"), "{e}");
            // ann is fine throughout
            let seq = a.command(luprex_net::Command::Walk { to: [2.0, 2.0, 0.0] }).await.unwrap();
            a.pump(Duration::from_millis(500)).await.unwrap();
            assert_eq!(seq, 1);
            assert_eq!(a.core().pending(), 0);
            let report = tokio::task::spawn_blocking(move || h.shutdown()).await.unwrap();
            let _ = a.pump(Duration::from_millis(500)).await;
            assert!(a.core().closed().unwrap_or("").contains("shutting down"));
            assert!(!report.tick_times.is_empty());
        })
        .await;
}
