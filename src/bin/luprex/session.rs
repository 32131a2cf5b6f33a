//! The client loop that the terminal client and the web view share.
//!
//! A client session is one thread with a current-thread tokio runtime (a
//! World is not `Send`, so the [`Client`] and its predicted model stay on
//! it). Each frame, about 20 a second, [`run`] pumps the network for
//! 50 ms (applying the server's batches to the predicted World), turns
//! the client core's events into the indicators ([`Status`]), moves the
//! player's prints and the notes (a local server's reload reports) into
//! the frontend's print buffer, asks the frontend for the player's
//! [`Action`]s one by one and sends each as a command, and has the
//! frontend show the frame. What differs between the terminal and the browser is only the
//! [`Frontend`]: where actions come from and where frames go.
//!
//! Invariants: the frontend only *reads* the World (`tui::lookup`), so
//! the predicted model's state hash stays the server's; every command
//! sent goes through [`Client::command`], so the server judges it as any
//! other; a lost connection is shown (and commands refused with a note)
//! until the frontend quits.
//!
//! Indicators: latency is the time from sending a command to its
//! acknowledgement (the last one), pending is the commands predicted and
//! not yet acknowledged, mispredictions the client core's count.

use crate::tui::{Action, Connection, Status};
use luprex_engine::World;
use luprex_net::client::Client;
use luprex_net::{ClientCore, ClientEvent, Command};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where a session's actions come from and its frames go.
pub trait Frontend {
    /// Appends text to the print buffer (lines split at `\n`).
    fn push_text(&mut self, text: &str);
    /// The player's next action of this frame (`None`: no more until the
    /// next frame); an [`Action::Quit`] ends the session. Each action is
    /// sent (and predicted) before the next is asked for, so that the
    /// next one is read from a model that includes it (two steps typed
    /// in one frame walk two steps). Reads `w`, never changes it.
    fn next_action(&mut self, w: &mut World, player: u64) -> Option<Action>;
    /// Shows one frame of the client's model and indicators.
    fn show(&mut self, core: &mut ClientCore, status: &Status) -> anyhow::Result<()>;
}

/// The client thread's runtime and a session with the server at `addr`
/// as `name` (what the terminal client and the web view both start with).
pub fn connect(
    addr: std::net::SocketAddr,
    name: &str,
    secret: &str,
) -> anyhow::Result<(tokio::runtime::Runtime, Client)> {
    use anyhow::Context;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let core = ClientCore::new(name, secret, Vec::new())?;
    let client = rt
        .block_on(Client::connect(addr, core, Duration::from_secs(15)))
        .with_context(|| format!("connecting to {addr} as {name}"))?;
    Ok((rt, client))
}

/// The command an action sends (`None`: quitting).
pub fn command_of(action: Action) -> Option<Command> {
    match action {
        Action::Walk(to) => Some(Command::Walk { to }),
        Action::Invoke { target, name, args } => {
            Some(Command::Invoke { target, function: name, args })
        }
        Action::Quit => None,
    }
}

/// Runs the session until the frontend quits (or fails to show a frame).
/// `intro` lines start the print buffer; lines from `notes` are added as
/// they come.
pub async fn run(
    mut client: Client,
    ui: &mut impl Frontend,
    intro: Vec<String>,
    notes: Option<mpsc::Receiver<String>>,
) -> anyhow::Result<()> {
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
        while let Some(action) = ui.next_action(client.core().view(), player) {
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
        ui.show(client.core(), &status)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use luprex_engine::Plain;

    #[test]
    fn actions_become_the_commands_the_server_judges() {
        assert_eq!(
            command_of(Action::Walk([1.0, 2.0, 0.0])),
            Some(Command::Walk { to: [1.0, 2.0, 0.0] })
        );
        let invoke = Action::Invoke { target: 7, name: "chop".into(), args: vec![Plain::Int(2)] };
        let want =
            Command::Invoke { target: 7, function: "chop".into(), args: vec![Plain::Int(2)] };
        assert_eq!(command_of(invoke), Some(want));
        assert_eq!(command_of(Action::Quit), None);
    }
}
