//! `luprex serve` killed with SIGKILL in the middle of traffic loses no
//! acknowledged command.
//!
//! Two players play the demo world over real TCP while the server process
//! runs; after some commands are acknowledged the process is killed with
//! SIGKILL (no chance to clean up). Then:
//!
//! 1. every command acknowledged before the kill is in the journal, in
//!    order (the server journals before it acknowledges);
//! 2. an independent master — loaded fresh from the script directory, not
//!    from the checkpoint — fed the journal's events reaches the same state
//!    hash as the restarted server reports after its recovery (so the
//!    recovery is the run without the crash, up to the last journaled event);
//! 3. the restarted server serves again: the players come back to their
//!    tangibles with their secrets, and a wrong secret is refused (the
//!    registrations survived the crash too).

use luprex_engine::{journal, Event, Model, World};
use luprex_net::client::Client;
use luprex_net::protocol::{Arg, Command, Outcome};
use luprex_net::{ClientCore, ClientEvent};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Proc, Stdio};
use std::time::Duration;

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A copy of `lua/` and an empty data directory.
fn scratch() -> (Scratch, PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("luprex-serve-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let world = root.join("world");
    std::fs::create_dir_all(&world).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), world.join(e.file_name())).unwrap();
    }
    let data = root.join("data");
    (Scratch(root), world, data)
}

/// Starts `luprex serve`; the child and the first line it prints after
/// the recovery line, if any ("listening on ADDR").
// The child is returned to the caller, which kills and waits for it.
#[allow(clippy::zombie_processes)]
fn serve(world: &Path, data: &Path) -> (Child, SocketAddr, Option<String>) {
    let mut child = Proc::new(env!("CARGO_BIN_EXE_luprex"))
        .args(["serve", "--listen", "127.0.0.1:0", "--tick-hz", "50", "--data"])
        .arg(data)
        .arg(world)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("luprex serve starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut recovered = None;
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait();
            panic!("serve ended before listening: {status:?}");
        }
        if let Some(addr) = line.trim().strip_prefix("listening on ") {
            let addr = addr.parse().unwrap();
            // Keep reading stdout in the background so the pipe never fills.
            std::thread::spawn(move || for _ in out.lines() {});
            return (child, addr, recovered);
        }
        if line.starts_with("recovered:") {
            recovered = Some(line.trim().to_owned());
        }
    }
}

async fn join(addr: SocketAddr, name: &str, secret: &str) -> Result<Client, String> {
    let core = ClientCore::new(name, secret, Vec::new()).map_err(|e| e.to_string())?;
    Client::connect(addr, core, Duration::from_secs(20)).await.map_err(|e| e.to_string())
}

/// One player's traffic: the commands sent (by sequence number) and the
/// sequence numbers acknowledged as executed.
#[derive(Default)]
struct Traffic {
    sent: Vec<(u64, Command)>,
    acked: Vec<u64>,
}

impl Traffic {
    fn take_acks(&mut self, c: &mut Client) {
        for ev in c.core().take_events() {
            if let ClientEvent::Acked { seq, outcome: Outcome::Executed } = ev {
                self.acked.push(seq);
            }
        }
    }
}

/// The command of step `i` of player `p`: walks to points no other
/// command names, and chat.
fn step(p: u64, i: u64) -> Command {
    if i % 3 == 2 {
        let function = "say".to_owned();
        let args = vec![Arg::Str(format!("p{p} line {i}"))];
        return Command::Invoke { target: 0, function, args };
    }
    Command::Walk { to: [(i % 7) as f64 - 3.0 + p as f64 * 0.25, (i / 7) as f64 * 0.5 - 2.0, 0.0] }
}

/// Whether journal event `e` is command `c` of player `player`.
fn same(e: &Event, player: u64, c: &Command) -> bool {
    match (e, c) {
        (Event::Walk { actor, to }, Command::Walk { to: t }) => *actor == player && to == t,
        (
            Event::Invoke { actor, function, args, .. },
            Command::Invoke { function: f, args: a, .. },
        ) => {
            *actor == player
                && function == f
                && args.len() == a.len()
                && matches!((&args[0], &a[0]), (luprex_engine::Plain::Str(x), Arg::Str(y)) if x == y)
        }
        _ => false,
    }
}

#[test]
fn sigkill_loses_no_acknowledged_command() {
    let (_scratch, world, data) = scratch();
    let (mut child, addr, _) = serve(&world, &data);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (players, traffic) = rt.block_on(async {
        let mut clients = [
            join(addr, "ann", "ann-secret").await.unwrap(),
            join(addr, "bob", "bob-secret").await.unwrap(),
        ];
        let players: Vec<u64> = clients.iter_mut().map(|c| c.core().player()).collect();
        let mut traffic = [Traffic::default(), Traffic::default()];
        for i in 0..200u64 {
            for (k, c) in clients.iter_mut().enumerate() {
                let mut cmd = step(k as u64, i);
                if let Command::Invoke { target, .. } = &mut cmd {
                    *target = players[k];
                }
                let seq = c.command(cmd.clone()).await.unwrap();
                traffic[k].sent.push((seq, cmd));
                c.pump(Duration::from_millis(2)).await.unwrap();
                traffic[k].take_acks(c);
            }
            // Kill in the middle of traffic, with commands in flight.
            if traffic[0].acked.len() >= 40 && traffic[1].acked.len() >= 40 {
                child.kill().unwrap(); // SIGKILL
                break;
            }
        }
        (players, traffic)
    });
    child.wait().unwrap();
    assert!(traffic.iter().all(|t| t.acked.len() >= 40), "the traffic was acknowledged");

    // 1. Every acknowledged command is in the journal, in order.
    let bytes = std::fs::read(data.join("journal.bin")).unwrap();
    let (events, _, _) = journal::read_records(&bytes);
    for (k, t) in traffic.iter().enumerate() {
        let mine: Vec<&Event> = events
            .iter()
            .filter(|e| matches!(e, Event::Walk { actor, .. } | Event::Invoke { actor, .. } if *actor == players[k]))
            .collect();
        let mut at = 0;
        for seq in &t.acked {
            let (_, cmd) = t.sent.iter().find(|(s, _)| s == seq).unwrap();
            let found = mine[at..].iter().position(|e| same(e, players[k], cmd));
            let found = found.unwrap_or_else(|| {
                panic!("acknowledged command {seq} of player {k} is not in the journal")
            });
            at += found + 1;
        }
    }

    // 2. An independent master fed the journal = the restarted server.
    let mut reference = World::from_dir(Model::Master, &world).unwrap();
    reference.take_reports();
    for e in &events {
        let _ = reference.apply_event(e);
    }
    let (mut child, addr, recovered) = serve(&world, &data);
    let recovered = recovered.expect("the restarted server reports its recovery");
    assert!(
        recovered.ends_with(&format!("state hash {:032x}", reference.state_hash())),
        "{recovered} (reference {:032x}, {} events)",
        reference.state_hash(),
        events.len()
    );
    assert!(recovered.contains(&format!("{} events replayed", events.len())), "{recovered}");

    // 3. It serves again; the players are who they were.
    rt.block_on(async {
        let mut ann = join(addr, "ann", "ann-secret").await.unwrap();
        assert_eq!(ann.core().player(), players[0], "ann resumes her tangible");
        let e = join(addr, "bob", "wrong").await.err().expect("a wrong secret is refused");
        assert!(e.contains("secret"), "{e}");
        let seq = ann.command(Command::Walk { to: [1.0, 1.0, 0.0] }).await.unwrap();
        let mut t = Traffic::default();
        for _ in 0..50 {
            ann.pump(Duration::from_millis(20)).await.unwrap();
            t.take_acks(&mut ann);
            if t.acked.contains(&seq) {
                break;
            }
        }
        assert!(t.acked.contains(&seq), "the restarted server acknowledges");
    });
    child.kill().unwrap();
    child.wait().unwrap();
}
