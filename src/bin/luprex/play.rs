//! `luprex play DIR`: the scripter's everyday command — a server and the
//! terminal client in one process.
//!
//! With a terminal, `play` starts the tokio server (`luprex_net::server`)
//! on `--listen` (default 127.0.0.1 and any free port) with the master
//! World loaded from DIR, then runs the terminal client (`connect.rs`)
//! against it as `--name`. The listen address is shown in the message
//! pane (and logged), so that a second player can `luprex connect` to it.
//! The master has no persistence here (that is `luprex serve`): quitting
//! ends the world.
//!
//! Editing the scripts while playing: a watcher thread looks at the
//! script directory every second (names, sizes and modification times of
//! its files) and, when something changed, has the tick thread reload the
//! master (`World::reload`: changed files are recompiled and the classes
//! rebuilt); the new sources reach every connected client by difference
//! transmission, without reconnecting. Load reports (file:line) are logged
//! and shown in the message pane.
//!
//! With `--web ADDR`, the client is the web view instead (`web/`): `play`
//! prints `listening on ADDR` and `web view on http://ADDR/` and serves
//! the page until Ctrl-C, with or without a terminal.
//!
//! Otherwise, without a terminal (stdin or stdout not a tty: CI, a pipe, an editor's
//! task runner), `play` cannot draw a screen; it runs the world with
//! `--bots` bots for `--ticks` ticks over the simulated network instead
//! (`bots.rs`) and prints what happens — joins, walks, chat, crafting,
//! scores, from the players' prints and the master's output — then exits
//! 0 (1 on a desync). So the README's first command shows the engine
//! working wherever it is run.

use crate::bots::{self, RunOptions};
use crate::connect;
use crate::web;
use anyhow::Context;
use luprex_engine::{Model, World};
use luprex_net::server::{self, NetConfig};
use luprex_net::{HashCost, Registry, ServerConfig};
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The script directory (with its control.lst).
    pub dir: PathBuf,
    /// Your player's name (default: $USER, else `player`).
    #[arg(long)]
    pub name: Option<String>,
    /// Your secret (default: $LUPREX_SECRET, else an insecure per-name
    /// default for local play).
    #[arg(long)]
    pub secret: Option<String>,
    /// Where the server listens (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Without a terminal: how many bots play.
    #[arg(long, default_value_t = 3)]
    pub bots: usize,
    /// Without a terminal: how many ticks (20 a second) to run.
    #[arg(long, default_value_t = 400)]
    pub ticks: u64,
    /// Without a terminal: the seed of the bots and the network.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play in a web browser instead of the terminal: serve the web view
    /// on ADDR (`PORT` alone: on loopback; no value: 127.0.0.1:8080).
    /// Needs no terminal; runs until Ctrl-C.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = web::DEFAULT_ADDR)]
    pub web: Option<String>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if !args.dir.join("control.lst").is_file() {
        anyhow::bail!("{} has no control.lst: not a script directory", args.dir.display());
    }
    if args.web.is_some() || (std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        interactive(args)
    } else {
        headless(args)
    }
}

fn headless(args: &Args) -> anyhow::Result<ExitCode> {
    println!(
        "luprex play: no terminal here, so {} bots play {} for {} ticks ({} s of game time).",
        args.bots,
        args.dir.display(),
        args.ticks,
        args.ticks / 20
    );
    println!(
        "(In a terminal, `luprex play {}` lets you walk, craft and chat yourself.)",
        args.dir.display()
    );
    let master = bots::load_master(&args.dir, &mut crate::bots::stdout_line())?;
    let opts = RunOptions {
        clients: args.bots,
        ticks: args.ticks,
        latency_ms: 30,
        jitter_ms: 30,
        seed: args.seed,
        prints: true,
        commands: true,
    };
    let t = bots::run(master, &opts, &mut crate::bots::stdout_line());
    Ok(if t.desyncs > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn interactive(args: &Args) -> anyhow::Result<ExitCode> {
    let web_bind = args.web.as_deref().map(web::parse_addr).transpose()?;
    let (note_tx, note_rx) = mpsc::channel::<String>();
    let dir = args.dir.clone();
    let loader = note_tx.clone();
    let handle = server::spawn(
        move || {
            let mut w = match World::from_dir(Model::Master, &dir) {
                Ok(w) => w,
                Err(e) => {
                    tracing::error!(error = %e, "loading the script directory");
                    let _ = loader.send(format!("! {e}"));
                    World::new(Model::Master).expect("an empty world")
                }
            };
            for r in w.take_reports() {
                tracing::info!(file = %r.file, line = ?r.line, "{r}");
                let _ = loader.send(format!("! script error: {r}"));
            }
            w
        },
        ServerConfig::default(),
        NetConfig { bind: args.listen, ..NetConfig::default() },
        Registry::new(HashCost::standard()),
    )
    .with_context(|| format!("listening on {}", args.listen))?;
    let addr = handle.addr;
    tracing::info!(%addr, "listening");
    if web_bind.is_some() {
        println!("listening on {addr}");
    }
    let handle = Arc::new(handle);
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (handle, stop, dir) = (handle.clone(), stop.clone(), args.dir.clone());
        std::thread::Builder::new()
            .name("luprex-reload".into())
            .spawn(move || watch(&handle, &dir, &stop, &note_tx))?
    };
    let intro = vec![
        format!("listening on {addr} — another player: luprex connect {addr} --name NAME"),
        format!(
            "editing {} reloads it while you play; /help lists the commands",
            args.dir.display()
        ),
    ];
    let name = args.name.clone().unwrap_or_else(|| {
        std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "player".into())
    });
    let secret = connect::secret_for(&name, args.secret.as_deref());
    let r = match web_bind {
        Some(bind) => web::play(bind, addr, &name, &secret, intro, Some(note_rx)),
        None => connect::play_terminal(addr, &name, &secret, intro, Some(note_rx)),
    };
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    if let Ok(h) = Arc::try_unwrap(handle) {
        h.shutdown();
    }
    r.map(|()| ExitCode::SUCCESS)
}

/// What identifies the script directory's contents cheaply: each file's
/// name, size and modification time.
fn fingerprint(dir: &Path) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if let Ok(m) = e.metadata() {
                if m.is_file() {
                    out.push((e.path(), m.len(), m.modified().ok()));
                }
            }
        }
    }
    out.sort();
    out
}

/// The watcher thread: reloads the master when the directory changes.
fn watch(
    handle: &server::ServerHandle,
    dir: &Path,
    stop: &AtomicBool,
    notes: &mpsc::Sender<String>,
) {
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return tracing::error!(error = %e, "no runtime for the reload watcher"),
    };
    let mut last = fingerprint(dir);
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(100));
            if stop.load(Ordering::Relaxed) {
                return;
            }
        }
        let now = fingerprint(dir);
        if now == last {
            continue;
        }
        last = now;
        let done = rt.block_on(handle.with_core(|c| {
            let r = c.master().reload().map_err(|e| e.to_string());
            let reports: Vec<String> =
                c.master().take_reports().iter().map(|r| r.to_string()).collect();
            (r, reports)
        }));
        let Some((r, reports)) = done else { return };
        match r {
            Ok(()) => {
                tracing::info!(dir = %dir.display(), "reloaded the scripts");
                let _ = notes.send(format!("(reloaded {})", dir.display()));
            }
            Err(e) => {
                tracing::info!(error = %e, "reload failed");
                let _ = notes.send(format!("! reload failed: {e}"));
            }
        }
        for r in reports {
            tracing::info!("{r}");
            let _ = notes.send(format!("! script error: {r}"));
        }
    }
}
