//! The terminal client's user interface (ratatui + crossterm), independent
//! of the network.
//!
//! The client keeps a predicted model of the world (a `World`) and its
//! player's tangible ID; the UI is a function of those plus what the
//! network layer reports (a [`Status`]) and what the server printed for
//! the player (fed to [`Ui::push_text`]). It is split by concern:
//!
//! * `command.rs` — the typed-line syntax and the [`Action`]s the client
//!   sends (walk, invoke a permitted method with plain arguments, quit);
//! * `lookup.rs` — reading classes, glyphs, permissions and the scene
//!   around the player from the World without changing it (its state hash
//!   must stay the server's);
//! * `ui.rs` — [`Ui`], the state (print scrollback, command line, history,
//!   mode) and what each key does;
//! * `render.rs` — drawing it all into a ratatui `Frame`.
//!
//! The loop that owns a terminal (`connect.rs`, for `play` and `connect`) is, per frame:
//! `terminal.draw(|f| render(f, &mut world, player, &ui, &status))`, then
//! for each key event `ui.handle_key(key, &mut world, player)` and send
//! the [`Action`] it returns. Nothing here touches a terminal itself, so
//! all of it is tested with ratatui's `TestBackend` and plain key events.

pub mod command;
pub mod lookup;
pub mod render;
pub mod ui;

pub use command::Action;
pub use render::{render, Connection, Status};
pub use ui::Ui;
