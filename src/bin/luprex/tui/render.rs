//! Drawing the client's screen.
//!
//! ```text
//! ┌ map · tick 120 ───────────────────┐┌ legend ──────────┐
//! │ ·   ·   ·   T   ·   ·             ││ @ you (#3)       │
//! │ ·   ·   @   ·   C   ·             ││ C chest          │
//! │ ...                               ││ Nearby:          │
//! └───────────────────────────────────┘│ #5 chest   2.0   │
//! ┌ messages ─────────────────────────────────────────────┐
//! │ Welcome to Emberfield! ...                            │
//! └───────────────────────────────────────────────────────┘
//! ┌ command ──────────────────────────────────────────────┐
//! │ > /craft torch_                                       │
//! └───────────────────────────────────────────────────────┘
//!  connected │ latency 42 ms │ pending 1 │ mispredicted 0
//! ```
//!
//! The map is top-down with north up and the player at the centre cell;
//! one world unit is one row and two columns (terminal cells are about
//! twice as tall as wide, so the map keeps its proportions). A tangible
//! is drawn at its position rounded relative to the player, with its
//! class's glyph (`lookup.rs`); where several share a cell the player
//! wins, then other players, then the lowest ID. The player is shown
//! reversed and bold; other players in bold.
//!
//! Everything here is a pure function of (`Scene`, `Ui`, `Status`) and
//! the frame's size; [`render`] captures the scene from the World first.

use super::lookup::{Scene, Thing};
use super::ui::Ui;
use luprex_engine::World;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// The connection's state, as the status line shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Connection {
    #[default]
    Connecting,
    Connected,
    /// Lost, with the reason.
    Lost(String),
}

/// The indicators the network client supplies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub connection: Connection,
    /// Round-trip time to the server (`None`: not measured yet).
    pub latency_ms: Option<u32>,
    /// Commands sent and predicted, not yet acknowledged.
    pub pending: usize,
    /// Predictions the server's results contradicted, since connecting.
    pub mispredictions: u64,
}

/// The regions of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub map: Rect,
    pub legend: Rect,
    pub prints: Rect,
    pub input: Rect,
    pub status: Rect,
}

/// Splits the screen (see the module docs).
pub fn layout(area: Rect) -> Areas {
    let [top, prints, input, status] = Layout::vertical([
        Constraint::Percentage(60),
        Constraint::Min(3),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let [map, legend] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(24)]).areas(top);
    Areas { map, legend, prints, input, status }
}

/// The map's inside (its border removed).
pub fn map_inner(map: Rect) -> Rect {
    Block::bordered().inner(map)
}

/// The screen cell of the player: the middle of the map's inside, on an
/// even column (two columns per unit).
pub fn map_center(inner: Rect) -> Position {
    let units = inner.width / 2;
    Position::new(inner.x + (units / 2) * 2, inner.y + inner.height / 2)
}

/// How far from the player the map reaches (its half-diagonal, in units).
fn map_radius(inner: Rect) -> f64 {
    let (w, h) = (f64::from(inner.width / 2) / 2.0, f64::from(inner.height) / 2.0);
    (w * w + h * h).sqrt() + 1.0
}

/// Draws the whole screen for `player` in the client's model `w`.
pub fn render(frame: &mut Frame<'_>, w: &mut World, player: u64, ui: &Ui, status: &Status) {
    let areas = layout(frame.area());
    let scene = Scene::capture(w, player, map_radius(map_inner(areas.map)));
    draw(frame, &areas, &scene, ui, status);
}

/// Draws the screen from a captured scene.
pub fn draw(frame: &mut Frame<'_>, areas: &Areas, scene: &Scene, ui: &Ui, status: &Status) {
    draw_map(frame, areas.map, scene);
    frame.render_widget(legend(scene, areas.legend.height), areas.legend);
    frame.render_widget(prints(ui, areas.prints.height), areas.prints);
    frame.render_widget(input(ui), areas.input);
    frame.render_widget(Paragraph::new(status_line(status, scene)), areas.status);
}

/// Which of two things sharing a cell is drawn: higher wins.
fn rank(t: &Thing, player: u64) -> (u8, std::cmp::Reverse<u64>) {
    let r = if t.id == player {
        2
    } else if t.class == "player" {
        1
    } else {
        0
    };
    (r, std::cmp::Reverse(t.id))
}

fn draw_map(frame: &mut Frame<'_>, area: Rect, scene: &Scene) {
    let title = format!(" map · tick {} ", scene.tick);
    frame.render_widget(Block::bordered().title(title), area);
    let inner = map_inner(area);
    let Some(center) = scene.center else {
        let msg = Paragraph::new("waiting for the world...");
        frame.render_widget(msg, inner);
        return;
    };
    let buf = frame.buffer_mut();
    for y in inner.top()..inner.bottom() {
        for x in (inner.left()..inner.right()).step_by(2) {
            buf[(x, y)].set_symbol("·").set_style(Style::new().add_modifier(Modifier::DIM));
        }
    }
    let mut things: Vec<&Thing> = scene.things.iter().collect();
    things.sort_by_key(|t| rank(t, scene.player));
    for t in things {
        if let Some(cell) = map_cell(inner, center, t.pos) {
            buf[cell].set_char(t.glyph).set_style(glyph_style(t, scene.player));
        }
    }
}

/// The screen cell of world position `pos` on a map whose inside is
/// `inner`, centred on `center` (`None`: off the map).
pub fn map_cell(inner: Rect, center: [f64; 3], pos: [f64; 3]) -> Option<Position> {
    let c = map_center(inner);
    let dx = (pos[0] - center[0]).round();
    let dy = (pos[1] - center[1]).round();
    let x = f64::from(c.x) + 2.0 * dx;
    let y = f64::from(c.y) - dy;
    let inside = x >= f64::from(inner.left())
        && x < f64::from(inner.right())
        && y >= f64::from(inner.top())
        && y < f64::from(inner.bottom());
    inside.then(|| Position::new(x as u16, y as u16))
}

fn glyph_style(t: &Thing, player: u64) -> Style {
    if t.id == player {
        Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
    } else if t.class == "player" {
        Style::new().add_modifier(Modifier::BOLD)
    } else {
        Style::new()
    }
}

/// The legend: the player, one line per class on the map, then the
/// nearest things with their IDs (for `/name@ID` and `/give #ID`).
fn legend(scene: &Scene, height: u16) -> Paragraph<'static> {
    let mut lines = Vec::new();
    if let Some(me) = scene.me() {
        let you = format!("{} you (#{})", me.glyph, me.id);
        lines.push(Line::styled(you, Style::new().add_modifier(Modifier::BOLD)));
    }
    let mut classes: Vec<(&str, char)> =
        scene.things.iter().map(|t| (t.class.as_str(), t.glyph)).collect();
    classes.sort_unstable();
    classes.dedup();
    lines.extend(classes.iter().map(|(c, g)| Line::raw(format!("{g} {c}"))));
    lines.push(Line::raw("Nearby:"));
    let room = usize::from(height.saturating_sub(2)).saturating_sub(lines.len());
    let near = scene.things.iter().filter(|t| t.id != scene.player).take(room);
    lines.extend(near.map(|t| Line::raw(format!("#{} {} {:.1}", t.id, t.class, t.dist))));
    Paragraph::new(lines).block(Block::bordered().title(" legend "))
}

/// The print buffer: the last lines that fit, `ui.scroll()` lines up.
fn prints(ui: &Ui, height: u16) -> Paragraph<'static> {
    let rows = usize::from(height.saturating_sub(2));
    let all = ui.lines();
    let end = all.len().saturating_sub(ui.scroll());
    let start = end.saturating_sub(rows);
    let lines: Vec<Line<'static>> = all.range(start..end).map(|l| Line::raw(l.clone())).collect();
    let title = match ui.scroll() {
        0 => " messages ".to_owned(),
        n => format!(" messages (scrolled up {n}; PageDown) "),
    };
    Paragraph::new(lines).block(Block::bordered().title(title))
}

/// The command line, or the keys' help in walk mode.
fn input(ui: &Ui) -> Paragraph<'static> {
    let block = Block::bordered().title(" command ");
    if ui.typing() {
        return Paragraph::new(format!("> {}_", ui.input())).block(block);
    }
    let help = "arrows/WASD walk · Enter or t: chat · /: command · q: quit";
    Paragraph::new(Line::styled(help, Style::new().add_modifier(Modifier::DIM))).block(block)
}

/// The indicators: connection, latency, pending predictions,
/// mispredictions, and where the player is.
pub fn status_line(status: &Status, scene: &Scene) -> String {
    let conn = match &status.connection {
        Connection::Connecting => "connecting...".to_owned(),
        Connection::Connected => "connected".to_owned(),
        Connection::Lost(why) => format!("disconnected: {why}"),
    };
    let latency = status.latency_ms.map_or("latency -".to_owned(), |l| format!("latency {l} ms"));
    let at = scene.center.map_or(String::new(), |p| format!(" │ at {:.0},{:.0}", p[0], p[1]));
    format!(
        " {conn} │ {latency} │ pending {} │ mispredicted {}{at}",
        status.pending, status.mispredictions
    )
}

#[cfg(test)]
mod tests {
    use super::super::lookup::tests::world;
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;
    use ratatui::Terminal;

    fn screen(w: &mut World, player: u64, ui: &Ui, status: &Status) -> Buffer {
        let mut term = Terminal::new(TestBackend::new(80, 30)).unwrap();
        term.draw(|f| render(f, w, player, ui, status)).unwrap();
        term.backend().buffer().clone()
    }

    /// The screen's text, one string per row.
    fn rows(buf: &Buffer) -> Vec<String> {
        let a = buf.area;
        (a.top()..a.bottom())
            .map(|y| (a.left()..a.right()).map(|x| buf[(x, y)].symbol()).collect())
            .collect()
    }

    fn status() -> Status {
        Status {
            connection: Connection::Connected,
            latency_ms: Some(42),
            pending: 2,
            mispredictions: 1,
        }
    }

    #[test]
    fn the_player_is_at_the_centre_and_things_around_it() {
        let (mut w, ann) = world();
        let buf = screen(&mut w, ann, &Ui::new(), &status());
        let c = map_center(map_inner(layout(buf.area).map));
        assert_eq!(buf[c].symbol(), "@");
        assert!(buf[c].modifier.contains(Modifier::REVERSED | Modifier::BOLD), "highlighted");
        assert_eq!(buf[(c.x + 6, c.y)].symbol(), "T", "the tree at (3, 0)");
        assert_eq!(buf[(c.x - 4, c.y - 1)].symbol(), "T", "the tree at (-2, 1)");
        assert_eq!(buf[(c.x, c.y - 2)].symbol(), "r", "the rock at (0, 2)");
        assert_eq!(buf[(c.x + 2, c.y)].symbol(), "·");
        let inner = map_inner(layout(buf.area).map);
        let on_map = (inner.top()..inner.bottom())
            .flat_map(|y| (inner.left()..inner.right()).map(move |x| (x, y)))
            .filter(|&xy| buf[xy].symbol() == "T")
            .count();
        assert_eq!(on_map, 2, "the tree at (50, 0) is off the map");
        // The map follows the player.
        w.move_to(ann, [3.0, 0.0, 0.0], 0).unwrap();
        let buf = screen(&mut w, ann, &Ui::new(), &status());
        assert_eq!(buf[c].symbol(), "@", "the player is drawn over the tree");
        assert_eq!(buf[(c.x - 6, c.y)].symbol(), "·", "nothing left where ann was");
    }

    #[test]
    fn legend_prints_command_line_and_indicators() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        ui.push_text("Welcome to the test world.\nsecond line\n");
        let text = rows(&screen(&mut w, ann, &ui, &status())).join("\n");
        let rock = format!("#{} rock 2.0", w.tangible_ids()[3]);
        let you = format!("@ you (#{ann})");
        for want in [you.as_str(), "T tree", "r rock", "@ player", "Nearby:", rock.as_str()] {
            assert!(text.contains(want), "legend {want:?} in\n{text}");
        }
        assert!(text.contains("Welcome to the test world.") && text.contains("second line"));
        let line = " connected │ latency 42 ms │ pending 2 │ mispredicted 1 │ at 0,0";
        assert!(text.lines().last().unwrap().starts_with(line), "{text}");
        assert!(text.contains("arrows/WASD walk"));
        // Typing shows the line; a lost connection shows why.
        let mut p = ui.clone();
        for c in "/chop".chars() {
            let k = ratatui::crossterm::event::KeyEvent::from(
                ratatui::crossterm::event::KeyCode::Char(c),
            );
            p.handle_key(k, &mut w, ann);
        }
        let lost = Status { connection: Connection::Lost("timeout".into()), ..status() };
        let text = rows(&screen(&mut w, ann, &p, &lost)).join("\n");
        assert!(text.contains("> /chop_"), "{text}");
        assert!(text.contains("disconnected: timeout │ latency 42 ms"));
    }

    #[test]
    fn the_print_buffer_shows_the_last_lines_and_scrolls() {
        let (mut w, ann) = world();
        let mut ui = Ui::new();
        for i in 0..40 {
            ui.push_text(&format!("line {i}"));
        }
        let text = rows(&screen(&mut w, ann, &ui, &status())).join("\n");
        assert!(text.contains("line 39") && !text.contains("line 30 "), "{text}");
        let page_up = ratatui::crossterm::event::KeyCode::PageUp.into();
        ui.handle_key(page_up, &mut w, ann);
        let text = rows(&screen(&mut w, ann, &ui, &status())).join("\n");
        assert!(text.contains("line 29") && !text.contains("line 39"), "{text}");
        assert!(text.contains("scrolled up 10"));
    }

    #[test]
    fn world_positions_to_map_cells() {
        let inner = Rect::new(1, 1, 21, 9); // 10 units wide: centre column 11
        let at = |x: f64, y: f64| map_cell(inner, [0.5, 0.0, 0.0], [x, y, 0.0]);
        assert_eq!(map_center(inner), Position::new(11, 5));
        assert_eq!(at(0.5, 0.0), Some(Position::new(11, 5)));
        assert_eq!(at(3.0, 1.0), Some(Position::new(17, 4)), "2.5 rounds away from zero");
        assert_eq!(at(-4.5, -4.0), Some(Position::new(1, 9)));
        assert_eq!(at(-5.5, 0.0), None, "west of the map");
        assert_eq!(at(0.0, 5.0), None, "north of the map");
        assert_eq!(at(f64::NAN, 0.0), None);
    }

    #[test]
    fn before_the_player_exists() {
        let (mut w, _) = world();
        let text = rows(&screen(&mut w, 999, &Ui::new(), &Status::default())).join("\n");
        assert!(text.contains("waiting for the world..."));
        assert!(text.contains("connecting... │ latency -"));
    }

    #[test]
    fn the_demo_world_on_screen() {
        let lua = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
        let mut w = World::from_dir(luprex_engine::Model::Master, lua).unwrap();
        let ann = w.admit("ann").unwrap().id;
        let text = rows(&screen(&mut w, ann, &Ui::new(), &status())).join("\n");
        for want in ["? sign", "C chest", "W workbench", "c cat", "T tree", "@ you"] {
            assert!(text.contains(want), "{want:?} in\n{text}");
        }
    }
}
