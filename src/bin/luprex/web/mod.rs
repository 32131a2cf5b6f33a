//! The web view (issue 15): `luprex play DIR --web ADDR` and `luprex
//! connect SERVER --name NAME --web ADDR` serve a page on ADDR that shows
//! the world and takes the player's commands.
//!
//! **Design.** The client process is the same as the terminal client's:
//! the shared loop of `session.rs` keeps the [`Client`] and its predicted
//! World (the client-synchronous model with the predictions on top) on
//! one thread and pumps the network 20 times a second. Only the frontend
//! differs: [`Page`], instead of keys and a ratatui screen, takes the
//! messages the pages sent and publishes each frame for them. The pages
//! are served by `server.rs` (axum, on a thread of its own) over HTTP and
//! a WebSocket on the one port ADDR; the two threads meet through a
//! bounded queue (page → client) and a `watch` of the latest frame
//! (client → pages), so neither waits for the other.
//!
//! * `protocol.rs` — the JSON messages and the strict validation of what
//!   a page sends;
//! * `scene.rs` — the `state` message, read from the World without
//!   changing it (`tui::lookup`);
//! * `server.rs` — the router, the static files (embedded), the
//!   WebSocket;
//! * `static/` — `index.html`, `app.js`, `style.css`: plain JavaScript,
//!   no build step. The page draws a 2-D canvas map around the player
//!   that interpolates tangibles along their animation queues, the legend
//!   of classes, the print buffer, a command line (the terminal's syntax,
//!   parsed here in Rust), click-to-walk, the actions nearby tangibles
//!   offer, and the indicators (latency, pending, mispredictions).
//!
//! **Invariants.** A page's message becomes an action only through the
//! same code as a typed line in the terminal (`tui::ui::line_action`) or
//! as a walk/invoke with validated fields, and then a
//! `luprex_net::Command` that the server judges as usual; a malformed one
//! is refused and logged in `server.rs`. Several pages may watch one
//! client: they all show the same player and may all command it.
//!
//! Without a terminal: the web client never touches stdin or the tty; it
//! prints `web view on http://ADDR/` (and, in `play`, `listening on
//! ADDR`) to stdout and runs until Ctrl-C (or it is killed).

pub mod protocol;
pub mod scene;
pub mod server;

use crate::session::{self, Frontend};
use crate::tui::ui::line_action;
use crate::tui::{Action, Status};
use anyhow::Context;
use axum::extract::ws::Utf8Bytes;
use luprex_engine::World;
use luprex_net::ClientCore;
use protocol::PageMsg;
use server::{Published, WebServer};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use tokio::sync::{mpsc as tmpsc, watch};

/// Where `--web` without a value serves.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Lines of the print buffer the page gets.
pub const PRINT_TAIL: usize = 300;
/// How far around the player the page is sent the tangibles.
pub const SCENE_RADIUS: f64 = 24.0;
/// At most this many page messages are taken per frame (the rest wait).
const PER_FRAME: usize = 16;

/// The address of `--web ADDR`: `HOST:PORT`, or a port alone (loopback).
pub fn parse_addr(s: &str) -> anyhow::Result<SocketAddr> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    use std::net::ToSocketAddrs;
    s.to_socket_addrs()
        .with_context(|| format!("--web {s}: not an address (HOST:PORT or PORT)"))?
        .next()
        .with_context(|| format!("--web {s}: no address"))
}

/// Runs the web client: connects to the game server `server` as `name`,
/// serves the page on `bind`, and plays until Ctrl-C. `intro` lines start
/// the print buffer; lines from `notes` are added as they come.
pub fn play(
    bind: SocketAddr,
    server: SocketAddr,
    name: &str,
    secret: &str,
    intro: Vec<String>,
    notes: Option<mpsc::Receiver<String>>,
) -> anyhow::Result<()> {
    let (rt, client) = crate::session::connect(server, name, secret)?;
    let listener = std::net::TcpListener::bind(bind)
        .with_context(|| format!("serving the web view on {bind}"))?;
    let (frames_tx, frames_rx) = watch::channel(Published::default());
    let (inbox_tx, inbox_rx) = tmpsc::channel(server::INBOX);
    let web = WebServer::spawn(listener, frames_rx, inbox_tx)?;
    println!("web view on http://{}/", web.addr);
    tracing::info!(addr = %web.addr, "web view");
    let quit = Arc::new(AtomicBool::new(false));
    {
        let quit = quit.clone();
        rt.spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                quit.store(true, Ordering::Relaxed);
            }
        });
    }
    let mut page = Page::new(frames_tx, inbox_rx, quit);
    let r = rt.block_on(session::run(client, &mut page, intro, notes));
    drop(page);
    web.shutdown();
    r
}

/// The pages as a session's frontend.
pub struct Page {
    lines: VecDeque<String>,
    prints_dirty: bool,
    last_state: String,
    serial: u64,
    published: Published,
    frames: watch::Sender<Published>,
    inbox: tmpsc::Receiver<PageMsg>,
    /// Page messages taken this frame.
    taken: usize,
    quit: Arc<AtomicBool>,
}

impl Page {
    pub fn new(
        frames: watch::Sender<Published>,
        inbox: tmpsc::Receiver<PageMsg>,
        quit: Arc<AtomicBool>,
    ) -> Page {
        Page {
            lines: VecDeque::new(),
            prints_dirty: true,
            last_state: String::new(),
            serial: 0,
            published: Published::default(),
            frames,
            inbox,
            taken: 0,
            quit,
        }
    }

    /// The action of one page message (`Err`: why there is none).
    fn action_of(msg: PageMsg, w: &mut World, player: u64) -> Result<Action, String> {
        match msg {
            PageMsg::Line(text) => line_action(&text, w, player),
            PageMsg::Walk { x, y } => {
                let Some(t) = w.tangibles().get(player) else {
                    return Err("(not in the world yet)".into());
                };
                Ok(Action::Walk([x, y, t.queue.last().pos[2]]))
            }
            PageMsg::Invoke { target, name, args } => Ok(Action::Invoke { target, name, args }),
        }
    }
}

impl Frontend for Page {
    fn push_text(&mut self, text: &str) {
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            self.lines.push_back(line.trim_end_matches('\r').to_owned());
            if self.lines.len() > PRINT_TAIL {
                self.lines.pop_front();
            }
        }
        self.prints_dirty = true;
    }

    fn next_action(&mut self, w: &mut World, player: u64) -> Option<Action> {
        if self.quit.load(Ordering::Relaxed) {
            return Some(Action::Quit);
        }
        while self.taken < PER_FRAME {
            let Ok(msg) = self.inbox.try_recv() else { break };
            self.taken += 1;
            match Page::action_of(msg, w, player) {
                Ok(a) => return Some(a),
                Err(why) => self.push_text(&format!("! {why}")),
            }
        }
        None
    }

    fn show(&mut self, core: &mut ClientCore, status: &Status) -> anyhow::Result<()> {
        self.taken = 0;
        let (player, hz) = (core.player(), core.tick_hz());
        let radius = core.radius().min(SCENE_RADIUS);
        let state = scene::state(core.view(), player, radius, hz, status);
        let state = serde_json::to_string(&state)?;
        let mut changed = false;
        if state != self.last_state {
            self.serial += 1;
            self.published.state = Some((self.serial, Utf8Bytes::from(state.clone())));
            self.last_state = state;
            changed = true;
        }
        if self.prints_dirty {
            self.prints_dirty = false;
            self.serial += 1;
            let msg = protocol::prints(&self.lines);
            self.published.prints = Some((self.serial, Utf8Bytes::from(msg)));
            changed = true;
        }
        if changed {
            self.frames.send_replace(self.published.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lookup::tests::world;
    use luprex_engine::Plain;

    #[test]
    fn addresses() {
        assert_eq!(parse_addr("8080").unwrap(), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(parse_addr("0.0.0.0:9").unwrap(), "0.0.0.0:9".parse().unwrap());
        assert!(parse_addr("nowhere:x").is_err());
    }

    fn page() -> (Page, watch::Receiver<Published>, tmpsc::Sender<PageMsg>) {
        let (ftx, frx) = watch::channel(Published::default());
        let (itx, irx) = tmpsc::channel(8);
        (Page::new(ftx, irx, Arc::new(AtomicBool::new(false))), frx, itx)
    }

    #[test]
    fn page_messages_become_actions_through_the_terminal_syntax() {
        let (mut w, ann) = world();
        let tree = w.tangible_ids()[2];
        let (mut p, _frames, inbox) = page();
        for m in [
            PageMsg::Line("hello all".into()),
            PageMsg::Line("/chop".into()),
            PageMsg::Line("/dance".into()),
            PageMsg::Walk { x: 2.5, y: -1.0 },
            PageMsg::Invoke { target: 9, name: "open".into(), args: vec![Plain::Int(1)] },
        ] {
            inbox.try_send(m).unwrap();
        }
        let say = vec![Plain::Str("hello all".into())];
        let want = [
            Action::Invoke { target: ann, name: "say".into(), args: say },
            Action::Invoke { target: tree, name: "chop".into(), args: vec![] },
            Action::Walk([2.5, -1.0, 0.0]),
            Action::Invoke { target: 9, name: "open".into(), args: vec![Plain::Int(1)] },
        ];
        let got: Vec<Action> = std::iter::from_fn(|| p.next_action(&mut w, ann)).collect();
        assert_eq!(got, want);
        assert_eq!(p.next_action(&mut w, ann), None);
        assert_eq!(p.lines.back().unwrap(), "! nothing near you answers /dance");
        p.quit.store(true, Ordering::Relaxed);
        assert_eq!(p.next_action(&mut w, ann), Some(Action::Quit));
    }

    #[test]
    fn a_frame_takes_at_most_per_frame_messages() {
        let (mut w, ann) = world();
        let (ftx, _frx) = watch::channel(Published::default());
        let (itx, irx) = tmpsc::channel(64);
        let mut p = Page::new(ftx, irx, Arc::new(AtomicBool::new(false)));
        for i in 0..PER_FRAME + 4 {
            itx.try_send(PageMsg::Walk { x: i as f64, y: 0.0 }).unwrap();
        }
        let count =
            |p: &mut Page, w: &mut World| std::iter::from_fn(|| p.next_action(w, ann)).count();
        assert_eq!(count(&mut p, &mut w), PER_FRAME);
        let mut core = ClientCore::new("ann", "s", Vec::new()).unwrap();
        p.show(&mut core, &Status::default()).unwrap();
        assert_eq!(count(&mut p, &mut w), 4, "the rest in the next frame");
    }

    #[test]
    fn frames_are_published_when_they_change() {
        let (mut p, mut frames, _inbox) = page();
        p.push_text("one\ntwo\n");
        p.push_text(&"x\n".repeat(PRINT_TAIL));
        assert_eq!(p.lines.len(), PRINT_TAIL);
        assert_eq!(p.lines.front().unwrap(), "x");
        let core = ClientCore::new("ann", "s", Vec::new());
        let mut core = core.unwrap();
        p.show(&mut core, &Status::default()).unwrap();
        assert!(frames.has_changed().unwrap());
        let f = frames.borrow_and_update().clone();
        let (s1, state) = f.state.unwrap();
        assert!(state.as_str().starts_with(r#"{"t":"state""#), "{}", state.as_str());
        let (_, prints) = f.prints.unwrap();
        assert!(prints.as_str().starts_with(r#"{"t":"prints","lines":["x""#));
        p.show(&mut core, &Status::default()).unwrap();
        assert!(!frames.has_changed().unwrap(), "nothing new, nothing sent");
        p.push_text("three");
        p.show(&mut core, &Status::default()).unwrap();
        let f = frames.borrow_and_update().clone();
        assert_eq!(f.state.unwrap().0, s1, "the same state");
        assert!(f.prints.unwrap().1.as_str().ends_with(r#""three"]}"#));
    }
}
