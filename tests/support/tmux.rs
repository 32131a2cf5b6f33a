//! A real terminal for tests: a detached tmux session of a fixed size
//! running one command, driven as a person would (send-keys) and read
//! back as the screen shows it (capture-pane). Each session has its own
//! tmux server socket (`-L`), so tests never share a server and a test
//! that fails leaves nothing behind (the server is killed on drop).

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// One tmux server with one session, running one command.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Whether tmux can be run here.
    pub fn available() -> bool {
        Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success())
    }

    /// Starts `cmd` (a shell command line) in a `cols` x `rows` terminal,
    /// in directory `cwd`.
    pub fn start(name: &str, cwd: &Path, cols: u16, rows: u16, cmd: &str) -> Tmux {
        let socket = format!("luprex-test-{name}-{}", std::process::id());
        let t = Tmux { socket };
        let status = t
            .tmux()
            .args(["new-session", "-d", "-s", "main", "-x", &cols.to_string()])
            .args(["-y", &rows.to_string(), "-c"])
            .arg(cwd)
            .arg(cmd)
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        // Keep the pane after the command exits, so its last screen can be read.
        let _ = t.tmux().args(["set-option", "-t", "main", "remain-on-exit", "on"]).status();
        t
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"]);
        c
    }

    /// Sends keys as tmux names them (`Up`, `Enter`, `C-c`, `q`...).
    pub fn keys(&self, keys: &[&str]) {
        let status = self.tmux().args(["send-keys", "-t", "main"]).args(keys).status();
        assert!(status.is_ok_and(|s| s.success()), "send-keys {keys:?}");
    }

    /// Types `text` literally (no key names).
    pub fn type_text(&self, text: &str) {
        let status = self.tmux().args(["send-keys", "-t", "main", "-l", text]).status();
        assert!(status.is_ok_and(|s| s.success()), "send-keys -l {text:?}");
    }

    /// The screen, as text lines.
    pub fn screen(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p", "-t", "main"]).output();
        out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default()
    }

    /// Waits until the screen satisfies `pred` (polling), up to `timeout`;
    /// the last screen either way.
    pub fn wait_for(
        &self,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return Ok(s);
            }
            if start.elapsed() > timeout {
                return Err(s);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the screen contains `text`; panics with the screen if not.
    pub fn expect(&self, text: &str, timeout: Duration) -> String {
        self.wait_for(timeout, |s| s.contains(text))
            .unwrap_or_else(|s| panic!("the screen never showed {text:?}; it shows:\n{s}"))
    }

    /// Whether the pane's command has exited.
    pub fn exited(&self) -> bool {
        let out =
            self.tmux().args(["display-message", "-p", "-t", "main", "#{pane_dead}"]).output();
        out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "1")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
    }
}
