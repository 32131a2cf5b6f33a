//! The protocol in the deterministic in-process network (`sim.rs`): bots,
//! convergence, desyncs, impossible and bogus messages, sessions.

use luprex_engine::{Model, World};
use luprex_net::protocol::{encode, Hello, Up, PROTOCOL_VERSION};
use luprex_net::sim::{random_command, Rng, SimConfig, SimNet};
use luprex_net::{
    Arg, ClientCore, ClientEvent, Command, HashCost, Outcome, Registry, ServerConfig, ServerCore,
};

fn arena() -> World {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/worlds/arena");
    let mut w = World::from_dir(Model::Master, dir).unwrap();
    assert!(w.take_reports().is_empty());
    w
}

fn net(cfg: ServerConfig, seed: u64) -> SimNet {
    net_with(cfg, SimConfig { seed, min_ms: 20, max_ms: 120 })
}

fn net_with(cfg: ServerConfig, sim: SimConfig) -> SimNet {
    let server = ServerCore::new(arena(), cfg, Registry::new(HashCost::test()));
    SimNet::new(server, sim)
}

fn join(net: &mut SimNet, name: &str) -> usize {
    let i = net.connect(ClientCore::new(name, "pw", Vec::new()).unwrap());
    net.run_ms(400);
    assert!(net.clients[i].core.is_live(), "{name}: {:?}", net.clients[i].error);
    i
}

fn assert_converged(net: &mut SimNet) {
    assert!(net.settle(60_000), "traffic did not settle");
    for i in 0..net.clients.len() {
        if !net.clients[i].connected {
            continue;
        }
        let (mine, master) = net.views(i);
        assert!(!master.is_empty());
        assert_eq!(mine, master, "client {i}'s view differs from the master's");
    }
    // the twins compare their hashes in the next batch
    let before: Vec<u64> = net.clients.iter().map(|c| c.core.stats().checks).collect();
    net.server.check_next();
    net.run_ms(500);
    for (i, c) in net.clients.iter().enumerate() {
        if c.connected {
            assert!(c.core.stats().checks > before[i], "client {i} got no check");
            assert_eq!(c.core.stats().desyncs, 0, "client {i} desynced");
        }
    }
}

/// Bots issue `total` random permitted commands; every ack is checked.
fn bots(net: &mut SimNet, clients: &[usize], total: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sent = 0;
    while sent < total {
        for &i in clients {
            if rng.below(3) == 0 && sent < total {
                let c = &mut net.clients[i].core;
                let player = c.player();
                let cmd = random_command(&mut rng, c.view(), player);
                net.command(i, cmd).expect("live");
                sent += 1;
            }
        }
        net.run_ms(rng.below(30) + 1);
    }
}

#[test]
fn ten_thousand_commands_no_desync() {
    let cfg = ServerConfig { check_every: 1, max_queued_commands: 1000, ..Default::default() };
    let mut net = net(cfg, 7);
    let names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"];
    let clients: Vec<usize> = names.iter().map(|n| join(&mut net, n)).collect();
    bots(&mut net, &clients, 10_000, 99);
    assert_converged(&mut net);
    let mut acks = 0;
    for &i in &clients {
        let s = net.clients[i].core.stats().clone();
        assert_eq!(s.desyncs, 0);
        assert!(s.checks > 0);
        assert!(net.clients[i].error.is_none());
        acks += s.acks;
    }
    assert_eq!(acks, 10_000);
    assert_eq!(net.server.stats().commands, 10_000);
}

#[test]
fn frames_every_third_tick_converge_too() {
    let cfg = ServerConfig { check_every: 2, frame_every: 3, ..Default::default() };
    let mut net = net(cfg, 12);
    let clients: Vec<usize> = ["ann", "bob", "cy"].iter().map(|n| join(&mut net, n)).collect();
    bots(&mut net, &clients, 600, 13);
    assert_converged(&mut net);
    let acks: u64 = clients.iter().map(|&i| net.clients[i].core.stats().acks).sum();
    assert_eq!(acks, 600);
}

#[test]
fn same_seed_same_run() {
    let run = |seed| {
        let mut net = net(ServerConfig::default(), seed);
        let a = join(&mut net, "ann");
        let b = join(&mut net, "bob");
        bots(&mut net, &[a, b], 300, seed);
        net.settle(30_000);
        let h = net.server.master().state_hash();
        (h, net.clients[a].core.stats().clone(), net.server.stats().bytes_down)
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3).0, run(4).0);
}

#[test]
fn impossible_commands_fail_and_the_session_goes_on() {
    let mut net = net(ServerConfig::default(), 1);
    let a = join(&mut net, "ann");
    let me = net.clients[a].core.player();
    let rock = net.server.master().scan_radius([-16.0, -4.0, 0.0], 0.5)[0];
    let inv = |target, f: &str, args| Command::Invoke { target, function: f.into(), args };
    let boom = net.command(a, inv(me, "boom", vec![])).unwrap();
    let cheat = net.command(a, inv(me, "cheat", vec![])).unwrap();
    let gone = net.command(a, inv(rock, "vanish", vec![])).unwrap();
    let after = net.command(a, inv(rock, "push", vec![Arg::Int(1), Arg::Int(0)])).unwrap();
    let nobody = net.command(a, inv(999_999, "push", vec![])).unwrap();
    let fine = net.command(a, Command::Walk { to: [3.0, 4.0, 0.0] }).unwrap();
    net.run_ms(1000);
    let acks: Vec<(u64, Outcome)> = net.clients[a]
        .core
        .take_events()
        .into_iter()
        .filter_map(|e| match e {
            ClientEvent::Acked { seq, outcome } => Some((seq, outcome)),
            _ => None,
        })
        .collect();
    let get = |s| acks.iter().find(|(q, _)| *q == s).map(|(_, o)| o.clone()).unwrap();
    assert!(matches!(get(boom), Outcome::Failed(m) if m.contains("boom")));
    assert!(matches!(get(cheat), Outcome::Failed(m) if m.contains("permit_invoke")));
    assert_eq!(get(gone), Outcome::Executed);
    assert!(matches!(get(after), Outcome::Failed(m) if m.contains("no tangible")));
    assert!(matches!(get(nobody), Outcome::Failed(m) if m.contains("invoke refused")));
    assert_eq!(get(fine), Outcome::Executed);
    assert!(net.clients[a].core.is_live());
    assert_converged(&mut net);
    assert_eq!(net.server.master().position(me), Some([3.0, 4.0, 0.0]));
}

#[test]
fn prints_come_from_the_master() {
    let mut net = net(ServerConfig::default(), 2);
    let a = join(&mut net, "ann");
    let me = net.clients[a].core.player();
    let f = |s: &str| Command::Invoke { target: me, function: s.into(), args: vec![] };
    net.command(
        a,
        Command::Invoke {
            target: me,
            function: "shout".into(),
            args: vec![Arg::Str("hi there".into())],
        },
    );
    net.command(a, f("clock"));
    net.command(a, f("boom"));
    net.run_ms(1000);
    let p = net.clients[a].core.take_prints();
    assert!(p.contains("welcome ann"), "{p}");
    assert!(p.contains("hi there"), "{p}");
    assert!(p.contains("sim+"), "realtime is answered by the server: {p}");
    assert_eq!(p.matches("hi there").count(), 1, "predicted prints are not shown: {p}");
}

#[test]
fn scheduled_threads_run_in_every_model() {
    let cfg = ServerConfig { check_every: 1, ..Default::default() };
    let mut net = net(cfg, 5);
    let a = join(&mut net, "ann");
    let me = net.clients[a].core.player();
    let x0 = net.server.master().position(me).unwrap()[0];
    net.command(a, Command::Invoke { target: me, function: "nap".into(), args: vec![Arg::Int(5)] });
    assert_converged(&mut net);
    assert_eq!(net.server.master().position(me).unwrap()[0], x0 + 1.0);
    assert_eq!(net.clients[a].core.stats().desyncs, 0);
}

fn bogus_case(bytes: Vec<u8>, reason: &str) {
    let mut net = net(ServerConfig::default(), 11);
    let good = join(&mut net, "good");
    let bad = join(&mut net, "bad");
    net.send_raw(bad, bytes);
    bots(&mut net, &[good], 50, 5);
    net.run_ms(1000);
    let err = net.clients[bad].error.clone().unwrap_or_default();
    assert!(!net.clients[bad].connected, "{reason}: still connected");
    assert!(err.contains(reason), "expected '{reason}' in '{err}'");
    assert!(net.server.stats().bogus >= 1);
    assert!(net.clients[good].core.is_live());
    assert_converged(&mut net);
}

#[test]
fn garbage_closes_only_that_connection() {
    bogus_case(vec![0xde, 0xad, 0xbe, 0xef, 0x01], "malformed");
}

#[test]
fn unknown_kind_is_bogus() {
    bogus_case(vec![9, 0, 0], "malformed");
}

#[test]
fn second_hello_is_bogus() {
    let h = Hello { version: PROTOCOL_VERSION, name: "x".into(), secret: "y".into(), sources: 0 };
    bogus_case(encode(&Up::Hello(h)), "second handshake");
}

#[test]
fn oversized_frame_is_bogus() {
    bogus_case(vec![0; luprex_net::protocol::MAX_UP_FRAME + 1], "oversized");
}

#[test]
fn sequence_must_increase() {
    let up = Up::Command { seq: 0, cmd: Command::Walk { to: [0.0; 3] } };
    bogus_case(encode(&up), "sequence number");
}

#[test]
fn wrong_version_refused() {
    let mut core =
        ServerCore::new(arena(), ServerConfig::default(), Registry::new(HashCost::test()));
    let sid = core.open();
    let h = Hello { version: 999, name: "x".into(), secret: "pw".into(), sources: 0 };
    core.receive(sid, &encode(&Up::Hello(h)));
    let closed = core.take_closed();
    assert!(closed[0].1.contains("protocol version 999"), "{closed:?}");
    let sid = core.open();
    let up = Up::Command { seq: 1, cmd: Command::Walk { to: [0.0; 3] } };
    core.receive(sid, &encode(&up));
    let closed = core.take_closed();
    assert!(closed[0].1.contains("before the handshake"), "{closed:?}");
    assert_eq!(core.stats().bogus, 2);
}

#[test]
fn wrong_secret_refused_right_secret_resumes() {
    let mut net = net(ServerConfig::default(), 4);
    let a = join(&mut net, "ann");
    let me = net.clients[a].core.player();
    net.command(a, Command::Walk { to: [7.0, 7.0, 0.0] });
    assert_converged(&mut net);
    let stored = net.server.registry().stored("ann").unwrap();
    // A PHC string ($argon2id$v=..$m=..,t=..,p=..$salt$hash), no field of
    // which is the secret. (Not `!contains("pw")`: a random base64 salt or
    // hash holds "pw" now and then.)
    let fields: Vec<&str> = stored.split('$').collect();
    assert!(stored.starts_with("$argon2id$") && fields.len() == 6, "{stored}");
    assert!(!fields.contains(&"pw") && fields[4].len() >= 16, "{stored}");
    // a thief
    let t = net.connect(ClientCore::new("ann", "guess", Vec::new()).unwrap());
    net.run_ms(500);
    let err = net.clients[t].error.clone().unwrap();
    assert!(err.contains("wrong secret"), "{err}");
    assert!(net.clients[a].core.is_live(), "the real player is not disturbed");
    // the real player comes back on a new connection, with its sources
    let cache = net.clients[a].core.sources();
    let b = net.connect(ClientCore::new("ann", "pw", cache).unwrap());
    net.run_ms(500);
    assert!(net.clients[b].core.is_live());
    assert_eq!(net.clients[b].core.player(), me);
    assert!(net.clients[a].error.as_deref().unwrap_or("").contains("replaced"));
    assert_converged(&mut net);
    let (mine, _) = net.views(b);
    assert_eq!(mine[&me].1, [7.0, 7.0, 0.0]);
}

#[test]
fn late_join_sees_the_world() {
    let mut net = net(ServerConfig::default(), 6);
    let a = join(&mut net, "ann");
    bots(&mut net, &[a], 200, 8);
    let b = join(&mut net, "zed");
    let hz = ServerConfig::default().tick_hz;
    assert_eq!(net.clients[b].core.tick_hz(), hz, "the welcome's tick rate");
    bots(&mut net, &[a, b], 200, 9);
    assert_converged(&mut net);
    let (mine, _) = net.views(b);
    assert!(mine.values().any(|(c, _)| c == "rock"));
}

#[test]
fn flooding_is_throttled() {
    let mut net = net(ServerConfig::default(), 2);
    let a = join(&mut net, "ann");
    let b = join(&mut net, "bob");
    for k in 0..300 {
        net.command(a, Command::Walk { to: [(k % 20) as f64, 0.0, 0.0] });
    }
    net.command(b, Command::Walk { to: [1.0, 2.0, 0.0] });
    net.run_ms(300);
    // bob's command is not stuck behind the flood
    assert_eq!(net.clients[b].core.pending(), 0);
    assert_converged(&mut net);
    let s = net.clients[a].core.stats().clone();
    assert_eq!(s.acks, 300);
    assert!(s.failed >= 300 - 64 - 8, "{s:?}");
    assert!(net.clients[a].core.is_live());
}

#[test]
fn mispredictions_are_counted() {
    let mut net = net_with(ServerConfig::default(), SimConfig { seed: 3, min_ms: 50, max_ms: 50 });
    let a = join(&mut net, "ann");
    let b = join(&mut net, "bob");
    let rock = net.server.master().scan_radius([-16.0, -4.0, 0.0], 0.5)[0];
    // bob destroys the rock; ann, who has not seen that yet, pushes it
    net.command(b, Command::Invoke { target: rock, function: "vanish".into(), args: vec![] });
    net.run_ms(60);
    net.command(
        a,
        Command::Invoke {
            target: rock,
            function: "push".into(),
            args: vec![Arg::Int(1), Arg::Int(1)],
        },
    );
    net.run_ms(1000);
    let ev = net.clients[a].core.take_events();
    assert!(ev.iter().any(|e| matches!(e, ClientEvent::Misprediction { count: 1, .. })), "{ev:?}");
    assert_eq!(net.clients[a].core.stats().mispredictions, 1);
    assert_converged(&mut net);
}

/// A conflict on script data alone (no position, no failure): both chip
/// the same rock; ann predicted the first chip, the master gave her the
/// second. Alone, the same command is predicted right.
#[test]
fn mispredicted_script_data_is_counted() {
    let mut net = net_with(ServerConfig::default(), SimConfig { seed: 3, min_ms: 50, max_ms: 50 });
    let a = join(&mut net, "ann");
    let b = join(&mut net, "bob");
    let rock = net.server.master().scan_radius([-16.0, -4.0, 0.0], 0.5)[0];
    let chip = Command::Invoke { target: rock, function: "chip".into(), args: vec![] };
    net.command(a, chip.clone());
    net.run_ms(1000);
    assert_eq!(net.clients[a].core.stats().mispredictions, 0, "alone: predicted right");
    net.command(b, chip.clone());
    net.run_ms(60);
    net.command(a, chip);
    net.run_ms(1000);
    let ev = net.clients[a].core.take_events();
    assert!(ev.iter().any(|e| matches!(e, ClientEvent::Misprediction { count: 1, .. })), "{ev:?}");
    assert_eq!(net.clients[a].core.stats().mispredictions, 1);
    assert_eq!(net.clients[b].core.stats().mispredictions, 0);
    assert_converged(&mut net);
}

#[test]
fn tampering_is_detected_as_a_desync() {
    let cfg = ServerConfig { check_every: 1, ..Default::default() };
    let mut net = net(cfg, 8);
    let a = join(&mut net, "ann");
    assert_eq!(net.clients[a].core.pending(), 0);
    // change the client-synchronous model behind the protocol's back
    let me = net.clients[a].core.player();
    net.clients[a].core.view().move_to(me, [50.0, 0.0, 0.0], 0).unwrap();
    net.command(a, Command::Walk { to: [1.0, 1.0, 0.0] });
    net.run_ms(1000);
    assert!(net.clients[a].core.stats().desyncs >= 1);
    let ev = net.clients[a].core.take_events();
    assert!(ev.iter().any(|e| matches!(e, ClientEvent::Desync { .. })));
}

#[test]
fn a_client_too_far_behind_is_disconnected() {
    let cfg = ServerConfig { max_outbox: 5, ..Default::default() };
    let mut core = ServerCore::new(arena(), cfg, Registry::new(HashCost::test()));
    let sid = core.open();
    let h =
        Hello { version: PROTOCOL_VERSION, name: "slow".into(), secret: "pw".into(), sources: 0 };
    core.receive(sid, &encode(&Up::Hello(h)));
    let other = core.open();
    let h =
        Hello { version: PROTOCOL_VERSION, name: "fast".into(), secret: "pw".into(), sources: 0 };
    core.receive(other, &encode(&Up::Hello(h)));
    for _ in 0..10 {
        core.tick();
        core.take_outbox(other);
    }
    let closed = core.take_closed();
    assert_eq!(closed.len(), 1, "{closed:?}");
    assert_eq!(closed[0].0, sid);
    assert!(closed[0].1.contains("too far behind"));
    assert_eq!(core.live().len(), 1);
}

#[test]
fn a_bogus_server_ends_the_client_session() {
    let mut c = ClientCore::new("ann", "pw", Vec::new()).unwrap();
    let e = c.receive(&[0xff, 0x00, 0x13]).unwrap_err();
    assert!(matches!(e, luprex_net::ClientError::Bogus(_)), "{e}");
    assert!(c.closed().is_some());
    assert!(c.command(Command::Walk { to: [0.0; 3] }).is_err());
}
