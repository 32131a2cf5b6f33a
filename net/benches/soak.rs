//! Server soak benchmark (a bench binary, not criterion: it reports tick
//! percentiles, not one mean). `cargo bench -p luprex-net --bench soak`
//! (`-- quick` for a short run). Figures go to `benches/RESULTS.md`.
//!
//! * Server CPU: a `ServerCore` (no sockets) with the arena world plus
//!   10,000 rocks spread over 1000 x 1000 units, N players spread over the
//!   same area, each issuing a walk near its spot with probability 1/4 a
//!   tick (5 commands a second). Every tick is timed (the whole
//!   `ServerCore::tick`: master, commands, every synchronous model, every
//!   view frame); the down bytes are counted.
//! * Command latency over loopback TCP (one client): the time a command
//!   takes to be predicted (`Client::command` returns with the prediction
//!   applied) and to be acknowledged.

use luprex_engine::{Model, World};
use luprex_net::client::Client;
use luprex_net::protocol::{encode, Command, Hello, Up, PROTOCOL_VERSION};
use luprex_net::server::{self, NetConfig};
use luprex_net::sim::Rng;
use luprex_net::{ClientCore, ClientEvent, HashCost, Registry, ServerConfig, ServerCore};
use std::time::{Duration, Instant};

fn world() -> World {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/worlds/arena");
    let mut w = World::from_dir(Model::Master, dir).unwrap();
    let mut rng = Rng::new(42);
    for _ in 0..10_000 {
        let p = [rng.range(-500, 500) as f64, rng.range(-500, 500) as f64, 0.0];
        w.new_tangible("rock", p).unwrap();
    }
    w
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn server_cpu(n: usize, ticks: usize, frame_every: u32) -> (f64, f64, f64, f64) {
    let cfg = ServerConfig { check_every: 16, frame_every, ..Default::default() };
    let mut core = ServerCore::new(world(), cfg, Registry::new(HashCost::test()));
    let mut rng = Rng::new(n as u64);
    let mut players = Vec::new();
    for i in 0..n {
        let sid = core.open();
        let h = Hello {
            version: PROTOCOL_VERSION,
            name: format!("p{i}"),
            secret: "pw".into(),
            sources: 0,
        };
        core.receive(sid, &encode(&Up::Hello(h)));
        let (_, _, pid) = core.live().into_iter().find(|l| l.0 == sid).unwrap();
        let spot = [rng.range(-480, 480) as f64, rng.range(-480, 480) as f64, 0.0];
        core.master().move_to(pid, spot, 0).unwrap();
        players.push((sid, spot, 0u64));
    }
    // warm up: every late join's first frame
    for _ in 0..5 {
        core.tick();
        for (sid, ..) in &players {
            core.take_outbox(*sid);
        }
    }
    let b0 = core.stats().bytes_down;
    let mut times = Vec::new();
    for _ in 0..ticks {
        for (sid, spot, seq) in players.iter_mut() {
            if rng.below(4) == 0 {
                *seq += 1;
                let to =
                    [spot[0] + rng.range(-20, 20) as f64, spot[1] + rng.range(-20, 20) as f64, 0.0];
                core.receive(*sid, &encode(&Up::Command { seq: *seq, cmd: Command::Walk { to } }));
            }
        }
        let t = Instant::now();
        core.tick();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        for (sid, ..) in &players {
            core.take_outbox(*sid);
        }
    }
    assert_eq!(core.live().len(), n, "a session was closed");
    let bytes = (core.stats().bytes_down - b0) as f64;
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let bps = bytes / n as f64 / (ticks as f64 / 20.0);
    (pct(&mut times, 0.5), pct(&mut times, 0.99), mean * 1e3 / n as f64, bps)
}

fn latency(cmds: usize) -> (f64, f64, f64, f64) {
    let h = server::spawn(
        world,
        ServerConfig::default(),
        NetConfig::default(),
        Registry::new(HashCost::test()),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (mut pred, mut ack) = (Vec::new(), Vec::new());
    rt.block_on(async {
        let core = ClientCore::new("lat", "pw", Vec::new()).unwrap();
        let mut c = Client::connect(h.addr, core, Duration::from_secs(30)).await.unwrap();
        let mut rng = Rng::new(5);
        c.pump(Duration::from_millis(200)).await.unwrap();
        for _ in 0..cmds {
            let to = [rng.range(-20, 20) as f64, rng.range(-20, 20) as f64, 0.0];
            let t = Instant::now();
            let seq = c.command(Command::Walk { to }).await.unwrap();
            pred.push(t.elapsed().as_secs_f64() * 1e3);
            c.core().take_events();
            'wait: loop {
                c.pump(Duration::from_micros(200)).await.unwrap();
                for e in c.core().take_events() {
                    if matches!(e, ClientEvent::Acked { seq: s, .. } if s == seq) {
                        break 'wait;
                    }
                }
            }
            ack.push(t.elapsed().as_secs_f64() * 1e3);
            c.pump(Duration::from_millis(rng.below(50))).await.unwrap();
        }
    });
    h.shutdown();
    (pct(&mut pred, 0.5), pct(&mut pred, 0.99), pct(&mut ack, 0.5), pct(&mut ack, 0.99))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "quick");
    let ticks = if quick { 40 } else { 200 };
    // `n=200` runs one size only; `nolat` skips the TCP latency part.
    let sizes: Vec<usize> = match args.iter().find_map(|a| a.strip_prefix("n=")) {
        Some(n) => vec![n.parse().unwrap_or(200)],
        None => vec![25, 50, 100, 200, 300],
    };
    // `f=2`: a view frame every 2 ticks.
    let every = args.iter().find_map(|a| a.strip_prefix("f=")).and_then(|f| f.parse().ok());
    println!("frame_every  clients  tick_p50_ms  tick_p99_ms  cpu_us_per_client_tick  bytes_per_client_s");
    for f in every.map_or(vec![1, 2], |f| vec![f]) {
        for &n in &sizes {
            let (p50, p99, cpu, bps) = server_cpu(n, ticks, f);
            println!("{f:11}  {n:7}  {p50:11.2}  {p99:11.2}  {cpu:22.1}  {bps:18.0}");
        }
    }
    if args.iter().any(|a| a == "nolat") {
        return;
    }
    let (pp50, pp99, a50, a99) = latency(if quick { 20 } else { 100 });
    println!("predict: p50 {pp50:.3} ms  p99 {pp99:.3} ms (applied before command() returns: the same tick)");
    println!("ack (loopback, 20 Hz): p50 {a50:.1} ms  p99 {a99:.1} ms");
}
