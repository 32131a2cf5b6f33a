//! The terminal client as a person uses it: tmux runs `luprex play` on a
//! scratch copy of the demo world in a real (pseudo-)terminal, keys are
//! sent to it, and the screen is read back (`support/tmux.rs`).
//!
//! One scenario, because each step needs the previous one: ann starts
//! `play`, which shows its listen address in the message pane; bob
//! connects to it from a second tmux session; ann walks east (her
//! position on the status line changes), chats (bob's screen shows the
//! line), tries to craft at the workbench and chops (the world's answers
//! show in her message pane), edits `tuning.lua` (the server reloads it
//! while both stay connected; the sign reads the new text), and quits (the process exits and restores
//! the terminal). tmux is required: without it the test fails and says
//! so (CI installs it, `.ci/run`).

#[path = "support/packages.rs"]
mod packages;
#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/tmux.rs"]
mod tmux;

use std::time::Duration;
use tmux::Tmux;

const WAIT: Duration = Duration::from_secs(10);

/// The player's position on the status line (`│ at X,Y`).
fn position(screen: &str) -> Option<(i64, i64)> {
    let line = screen.lines().rev().find(|l| l.contains("│ at "))?;
    let at = line.rsplit("│ at ").next()?.trim();
    let (x, y) = at.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The address `play` shows (`listening on ADDR`).
fn address(screen: &str) -> Option<String> {
    let rest = screen.split("listening on ").nth(1)?;
    Some(rest.split_whitespace().next()?.to_owned())
}

/// The ID in the legend's `@ you (#ID)`.
fn you_id(screen: &str) -> Option<String> {
    let at = screen.find("you (#")? + "you (#".len();
    let rest = &screen[at..];
    Some(rest[..rest.find(')')?].to_owned())
}

/// The distance the legend shows for `#ID player D`.
fn distance(screen: &str, id: &str) -> Option<String> {
    let key = format!("#{id} player ");
    let at = screen.find(&key)? + key.len();
    let d: String = screen[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (!d.is_empty()).then_some(d)
}

#[test]
fn play_walk_chat_craft_and_a_second_client() {
    packages::ensure(&[("tmux", "tmux")]).unwrap_or_else(|e| panic!("{e}"));
    assert!(Tmux::available(), "this test needs tmux (apt-get install tmux; .ci/run installs it)");
    let dir = scratch::scratch_world("tui-tmux");
    let bin = env!("CARGO_BIN_EXE_luprex");
    let ann =
        Tmux::start("ann", &dir, 110, 36, &format!("{bin} play {} --name ann", dir.display()));
    let screen = ann.expect("listening on ", WAIT);
    let addr = address(&screen).unwrap_or_else(|| panic!("no address on\n{screen}"));
    let screen = ann
        .wait_for(WAIT, |s| position(s).is_some())
        .unwrap_or_else(|s| panic!("ann never appeared in the world:\n{s}"));
    let (x0, y0) = position(&screen).unwrap();
    assert!(screen.contains("Welcome to Emberfield"), "{screen}");

    let bob = Tmux::start("bob", &dir, 110, 36, &format!("{bin} connect {addr} --name bob"));
    bob.wait_for(WAIT, |s| position(s).is_some())
        .unwrap_or_else(|s| panic!("bob never appeared in the world:\n{s}"));
    ann.expect("bob arrives in Emberfield", WAIT);

    // Bob's legend lists ann among the nearest things, with her distance.
    let ann_id = you_id(&screen).unwrap_or_else(|| panic!("no '@ you (#ID)' on\n{screen}"));
    let before = bob
        .wait_for(WAIT, |s| distance(s, &ann_id).is_some())
        .map(|s| distance(&s, &ann_id).unwrap())
        .unwrap_or_else(|s| panic!("bob does not list ann (#{ann_id}):\n{s}"));

    // Walking: three steps east.
    for _ in 0..3 {
        ann.keys(&["Right"]);
        std::thread::sleep(Duration::from_millis(150));
    }
    let moved = ann
        .wait_for(WAIT, |s| position(s) == Some((x0 + 3, y0)))
        .unwrap_or_else(|s| panic!("ann did not walk from {x0},{y0} to {},{y0}:\n{s}", x0 + 3));
    assert!(moved.contains("connected │ latency"), "{moved}");
    // The second client sees her move: her distance on bob's screen changes.
    bob.wait_for(WAIT, |s| distance(s, &ann_id).is_some_and(|d| d != before))
        .unwrap_or_else(|s| panic!("bob never saw ann (#{ann_id}) move from {before}:\n{s}"));

    // Chat: bob hears it.
    ann.keys(&["Enter"]);
    ann.type_text("hello bob");
    ann.keys(&["Enter"]);
    ann.expect("you: hello bob", WAIT);
    bob.expect("ann: hello bob", WAIT);

    // Crafting at the workbench (two steps away) with empty hands, then
    // chopping where there is no tree.
    ann.keys(&["/"]);
    ann.type_text("craft torch");
    ann.keys(&["Enter"]);
    ann.expect("A torch needs", WAIT);
    ann.keys(&["/"]);
    ann.type_text("chop");
    ann.keys(&["Enter"]);
    let answers = ["nothing near you answers /chop", "the tree", "You chop", "grows back"];
    ann.wait_for(WAIT, |s| answers.iter().any(|a| s.contains(a)))
        .unwrap_or_else(|s| panic!("no answer to /chop:\n{s}"));

    // Editing the scripts while both are connected: the master reloads
    // and the sign reads the new text.
    let tuning = dir.join("tuning.lua");
    let text = std::fs::read_to_string(&tuning).unwrap();
    let text = text.replace("Welcome to Emberfield!", "Welcome to Edited Emberfield!");
    std::fs::write(&tuning, text).unwrap();
    ann.expect("(reloaded", WAIT);
    // To the sign at (0, 1): west to x = 1, north to y = 0 (within reach).
    let (x, y) = (x0 + 3, y0);
    for _ in 0..(x - 1).max(0) {
        ann.keys(&["Left"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..(0 - y).max(0) {
        ann.keys(&["Up"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    let to = ((x - (x - 1).max(0)), y + (0 - y).max(0));
    ann.wait_for(WAIT, |s| position(s) == Some(to))
        .unwrap_or_else(|s| panic!("ann did not walk to {to:?}:\n{s}"));
    ann.keys(&["/"]);
    ann.type_text("read");
    ann.keys(&["Enter"]);
    ann.expect("The sign reads: Welcome to Edited Emberfield!", WAIT);

    // Quitting ends play (server and client).
    ann.keys(&["q"]);
    ann.wait_for(WAIT, |_| ann.exited()).unwrap_or_else(|s| panic!("play did not exit:\n{s}"));
    bob.expect("connection lost", WAIT);
    let _ = std::fs::remove_dir_all(&dir);
}
