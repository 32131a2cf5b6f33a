//! The client's UI state and what keys do.
//!
//! The UI has two modes, as games with a chat line do. In *walk mode*
//! the arrow keys and W/A/S/D walk, `q` and Esc quit, and Enter, `t` or
//! `/` open the command line (`/` typed into it). In *typing mode* keys
//! edit the line, Up/Down recall history, Enter sends the line (and goes
//! back to walk mode), Esc abandons it. Ctrl-C quits in either mode;
//! PageUp/PageDown scroll the print buffer in either.
//!
//! A walk goes one step (one unit) from where the player is headed: the
//! last step of its animation queue in the client's model, rounded to the
//! grid, so pressing a key repeatedly while walking walks on. North (Up,
//! W) is +y, east (Right, D) is +x, matching the map.
//!
//! A sent line becomes an [`Action`] (`command.rs` for the syntax,
//! `lookup.rs` for the target). Lines that cannot become one (a syntax
//! error, a command nothing near permits) are answered in the print
//! buffer and send nothing. The UI never changes the World: it reads it.
//!
//! [`Ui`] is plain state with no terminal in it, so every key's effect is
//! tested directly; `render.rs` draws it.

use super::command::{parse_line, Action, Typed, CHAT};
use super::lookup::resolve_target;
use luprex_engine::{Plain, World};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::collections::VecDeque;

/// Lines kept in the print buffer's scrollback.
pub const SCROLLBACK: usize = 1000;
/// Lines kept in the command history.
pub const HISTORY: usize = 100;

/// The UI's state: the print buffer, the command line, its history.
#[derive(Clone, Debug, Default)]
pub struct Ui {
    lines: VecDeque<String>,
    /// How many lines the view is scrolled back from the bottom.
    scroll: usize,
    typing: bool,
    input: String,
    history: Vec<String>,
    /// The history entry being shown (`None`: the line being typed).
    recall: Option<usize>,
    /// What was being typed before Up recalled history.
    draft: String,
}

impl Ui {
    pub fn new() -> Ui {
        Ui::default()
    }

    /// Appends text to the print buffer (split into lines; a final
    /// newline ends the last line).
    pub fn push_text(&mut self, text: &str) {
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            self.lines.push_back(line.trim_end_matches('\r').to_owned());
            if self.lines.len() > SCROLLBACK {
                self.lines.pop_front();
            }
        }
    }

    pub fn lines(&self) -> &VecDeque<String> {
        &self.lines
    }

    pub fn scroll(&self) -> usize {
        self.scroll
    }

    pub fn typing(&self) -> bool {
        self.typing
    }

    pub fn input(&self) -> &str {
        &self.input
    }

    /// What key `key` does, for `player` in the client's model `w`.
    pub fn handle_key(&mut self, key: KeyEvent, w: &mut World, player: u64) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => Some(Action::Quit),
            KeyCode::PageUp => self.scroll_by(10),
            KeyCode::PageDown => self.scroll_by(-10),
            _ if self.typing => self.typing_key(key.code, w, player),
            _ => self.walking_key(key.code, w, player),
        }
    }

    fn scroll_by(&mut self, n: isize) -> Option<Action> {
        let max = self.lines.len().saturating_sub(1);
        self.scroll = self.scroll.saturating_add_signed(n).min(max);
        None
    }

    fn walking_key(&mut self, code: KeyCode, w: &mut World, player: u64) -> Option<Action> {
        let step = match code {
            KeyCode::Up | KeyCode::Char('w' | 'W') => [0.0, 1.0],
            KeyCode::Down | KeyCode::Char('s' | 'S') => [0.0, -1.0],
            KeyCode::Left | KeyCode::Char('a' | 'A') => [-1.0, 0.0],
            KeyCode::Right | KeyCode::Char('d' | 'D') => [1.0, 0.0],
            KeyCode::Char('q' | 'Q') | KeyCode::Esc => return Some(Action::Quit),
            KeyCode::Enter | KeyCode::Char('t' | 'T') => return self.open_line(""),
            KeyCode::Char('/') => return self.open_line("/"),
            _ => return None,
        };
        let Some(t) = w.tangibles().get(player) else {
            self.push_text("(not in the world yet)");
            return None;
        };
        let [x, y, z] = t.queue.last().pos;
        Some(Action::Walk([x.round() + step[0], y.round() + step[1], z]))
    }

    fn open_line(&mut self, start: &str) -> Option<Action> {
        self.typing = true;
        self.input = start.to_owned();
        self.recall = None;
        None
    }

    fn typing_key(&mut self, code: KeyCode, w: &mut World, player: u64) -> Option<Action> {
        match code {
            KeyCode::Char(c) => self.input.push(c),
            KeyCode::Backspace => {
                self.input.pop();
            }
            KeyCode::Esc => {
                self.typing = false;
                self.input.clear();
            }
            KeyCode::Up => self.recall_older(),
            KeyCode::Down => self.recall_newer(),
            KeyCode::Enter => return self.submit(w, player),
            _ => {}
        }
        None
    }

    fn recall_older(&mut self) {
        let i = match self.recall {
            None if self.history.is_empty() => return,
            None => {
                self.draft = std::mem::take(&mut self.input);
                self.history.len() - 1
            }
            Some(i) => i.saturating_sub(1),
        };
        self.recall = Some(i);
        self.input = self.history[i].clone();
    }

    fn recall_newer(&mut self) {
        let Some(i) = self.recall else { return };
        if i + 1 < self.history.len() {
            self.recall = Some(i + 1);
            self.input = self.history[i + 1].clone();
        } else {
            self.recall = None;
            self.input = std::mem::take(&mut self.draft);
        }
    }

    /// Sends the typed line: back to walk mode, into history, and the
    /// action it makes (if any).
    fn submit(&mut self, w: &mut World, player: u64) -> Option<Action> {
        self.typing = false;
        self.recall = None;
        let line = std::mem::take(&mut self.input);
        if line.trim().is_empty() {
            return None;
        }
        if self.history.last() != Some(&line) {
            self.history.push(line.clone());
            if self.history.len() > HISTORY {
                self.history.remove(0);
            }
        }
        self.scroll = 0;
        match line_action(&line, w, player) {
            Ok(a) => Some(a),
            Err(why) => {
                self.push_text(&format!("! {why}"));
                None
            }
        }
    }
}

/// The action of a typed line typed by `player` (`Err`: why it makes
/// none): the syntax of `command.rs`, the target of `lookup.rs`. The
/// terminal's command line and the web view's share it.
pub fn line_action(line: &str, w: &mut World, player: u64) -> Result<Action, String> {
    match parse_line(line)? {
        Typed::Chat(text) => Ok(Action::Invoke {
            target: player,
            name: CHAT.to_owned(),
            args: vec![Plain::Str(text)],
        }),
        Typed::Command { name, target, args } => {
            let target = match target {
                Some(t) => t,
                None => resolve_target(w, player, &name)
                    .ok_or_else(|| format!("nothing near you answers /{name}"))?,
            };
            Ok(Action::Invoke { target, name, args })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lookup::tests::world;
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    /// Types `text` and presses Enter, in walk mode.
    fn send(ui: &mut Ui, w: &mut World, p: u64, text: &str) -> Option<Action> {
        assert_eq!(ui.handle_key(key(KeyCode::Enter), w, p), None);
        for c in text.chars() {
            assert_eq!(ui.handle_key(key(KeyCode::Char(c)), w, p), None);
        }
        ui.handle_key(key(KeyCode::Enter), w, p)
    }

    #[test]
    fn arrows_and_wasd_walk_one_step_from_where_the_player_is_headed() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        let k = |ui: &mut Ui, w: &mut World, c| ui.handle_key(key(c), w, ann);
        assert_eq!(k(&mut ui, &mut w, KeyCode::Up), Some(Action::Walk([0.0, 1.0, 0.0])));
        assert_eq!(k(&mut ui, &mut w, KeyCode::Char('s')), Some(Action::Walk([0.0, -1.0, 0.0])));
        assert_eq!(k(&mut ui, &mut w, KeyCode::Left), Some(Action::Walk([-1.0, 0.0, 0.0])));
        assert_eq!(k(&mut ui, &mut w, KeyCode::Char('D')), Some(Action::Walk([1.0, 0.0, 0.0])));
        // Headed for (4.2, -3): the next step goes on from (4, -3).
        w.move_to(ann, [4.2, -3.0, 0.0], 10).unwrap();
        assert_eq!(k(&mut ui, &mut w, KeyCode::Right), Some(Action::Walk([5.0, -3.0, 0.0])));
        assert_eq!(k(&mut ui, &mut w, KeyCode::Char('x')), None);
        assert_eq!(ui.handle_key(key(KeyCode::Up), &mut w, 999), None, "no such player");
        assert_eq!(ui.lines().back().map(String::as_str), Some("(not in the world yet)"));
    }

    #[test]
    fn quitting() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        for c in [KeyCode::Char('q'), KeyCode::Esc] {
            assert_eq!(ui.handle_key(key(c), &mut w, ann), Some(Action::Quit));
        }
        ui.handle_key(key(KeyCode::Enter), &mut w, ann);
        assert_eq!(ui.handle_key(key(KeyCode::Char('q')), &mut w, ann), None, "typed");
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(ui.handle_key(ctrl_c, &mut w, ann), Some(Action::Quit));
    }

    #[test]
    fn typed_lines_become_commands_or_chat() {
        let (mut w, ann) = world();
        let tree = w.tangible_ids()[2];
        let mut ui = Ui::new();
        let chat = send(&mut ui, &mut w, ann, "hello all");
        let say = |t: &str| vec![Plain::Str(t.into())];
        let want = Action::Invoke { target: ann, name: "say".into(), args: say("hello all") };
        assert_eq!(chat, Some(want));
        assert!(!ui.typing(), "back to walk mode");
        let chop = send(&mut ui, &mut w, ann, "/chop 2");
        let want = Action::Invoke { target: tree, name: "chop".into(), args: vec![Plain::Int(2)] };
        assert_eq!(chop, Some(want));
        let at = send(&mut ui, &mut w, ann, "/chop@5");
        assert_eq!(at, Some(Action::Invoke { target: 5, name: "chop".into(), args: vec![] }));
        assert_eq!(send(&mut ui, &mut w, ann, "/dance"), None);
        assert_eq!(ui.lines().back().unwrap(), "! nothing near you answers /dance");
        assert_eq!(send(&mut ui, &mut w, ann, "/say \"x"), None);
        assert!(ui.lines().back().unwrap().contains("not closed"));
        assert_eq!(send(&mut ui, &mut w, ann, "   "), None);
    }

    #[test]
    fn slash_opens_the_line_with_a_slash_and_esc_abandons_it() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        ui.handle_key(key(KeyCode::Char('/')), &mut w, ann);
        assert!(ui.typing());
        assert_eq!(ui.input(), "/");
        ui.handle_key(key(KeyCode::Char('x')), &mut w, ann);
        ui.handle_key(key(KeyCode::Backspace), &mut w, ann);
        ui.handle_key(key(KeyCode::Backspace), &mut w, ann);
        assert_eq!(ui.input(), "");
        ui.handle_key(key(KeyCode::Char('z')), &mut w, ann);
        assert_eq!(ui.handle_key(key(KeyCode::Esc), &mut w, ann), None);
        assert!(!ui.typing() && ui.input().is_empty());
    }

    #[test]
    fn up_and_down_recall_history() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        for line in ["one", "two", "two", "three"] {
            send(&mut ui, &mut w, ann, line);
        }
        ui.handle_key(key(KeyCode::Enter), &mut w, ann);
        ui.handle_key(key(KeyCode::Char('d')), &mut w, ann);
        let mut k = |ui: &mut Ui, c| {
            ui.handle_key(key(c), &mut w, ann);
            ui.input().to_owned()
        };
        assert_eq!(k(&mut ui, KeyCode::Up), "three");
        assert_eq!(k(&mut ui, KeyCode::Up), "two", "a repeated line is kept once");
        assert_eq!(k(&mut ui, KeyCode::Up), "one");
        assert_eq!(k(&mut ui, KeyCode::Up), "one");
        assert_eq!(k(&mut ui, KeyCode::Down), "two");
        assert_eq!(k(&mut ui, KeyCode::Down), "three");
        assert_eq!(k(&mut ui, KeyCode::Down), "d", "back to the draft");
    }

    #[test]
    fn the_print_buffer_splits_lines_keeps_scrollback_and_scrolls() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        ui.push_text("a\nb\n");
        ui.push_text("c");
        assert_eq!(ui.lines(), &["a", "b", "c"]);
        for i in 0..SCROLLBACK {
            ui.push_text(&format!("{i}\n"));
        }
        assert_eq!(ui.lines().len(), SCROLLBACK);
        assert_eq!(ui.lines().front().unwrap(), "0");
        ui.handle_key(key(KeyCode::PageUp), &mut w, ann);
        assert_eq!(ui.scroll(), 10);
        ui.handle_key(key(KeyCode::PageDown), &mut w, ann);
        ui.handle_key(key(KeyCode::PageDown), &mut w, ann);
        assert_eq!(ui.scroll(), 0);
    }
}
