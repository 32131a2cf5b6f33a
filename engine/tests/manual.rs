//! The scripter's manual, `docs/SCRIPTING.md`, checked against the
//! engine: every Lua block in it compiles, and the blocks marked
//! `<!-- example: NAME -->` are joined, in document order, into a file
//! `NAME.lua` that is loaded verbatim into a World and exercised here.

use luprex_engine::raw::State;
use luprex_engine::{Model, Plain, SourceFile, ThreadReportKind, World, WorldLimits};
use std::collections::BTreeMap;

/// The Lua blocks of the manual: (line, example name if marked, code).
fn blocks() -> Vec<(usize, Option<String>, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SCRIPTING.md");
    let text = std::fs::read_to_string(path).expect("docs/SCRIPTING.md");
    let mut out = Vec::new();
    let mut mark: Option<String> = None;
    let mut open: Option<(usize, Option<String>, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some((_, _, code)) = open.as_mut() {
            if line.trim_end() == "```" {
                out.push(open.take().expect("open block"));
            } else {
                code.push_str(line);
                code.push('\n');
            }
        } else if let Some(name) =
            line.strip_prefix("<!-- example: ").and_then(|l| l.strip_suffix(" -->"))
        {
            mark = Some(name.to_owned());
        } else if line.trim_end() == "```lua" {
            open = Some((i + 1, mark.take(), String::new()));
        } else if !line.trim().is_empty() {
            mark = None;
        }
    }
    assert!(open.is_none(), "an unterminated ```lua block");
    out
}

/// The marked examples, joined per name.
fn examples() -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = BTreeMap::new();
    for (_, name, code) in blocks() {
        if let Some(name) = name {
            m.entry(name).or_default().push_str(&code);
        }
    }
    m
}

/// A master World holding example `name` as its one file, no reports.
fn world(name: &str) -> World {
    let code = examples().remove(name).unwrap_or_else(|| panic!("no example '{name}'"));
    let mut w = World::new(Model::Master).unwrap();
    w.load_sources(&[SourceFile::new(format!("{name}.lua"), code)]).unwrap();
    let r = w.take_reports();
    assert!(r.is_empty(), "{r:#?}");
    w.start().unwrap();
    w
}

#[test]
fn every_lua_block_compiles() {
    let all = blocks();
    assert!(all.len() >= 20, "the manual has its examples ({})", all.len());
    for (line, _, code) in all {
        let mut st = State::new();
        let name = format!("=SCRIPTING.md:{line}");
        if let Err(e) = st.load(code.as_bytes(), name.as_bytes()) {
            panic!("the block at docs/SCRIPTING.md:{line} does not compile: {e}\n{code}");
        }
    }
}

#[test]
fn threads_examples() {
    let mut w = world("threads");
    let a = w.new_tangible("sleeper", [0.0; 3]).unwrap();
    let p = w.new_tangible("sleeper", [0.0; 3]).unwrap();
    assert!(w.make_player(p).unwrap());
    let s = |x: &str| Plain::Str(x.to_owned());

    // 4.1: sleep.
    w.spawn(a, "nap", &[s("a"), Plain::Int(2), Plain::Int(2)]).unwrap();
    for _ in 0..4 {
        w.tick();
    }
    assert_eq!(w.take_output(), "a@2\na@4\n");

    // 4.2: fork: the child runs in the same pass, sleeps 2.
    w.spawn(a, "forker", &[]).unwrap();
    w.tick();
    assert_eq!(w.take_output(), "");
    w.tick();
    assert_eq!(w.take_output(), "child\tx\ty\n");

    // 4.3, 4.4: a permitted command, its actor, its printed results.
    assert!(w.invoke(p, a, "nap", &[]).is_err(), "nap is not permitted");
    w.invoke(p, a, "who", &[]).unwrap();
    assert_eq!(w.take_prints(p), format!("actor\t{p}\n"));
    w.tick();
    assert_eq!(w.take_prints(p), "result\t42\n");

    // 4.5: realtime, answered by the host.
    let tid = w.spawn(a, "ask", &[]).unwrap();
    let r = w.take_requests();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].name.as_str(), r[0].thread, &r[0].args), ("realtime", tid, &vec![s("utc")]));
    w.answer(&r[0], &[s("2026-11-25T12:00:00Z")]).unwrap();
    assert!(w.threads_of(a).is_empty());

    // 4.6: a runaway is stopped and reported; the world goes on.
    w.set_limits(WorldLimits { per_run: 50_000, ..WorldLimits::default() });
    w.invoke(p, a, "who", &[]).unwrap();
    w.spawn(a, "forever", &[]).unwrap();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0].kind, ThreadReportKind::Limit);
    w.tick();
    assert_eq!(w.take_prints(p), format!("actor\t{p}\nresult\t42\n"));
}

#[test]
fn players_examples() {
    let mut w = world("players");
    let ann = w.admit("ann").unwrap();
    assert!(ann.new);
    assert_eq!(w.take_prints(ann.id), "welcome ann\n");
    assert_eq!(w.position(ann.id), Some([10.0, 0.0, 0.0]));
    w.walk(ann.id, [200.0, 0.0, 0.0]).unwrap();
    w.tick();
    assert_eq!(w.position(ann.id), Some([10.0, 0.0, 0.0]), "the east wall");
    w.walk(ann.id, [10.0, 10.0, 0.0]).unwrap();
    for _ in 0..5 {
        w.tick();
    }
    assert_eq!(w.position(ann.id), Some([10.0, 10.0, 0.0]), "10 units at 2 per tick");
    w.depart(ann.id).unwrap();
    assert_eq!(w.take_prints(ann.id), "bye ann\n");
    let back = w.admit("ann").unwrap();
    assert_eq!((back.id, back.new), (ann.id, false));
    assert_eq!(w.position(ann.id), Some([10.0, 10.0, 0.0]), "a return keeps the position");
    assert!(w.take_thread_reports().is_empty());
}
