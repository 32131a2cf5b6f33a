//! `luprex connect ADDR --name NAME`: the terminal client, and the loop
//! that `play` shares with it.
//!
//! The client is one thread with a current-thread tokio runtime (a World
//! is not `Send`, so the [`Client`] and its predicted model stay on it)
//! plus one plain thread that reads terminal events (crossterm's `read`
//! blocks) into a channel. Each frame, about 20 a second, the loop pumps
//! the network for 50 ms (applying the server's batches to the predicted
//! World), turns the keys typed meanwhile into actions (`tui::Ui`) and
//! sends them as commands, moves the player's prints and the client's
//! events into the UI, and draws the screen (`tui::render`).
//!
//! The terminal is put in raw mode on the alternate screen by
//! `ratatui::init`, which also installs a panic hook that restores it; the
//! loop restores it on every exit path.
//!
//! Indicators: latency is the time from sending a command to its
//! acknowledgement (the last one), pending is the commands predicted and
//! not yet acknowledged, mispredictions the client core's count.
//!
//! The secret: `--secret`, else the environment variable
//! `LUPREX_SECRET`, else `local-NAME`. That last default is *insecure*
//! (anyone who knows a name can play as it) and meant for local play
//! only; a shared server wants a real secret.

use crate::tui::{self, Action, Connection, Status, Ui};
use anyhow::Context;
use luprex_net::client::Client;
use luprex_net::{ClientCore, ClientEvent, Command};
use ratatui::crossterm::event::{self, Event, KeyEvent};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's address (host:port).
    pub addr: String,
    /// The player's name.
    #[arg(long)]
    pub name: String,
    /// The player's secret (default: $LUPREX_SECRET, else the insecure
    /// `local-NAME`, for local play only).
    #[arg(long)]
    pub secret: Option<String>,
}

/// The secret to use for `name` (see the module docs).
pub fn secret_for(name: &str, given: Option<&str>) -> String {
    match given {
        Some(s) => s.to_owned(),
        None => std::env::var("LUPREX_SECRET").unwrap_or_else(|_| format!("local-{name}")),
    }
}

pub fn run(args: &Args) -> anyhow::Result<std::process::ExitCode> {
    use std::net::ToSocketAddrs;
    let addr = args
        .addr
        .to_socket_addrs()
        .with_context(|| format!("resolving {}", args.addr))?
        .next()
        .with_context(|| format!("no address for {}", args.addr))?;
    let secret = secret_for(&args.name, args.secret.as_deref());
    play_terminal(addr, &args.name, &secret, Vec::new(), None)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs the terminal client against `addr` until the player quits.
/// `intro` lines start the print buffer; lines from `notes` (the local
/// server's reload reports, in `play`) are added as they come.
pub fn play_terminal(
    addr: SocketAddr,
    name: &str,
    secret: &str,
    intro: Vec<String>,
    notes: Option<mpsc::Receiver<String>>,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let core = ClientCore::new(name, secret, Vec::new())?;
    let client = rt
        .block_on(Client::connect(addr, core, Duration::from_secs(15)))
        .with_context(|| format!("connecting to {addr} as {name}"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let (key_tx, key_rx) = mpsc::channel();
    let reader = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("luprex-keys".into())
            .spawn(move || read_keys(&stop, &key_tx))?
    };
    let mut terminal = ratatui::init();
    let r = rt.block_on(session(&mut terminal, client, intro, notes, &key_rx));
    ratatui::restore();
    stop.store(true, Ordering::Relaxed);
    let _ = reader.join();
    r
}

/// The input thread: terminal key events into `tx` until `stop`.
fn read_keys(stop: &AtomicBool, tx: &mpsc::Sender<KeyEvent>) {
    while !stop.load(Ordering::Relaxed) {
        match event::poll(Duration::from_millis(50)) {
            Ok(true) => match event::read() {
                Ok(Event::Key(k)) => {
                    if tx.send(k).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => return,
            },
            Ok(false) => {}
            Err(_) => return,
        }
    }
}

fn command_of(action: Action) -> Option<Command> {
    match action {
        Action::Walk(to) => Some(Command::Walk { to }),
        Action::Invoke { target, name, args } => {
            Some(Command::Invoke { target, function: name, args })
        }
        Action::Quit => None,
    }
}

async fn session(
    terminal: &mut ratatui::DefaultTerminal,
    mut client: Client,
    intro: Vec<String>,
    notes: Option<mpsc::Receiver<String>>,
    keys: &mpsc::Receiver<KeyEvent>,
) -> anyhow::Result<()> {
    let mut ui = Ui::new();
    for line in intro {
        ui.push_text(&line);
    }
    let mut status = Status { connection: Connection::Connected, ..Status::default() };
    let mut sent: HashMap<u64, Instant> = HashMap::new();
    let player = client.core().player();
    loop {
        if matches!(status.connection, Connection::Lost(_)) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        } else if let Err(e) = client.pump(Duration::from_millis(50)).await {
            ui.push_text(&format!("! connection lost: {e}"));
            status.connection = Connection::Lost(e.to_string());
        }
        for ev in client.core().take_events() {
            match ev {
                ClientEvent::Acked { seq, .. } => {
                    if let Some(t) = sent.remove(&seq) {
                        status.latency_ms =
                            Some(t.elapsed().as_millis().min(u32::MAX as u128) as u32);
                    }
                }
                ClientEvent::Misprediction { count, .. } => status.mispredictions = count,
                ClientEvent::Desync { tick } => ui.push_text(&format!("! desync at tick {tick}")),
                ClientEvent::Welcome { .. } => {}
            }
        }
        let prints = client.core().take_prints();
        if !prints.is_empty() {
            ui.push_text(&prints);
        }
        if let Some(n) = &notes {
            while let Ok(line) = n.try_recv() {
                ui.push_text(&line);
            }
        }
        while let Ok(key) = keys.try_recv() {
            let Some(action) = ui.handle_key(key, client.core().view(), player) else { continue };
            let Some(cmd) = command_of(action) else {
                if status.connection == Connection::Connected {
                    let _ = client.bye().await;
                }
                return Ok(());
            };
            if status.connection != Connection::Connected {
                ui.push_text("! not connected");
                continue;
            }
            match client.command(cmd).await {
                Ok(seq) => {
                    sent.insert(seq, Instant::now());
                }
                Err(e) => ui.push_text(&format!("! {e}")),
            }
        }
        status.pending = client.core().pending();
        terminal.draw(|f| tui::render(f, client.core().view(), player, &ui, &status))?;
    }
}
