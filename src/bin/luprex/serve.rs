//! `luprex serve DIR`: the persistent master and its listener.
//!
//! The master World lives in a data directory (`--data`, by default the
//! script directory's sibling `NAME.data/`, e.g. `lua.data/` for `lua/`)
//! as a checkpoint plus a journal of the events applied since
//! (`luprex_engine::journal`), and the players' registrations (names and
//! argon2 hashes, never secrets) in `players.tsv`:
//!
//! 1. **Start.** With a checkpoint there, the master is restored and the
//!    journal replayed (a damaged tail is logged and cut); otherwise a
//!    fresh master is loaded from the script directory and started (its
//!    classes' `init`). Either way the script directory is then attached
//!    (`World::load_dir`: files whose fingerprint changed are re-read and
//!    the classes rebuilt) and a checkpoint written, so the journal that
//!    follows never depends on files.
//! 2. **Run.** The net server ticks the master (`luprex_net::server`);
//!    the master records every event, and the tick thread hands them to
//!    the journal — appended and flushed to the OS — *before* it sends
//!    anything (acknowledgements included): a process killed at any point
//!    loses no acknowledged command. `--sync` also fsyncs each flush
//!    (power cuts).
//! 3. **Edits.** Every second the script directory is re-read; if a
//!    source changed, the classes are rebuilt on the tick thread (clients
//!    stay connected; difference transmission carries the new sources)
//!    and a checkpoint is written. A checkpoint is also written every
//!    `--checkpoint-every` events, to bound the replay at the next start.
//! 4. **Stop.** Ctrl-C (or SIGTERM) stops the server gracefully: the
//!    sessions are closed, the last events journaled, a final checkpoint
//!    written.
//!
//! The log (tracing, `--log info` to see it): the listen address,
//! connections and refusals (from the net server), load reports with
//! `file:line:`, recoveries, reloads, checkpoints and tick overruns. The
//! first line on stdout is `listening on ADDR` (tests and scripts read it).

use anyhow::Context;
use luprex_engine::{Event, LoadReport, Model, ScriptDir, Store, World};
use luprex_net::server::{spawn_with, NetConfig, ServerHandle};
use luprex_net::{HashCost, Registry, ServerConfig};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The arguments of `luprex serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The script directory (holding control.lst).
    pub dir: PathBuf,
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:7420")]
    pub listen: SocketAddr,
    /// The data directory (default: the script directory's sibling NAME.data).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Ticks per second.
    #[arg(long, default_value_t = 20)]
    pub tick_hz: u32,
    /// Write a checkpoint after this many journaled events.
    #[arg(long, default_value_t = 100_000)]
    pub checkpoint_every: u64,
    /// Also fsync the journal before acknowledging (survives power cuts).
    #[arg(long)]
    pub sync: bool,
    /// Stop after this many seconds (tests, demos; default: run until Ctrl-C).
    #[arg(long)]
    pub seconds: Option<f64>,
}

/// The default data directory of script directory `dir`.
pub fn default_data_dir(dir: &Path) -> PathBuf {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "world".to_owned());
    let parent = dir.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf));
    parent.unwrap_or_else(|| PathBuf::from(".")).join(format!("{name}.data"))
}

/// Serves `args.dir` until stopped.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let data = args.data.clone().unwrap_or_else(|| default_data_dir(&args.dir));
    std::fs::create_dir_all(&data)
        .with_context(|| format!("cannot create the data directory {}", data.display()))?;
    let registry = Registry::open(HashCost::standard(), &data.join("players.tsv"))
        .with_context(|| format!("cannot read {}", data.join("players.tsv").display()))?;
    // A World is not Send: the master is recovered (or loaded) on the
    // tick thread itself, which reports back whether that worked.
    let store: Arc<Mutex<Option<Store>>> = Arc::default();
    let (opened_tx, opened) = std::sync::mpsc::channel::<Result<(), String>>();
    let (dir, slot, data_dir) = (args.dir.clone(), store.clone(), data.clone());
    let master = move || match open_master(&dir, &data_dir) {
        Ok((w, s)) => {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
            let _ = opened_tx.send(Ok(()));
            w
        }
        Err(e) => {
            let _ = opened_tx.send(Err(format!("{e:#}")));
            World::new(Model::Master).unwrap_or_else(|e| panic!("an empty world: {e}"))
        }
    };
    let journal = journal_sink(store.clone(), args.sync);
    let cfg = ServerConfig { tick_hz: args.tick_hz, ..ServerConfig::default() };
    let net = NetConfig { bind: args.listen, ..NetConfig::default() };
    let handle = spawn_with(master, Some(journal), cfg, net, registry)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    if let Err(e) = opened.recv().unwrap_or_else(|_| Err("the tick thread died".into())) {
        handle.shutdown();
        anyhow::bail!("{e}");
    }
    println!("listening on {}", handle.addr);
    let _ = std::io::stdout().flush();
    tracing::info!(addr = %handle.addr, data = %data.display(), "serving");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(watch(&handle, &store, args))?;
    rt.block_on(final_checkpoint(&handle, &store));
    let report = handle.shutdown();
    tracing::info!(
        ticks = report.stats.ticks,
        commands = report.stats.commands,
        hash = %format!("{:032x}", report.master_hash),
        "stopped"
    );
    Ok(ExitCode::SUCCESS)
}

/// The master: recovered from `data` or loaded fresh from `dir`, with the
/// script directory attached and a checkpoint written.
fn open_master(dir: &Path, data: &Path) -> anyhow::Result<(World, Store)> {
    let mut world = if Store::exists(data) {
        let (_, rec) = Store::open(data)
            .with_context(|| format!("cannot recover the world in {}", data.display()))?;
        if let Some(cut) = &rec.cut {
            tracing::error!(%cut, "the journal had a damaged tail");
        }
        if rec.stale_journal {
            tracing::warn!("a journal older than the checkpoint was dropped");
        }
        tracing::info!(replayed = rec.replayed, refused = rec.refused, "recovered");
        println!(
            "recovered: {} events replayed, state hash {:032x}",
            rec.replayed,
            rec.world.state_hash()
        );
        let mut w = rec.world;
        w.load_dir(ScriptDir::new(dir))
            .with_context(|| format!("cannot read {}", dir.join("control.lst").display()))?;
        w
    } else {
        World::from_dir(Model::Master, dir)
            .with_context(|| format!("cannot load script directory {}", dir.display()))?
    };
    log_reports(&world.take_reports());
    world.take_output();
    let store = Store::create(data, &world)
        .with_context(|| format!("cannot write the data directory {}", data.display()))?;
    Ok((world, store))
}

/// The journal: appends the events, flushes (and fsyncs with `sync`).
fn journal_sink(store: Arc<Mutex<Option<Store>>>, sync: bool) -> luprex_net::server_core::Journal {
    Box::new(move |events: &[Event]| {
        let mut s = store.lock().unwrap_or_else(|e| e.into_inner());
        let s = s.as_mut().ok_or("the data directory is not open")?;
        for e in events {
            s.append(e).map_err(|e| e.to_string())?;
        }
        s.flush(sync).map_err(|e| e.to_string())
    })
}

/// Until stopped: reloads edited scripts and checkpoints, every second.
async fn watch(
    handle: &ServerHandle,
    store: &Arc<Mutex<Option<Store>>>,
    args: &Args,
) -> anyhow::Result<()> {
    let stop_at = args.seconds.map(|s| tokio::time::Instant::now() + Duration::from_secs_f64(s));
    let mut every = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = tokio::signal::ctrl_c() => break,
            _ = sleep_until(stop_at) => break,
        }
        let store = store.clone();
        let limit = args.checkpoint_every;
        let outcome = handle.with_core(move |core| maintain(core, &store, limit)).await;
        match outcome {
            Some(Ok(())) => {}
            Some(Err(e)) => anyhow::bail!("{e}"),
            None => anyhow::bail!("the server stopped"),
        }
    }
    Ok(())
}

async fn sleep_until(t: Option<tokio::time::Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// On the tick thread: reload if a source changed; checkpoint after a
/// reload or after `limit` events.
fn maintain(
    core: &mut luprex_net::ServerCore,
    store: &Mutex<Option<Store>>,
    limit: u64,
) -> Result<(), String> {
    core.persist()?;
    let before: Vec<_> = core.master().sources().into_iter().map(|s| s.fingerprint).collect();
    if let Err(e) = core.master().reload() {
        tracing::warn!(error = %e, "cannot re-read the script directory");
    }
    let reports = core.master().take_reports();
    let after: Vec<_> = core.master().sources().into_iter().map(|s| s.fingerprint).collect();
    let reloaded = before != after;
    if reloaded {
        log_reports(&reports);
        tracing::info!(files = after.len(), "scripts reloaded");
    }
    let mut s = store.lock().unwrap_or_else(|e| e.into_inner());
    let s = s.as_mut().ok_or("the data directory is not open")?;
    if reloaded || s.events_since_checkpoint() >= limit {
        s.checkpoint(core.master()).map_err(|e| e.to_string())?;
        tracing::info!(generation = s.generation(), "checkpoint written");
    }
    Ok(())
}

/// The last events journaled and a checkpoint, before shutdown.
async fn final_checkpoint(handle: &ServerHandle, store: &Arc<Mutex<Option<Store>>>) {
    let store = store.clone();
    let done = handle
        .with_core(move |core| {
            core.persist()?;
            let mut s = store.lock().unwrap_or_else(|e| e.into_inner());
            let s = s.as_mut().ok_or("the data directory is not open")?;
            s.checkpoint(core.master()).map_err(|e| e.to_string())
        })
        .await;
    if let Some(Err(e)) = done {
        tracing::error!(error = %e, "the final checkpoint failed (the journal has the events)");
    }
}

/// Logs load reports, `file:line: message`.
fn log_reports(reports: &[LoadReport]) {
    for r in reports {
        let at = match r.line {
            Some(l) if !r.message.starts_with(&r.file) => format!("{}:{l}: ", r.file),
            _ => String::new(),
        };
        tracing::warn!("{at}{}", r.message);
    }
}
