//! `luprex connect ADDR --name NAME`: the terminal client (and, with
//! `--web`, the web view's client, `web/`).
//!
//! The client runs the loop shared with the web view (`session.rs`) on
//! one thread with a current-thread tokio runtime, plus one plain thread
//! that reads terminal events (crossterm's `read` blocks) into a channel.
//! Its [`Frontend`] here is the terminal: each frame the keys typed
//! meanwhile become actions (`tui::Ui`) and the screen is drawn
//! (`tui::render`).
//!
//! The terminal is put in raw mode on the alternate screen by
//! `ratatui::init`, which also installs a panic hook that restores it; the
//! loop restores it on every exit path.
//!
//! The secret: `--secret`, else the environment variable
//! `LUPREX_SECRET`, else `local-NAME`. That last default is *insecure*
//! (anyone who knows a name can play as it) and meant for local play
//! only; a shared server wants a real secret.

use crate::session::{self, Frontend};
use crate::tui::{self, Action, Status, Ui};
use crate::web;
use anyhow::Context;
use luprex_engine::World;
use luprex_net::ClientCore;
use ratatui::crossterm::event::{self, Event, KeyEvent};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

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
    /// Serve the web view on ADDR (`PORT` alone: on loopback; no value:
    /// 127.0.0.1:8080) instead of drawing in the terminal; runs until
    /// Ctrl-C.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = web::DEFAULT_ADDR)]
    pub web: Option<String>,
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
    match &args.web {
        Some(web_addr) => {
            let bind = web::parse_addr(web_addr)?;
            let intro = vec![format!("connected to {addr}")];
            web::play(bind, addr, &args.name, &secret, intro, None)?
        }
        None => play_terminal(addr, &args.name, &secret, Vec::new(), None)?,
    }
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
    let (rt, client) = crate::session::connect(addr, name, secret)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (key_tx, key_rx) = mpsc::channel();
    let reader = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("luprex-keys".into())
            .spawn(move || read_keys(&stop, &key_tx))?
    };
    let mut terminal = ratatui::init();
    let mut front = Terminal { terminal: &mut terminal, ui: Ui::new(), keys: &key_rx };
    let r = rt.block_on(session::run(client, &mut front, intro, notes));
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

/// The terminal as a session's frontend: ratatui draws, keys act.
struct Terminal<'a> {
    terminal: &'a mut ratatui::DefaultTerminal,
    ui: Ui,
    keys: &'a mpsc::Receiver<KeyEvent>,
}

impl Frontend for Terminal<'_> {
    fn push_text(&mut self, text: &str) {
        self.ui.push_text(text);
    }

    fn next_action(&mut self, w: &mut World, player: u64) -> Option<Action> {
        while let Ok(key) = self.keys.try_recv() {
            if let Some(action) = self.ui.handle_key(key, w, player) {
                return Some(action);
            }
        }
        None
    }

    fn show(&mut self, core: &mut ClientCore, status: &Status) -> anyhow::Result<()> {
        let player = core.player();
        let ui = &self.ui;
        self.terminal.draw(|f| tui::render(f, core.view(), player, ui, status))?;
        Ok(())
    }
}
