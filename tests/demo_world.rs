//! The demo world of `lua/` (Emberfield), driven at the engine level.
//!
//! These tests play the game the way two people would through clients,
//! but talk to `luprex_engine::World` directly: the master admits two
//! players, who walk (animation queues, the fence and the pond), chop and
//! mine (predicted commands that change a tangible's class and sleep while
//! it regrows), craft at the workbench (a thread that sleeps while it
//! works, then awards points in master-only data and publishes the
//! scoreboard), share the chest (items as table graphs with cycles), chat
//! (`tell` into print buffers) and ask the time (`realtime`, answered here
//! with `take_requests`/`answer`, as the server will).
//!
//! One command sequence, [`play`], runs on the master and on the two
//! synchronous models of one client (ServerSync, ClientSync). Without
//! difference transmission those models are seeded by hand with the
//! master's tangibles (class, position, ID pools) and no table data, so
//! they differ from the master; what must hold is that they agree with
//! each other (equal state hashes and prints), and that the master-only
//! steps (the award, `realtime`) are NoPredicts there.
//!
//! A last test edits `tuning.lua` in a scratch copy and reloads it, as a
//! scripter does while clients stay connected.

use luprex_engine::{Model, Plain, ScriptDir, ThreadReportKind, World};
use std::path::{Path, PathBuf};

fn lua_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lua")
}

/// A master World on `dir`, started, with no load report.
fn master(dir: &Path) -> World {
    let mut w = World::from_dir(Model::Master, dir).expect("control.lst is readable");
    let reports = w.take_reports();
    assert!(reports.is_empty(), "{reports:#?}");
    w
}

/// Runs Lua `code` as a probe and gives its first result.
fn probe(w: &mut World, code: &str) -> Plain {
    let r = w.probe(code).unwrap_or_else(|e| panic!("{code}: {e}"));
    r.into_iter().next().unwrap_or(Plain::Nil)
}

/// The class name of tangible `id`.
fn class_of(w: &mut World, id: u64) -> String {
    match probe(w, &format!("return gettangible({id}).__class")) {
        Plain::Str(s) => s,
        other => panic!("tangible {id} has no class: {other:?}"),
    }
}

/// The tangibles of class `class`, ascending.
fn all_of(w: &mut World, class: &str) -> Vec<u64> {
    w.tangible_ids().into_iter().filter(|&id| class_of(w, id) == class).collect()
}

/// How many items of `kind` tangible `id` holds.
fn count(w: &mut World, id: u64, kind: &str) -> i64 {
    match probe(w, &format!("return bag.count(gettangible({id}), '{kind}')")) {
        Plain::Int(n) => n,
        other => panic!("bag.count gave {other:?}"),
    }
}

fn ticks(w: &mut World, n: usize) {
    for _ in 0..n {
        w.tick();
    }
}

/// Player `p` walks to `to` (the built-in walk command), and the clock
/// runs until it arrives (at most 60 ticks). Returns where it ended.
fn walk(w: &mut World, p: u64, to: [f64; 3]) -> [f64; 3] {
    w.walk(p, to).unwrap();
    for _ in 0..60 {
        if !w.tangibles().get(p).unwrap().queue.is_moving() {
            break;
        }
        w.tick();
    }
    w.position(p).unwrap()
}

fn invoke(w: &mut World, actor: u64, target: u64, name: &str, args: &[Plain]) {
    w.invoke(actor, target, name, args).unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn s(text: &str) -> Plain {
    Plain::Str(text.to_owned())
}

/// The players and things of one game.
#[derive(Clone, Copy, Debug)]
struct Cast {
    ann: u64,
    bob: u64,
    tree: u64,
    rock: u64,
    bench: u64,
    chest: u64,
    cat: u64,
}

impl Cast {
    fn of(w: &mut World, ann: u64, bob: u64) -> Cast {
        let first = |w: &mut World, c: &str| all_of(w, c)[0];
        Cast {
            ann,
            bob,
            tree: first(w, "tree"),
            rock: first(w, "rock"),
            bench: first(w, "workbench"),
            chest: first(w, "chest"),
            cat: first(w, "cat"),
        }
    }
}

/// What [`play`] saw on the way (prints per player, for the asserts).
#[derive(Default, Debug)]
struct Seen {
    ann: String,
    bob: String,
    /// Ann's prints right after each step, by step name.
    steps: Vec<(&'static str, String)>,
}

impl Seen {
    fn take(&mut self, w: &mut World, c: &Cast, step: &'static str) {
        let a = w.take_prints(c.ann);
        self.ann.push_str(&a);
        self.bob.push_str(&w.take_prints(c.bob));
        self.steps.push((step, a));
    }

    fn step(&self, name: &str) -> &str {
        &self.steps.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name}")).1
    }
}

/// The game: the same commands on any model. On the master, `realtime`
/// is answered as the server will.
fn play(w: &mut World, c: &Cast) -> Seen {
    let mut seen = Seen::default();
    seen.take(w, c, "start");
    // Ann walks to the tree; chops it into a stump; a stump yields nothing.
    walk(w, c.ann, [7.0, 5.0, 0.0]);
    invoke(w, c.ann, c.tree, "chop", &[]);
    seen.take(w, c, "chop");
    invoke(w, c.ann, c.tree, "chop", &[]);
    seen.take(w, c, "chop stump");
    // The rock, then the bench; Bob comes to the bench too.
    walk(w, c.ann, [9.0, -4.0, 0.0]);
    invoke(w, c.ann, c.rock, "mine", &[]);
    seen.take(w, c, "mine");
    walk(w, c.ann, [4.0, 0.0, 0.0]);
    walk(w, c.bob, [5.0, 1.0, 0.0]);
    invoke(w, c.ann, c.bench, "craft", &[s("torch")]);
    seen.take(w, c, "craft");
    invoke(w, c.bob, c.bench, "craft", &[s("torch")]);
    seen.take(w, c, "bench busy");
    ticks(w, 10);
    seen.take(w, c, "crafted");
    // Ann puts the torch in the chest; Bob takes it out.
    walk(w, c.ann, [-4.0, 0.0, 0.0]);
    walk(w, c.bob, [-5.0, 1.0, 0.0]);
    invoke(w, c.ann, c.chest, "put", &[s("torch")]);
    seen.take(w, c, "put");
    invoke(w, c.bob, c.chest, "open", &[]);
    seen.take(w, c, "open");
    invoke(w, c.bob, c.chest, "take", &[s("torch")]);
    seen.take(w, c, "take");
    // Chat, and a command on someone else's tangible.
    invoke(w, c.ann, c.ann, "say", &[s("hello bob")]);
    seen.take(w, c, "say");
    invoke(w, c.bob, c.ann, "say", &[s("i am ann")]);
    seen.take(w, c, "impostor");
    // The NoPredict command: the server's clock.
    invoke(w, c.ann, c.ann, "time", &[]);
    for req in w.take_requests() {
        assert_eq!((req.name.as_str(), req.actor), ("realtime", Some(c.ann)));
        assert_eq!(req.args, [s("utc")]);
        w.answer(&req, &[s("2026-11-25T12:00:00Z")]).unwrap();
    }
    seen.take(w, c, "time");
    invoke(w, c.bob, c.bob, "scores", &[]);
    seen.take(w, c, "scores");
    // The cat trots off three hops; the stump grows back.
    walk(w, c.ann, [1.0, 2.0, 0.0]);
    invoke(w, c.ann, c.cat, "pet", &[]);
    seen.take(w, c, "pet");
    ticks(w, 40);
    seen.take(w, c, "end");
    seen
}

/// A master with Ann and Bob admitted.
fn game() -> (World, Cast, String) {
    let mut w = master(&lua_dir());
    let ann = w.admit("ann").unwrap();
    let bob = w.admit("bob").unwrap();
    assert!(ann.new && bob.new);
    let welcome = w.take_prints(ann.id);
    let c = Cast::of(&mut w, ann.id, bob.id);
    (w, c, welcome)
}

#[test]
fn the_demo_world_loads_and_plays_on_the_master() {
    let (mut w, c, welcome) = game();
    assert!(welcome.starts_with("Welcome to Emberfield!"), "{welcome}");
    assert!(welcome.contains("bob arrives in Emberfield."), "{welcome}");
    assert_eq!(all_of(&mut w, "tree").len(), 6);
    let seen = play(&mut w, &c);
    assert_eq!(w.take_thread_reports(), [], "no script error, no NoPredict on the master");

    assert_eq!(seen.step("chop"), "You chop 1 wood (you have 1).\n");
    assert_eq!(seen.step("chop stump"), "Nothing left here; it grows back soon.\n");
    assert_eq!(seen.step("mine"), "You mine 1 stone (you have 1).\n");
    assert_eq!(seen.step("craft"), "The workbench starts on your torch (10 ticks)...\n");
    assert!(seen.bob.contains("The workbench is busy making a torch for ann."), "{}", seen.bob);
    assert_eq!(seen.step("crafted"), "Your torch is ready! +1 points (1 in all).\n");
    assert!(seen.bob.contains("ann crafted a torch."));
    assert!(seen.bob.contains("The chest holds 1 torch."));
    assert!(seen.bob.contains("You take a torch from the chest."));
    assert!(seen.ann.contains("bob takes a torch from the chest."));
    assert!(seen.bob.contains("ann: hello bob\n"), "chat reaches bob: {}", seen.bob);
    assert!(!seen.bob.contains("i am ann"));
    assert!(seen.bob.contains("You can only do that as yourself."));
    assert_eq!(seen.step("time"), "The town clock says 2026-11-25T12:00:00Z.\n");
    assert!(seen.bob.contains("Scoreboard:\n1. ann  1\n"), "{}", seen.bob);
    assert!(seen.step("pet").starts_with("Purr."));

    // Ingredients spent, the torch moved ann -> chest -> bob, and the item
    // knows its owner (bob -> bag -> item -> bob is a cycle).
    assert_eq!([count(&mut w, c.ann, "wood"), count(&mut w, c.ann, "stone")], [0, 0]);
    assert_eq!(count(&mut w, c.bob, "torch"), 1);
    assert_eq!(count(&mut w, c.chest, "torch"), 0);
    let owner = format!("local b = gettangible({}) return b.bag[1].owner == b", c.bob);
    assert_eq!(probe(&mut w, &owner), Plain::Bool(true));
    // Scores: master-only data and the published board agree.
    assert_eq!(probe(&mut w, "return global('scores').ann"), Plain::Int(1));
    assert_eq!(probe(&mut w, "return global.get('scoreboard')[1].name"), s("ann"));
    // The stump grew back; the cat's queue carried it off and it arrived.
    assert_eq!(class_of(&mut w, c.tree), "tree");
    assert_eq!(w.position(c.cat), Some([6.0, 5.0, 0.0]));
}

#[test]
fn a_player_who_leaves_sleeps_in_place_until_it_returns() {
    let (mut w, c, _) = game();
    w.depart(c.bob).unwrap();
    assert_eq!(class_of(&mut w, c.bob), "asleep");
    assert_eq!(w.take_prints(c.ann), "bob leaves and falls asleep on the spot.\n");
    invoke(&mut w, c.ann, c.ann, "say", &[s("anyone?")]);
    assert_eq!(w.take_prints(c.ann), "you: anyone?  (nobody is near enough to hear)\n");
    let back = w.admit("bob").unwrap();
    assert_eq!((back.id, back.new), (c.bob, false));
    assert_eq!(class_of(&mut w, c.bob), "player");
    assert_eq!(w.take_prints(c.ann), "bob is back.\n");
    assert!(w.take_prints(c.bob).ends_with(
        "Welcome to Emberfield! Chop trees, mine rocks, craft at the workbench. Type /help.\n"
    ));
    assert_eq!(w.take_thread_reports(), []);
}

#[test]
fn walking_is_animated_and_fenced() {
    let (mut w, c, _) = game();
    let start = w.position(c.ann).unwrap();
    w.walk(c.ann, [start[0] + 4.0, start[1], 0.0]).unwrap();
    w.tick();
    let mid = w.position(c.ann).unwrap();
    assert_eq!(mid, [start[0] + 1.0, start[1], 0.0], "one unit per tick");
    ticks(&mut w, 3);
    assert_eq!(w.position(c.ann).unwrap(), [start[0] + 4.0, start[1], 0.0]);
    // The fence clamps; the pond refuses.
    assert_eq!(walk(&mut w, c.ann, [100.0, -50.0, 0.0]), [20.0, -10.0, 0.0]);
    let before = walk(&mut w, c.ann, [-10.0, -6.0, 0.0]);
    assert_eq!(walk(&mut w, c.ann, [-13.0, -6.0, 0.0]), before);
    assert!(w.take_prints(c.ann).contains("Splash!"));
    // /dance queues four steps and comes back.
    invoke(&mut w, c.ann, c.ann, "dance", &[]);
    assert_eq!(w.tangibles().get(c.ann).unwrap().queue.steps().len(), 5);
    ticks(&mut w, 3);
    assert_eq!(w.position(c.ann).unwrap(), [before[0] + 1.0, before[1] + 0.5, 0.0]);
    ticks(&mut w, 5);
    assert_eq!(w.position(c.ann).unwrap(), before);
}

/// A synchronous model seeded by hand with the master's tangibles (IDs,
/// classes, positions, players' ID pools), as difference transmission will.
fn twin(m: &mut World, model: Model) -> World {
    let mut w = World::new(model).unwrap();
    w.load_dir(ScriptDir::new(lua_dir())).unwrap();
    w.start().unwrap();
    assert_eq!(w.take_reports(), []);
    for id in m.tangible_ids() {
        let class = class_of(m, id);
        w.insert_tangible(id, &class, m.position(id).unwrap()).unwrap();
        let pool = m.tangibles().get(id).unwrap().pool.clone();
        if pool.is_some() {
            assert!(w.set_pool(id, pool));
        }
    }
    w
}

#[test]
fn the_two_synchronous_models_agree() {
    let (mut m, c, _) = game();
    let mut twins = [Model::ServerSync, Model::ClientSync].map(|model| twin(&mut m, model));
    assert_eq!(twins[0].state_hash(), twins[1].state_hash(), "seeded alike");
    let seen: Vec<Seen> = twins.iter_mut().map(|w| play(w, &c)).collect();
    assert_eq!(twins[0].state_hash(), twins[1].state_hash());
    assert_eq!(seen[0].ann, seen[1].ann);
    assert_eq!(seen[0].bob, seen[1].bob);
    for w in &mut twins {
        // The award (global data) and realtime are NoPredicts; nothing else fails.
        let kinds: Vec<ThreadReportKind> =
            w.take_thread_reports().into_iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [ThreadReportKind::NoPredict; 2]);
        assert!(w.take_requests().is_empty(), "a prediction asks the server nothing");
        // What was predicted up to the NoPredict holds: the torch was made
        // and moved to bob; the published board is empty here.
        assert_eq!(count(w, c.bob, "torch"), 1);
        assert_eq!(count(w, c.ann, "wood"), 0);
    }
    let s0 = &seen[0];
    assert_eq!(s0.step("chop"), "You chop 1 wood (you have 1).\n");
    assert_eq!(s0.step("crafted"), "", "killed at the award, before its print");
    assert_eq!(s0.step("time"), "", "NoPredict: the answer comes from the server");
    assert!(s0.bob.contains("No scores yet"), "{}", s0.bob);
    assert_ne!(twins[0].state_hash(), m.state_hash(), "the master has more");
}

/// A scratch copy of `lua/`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("luprex-demo-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(lua_dir()).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        Scratch(dir)
    }

    /// Rewrites `tuning.lua` through `edit`, with a new modification time.
    fn edit_tuning(&self, edit: impl Fn(String) -> String) {
        let p = self.0.join("tuning.lua");
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, edit(text)).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000);
        f.set_modified(t).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn editing_tuning_lua_takes_effect_on_reload() {
    let dir = Scratch::new("reload");
    let mut w = master(&dir.0);
    let ann = w.admit("ann").unwrap().id;
    let c = Cast::of(&mut w, ann, ann);
    walk(&mut w, ann, [7.0, 5.0, 0.0]);
    invoke(&mut w, ann, c.tree, "chop", &[]);
    w.take_prints(ann);
    dir.edit_tuning(|t| {
        t.replace("Welcome to Emberfield!", "Edited while you played!").replace(
            "torch = { needs = { wood = 1, stone = 1 }, ticks = 10",
            "torch = { needs = { wood = 1 }, ticks = 2",
        )
    });
    w.reload().unwrap();
    assert_eq!(w.take_reports(), []);
    assert_eq!(w.script_dir().unwrap().reads_of("tuning.lua"), 2, "only the edited file");
    assert_eq!(w.script_dir().unwrap().reads_of("player.lua"), 1);
    // The player, her wood and the stump's sleeping thread stay.
    assert_eq!(count(&mut w, ann, "wood"), 1);
    walk(&mut w, ann, [4.0, 0.0, 0.0]);
    invoke(&mut w, ann, c.bench, "craft", &[s("torch")]);
    ticks(&mut w, 2);
    let out = w.take_prints(ann);
    assert!(out.contains("(2 ticks)") && out.contains("Your torch is ready!"), "{out}");
    walk(&mut w, ann, [0.0, 0.0, 0.0]);
    let sign = all_of(&mut w, "sign")[0];
    invoke(&mut w, ann, sign, "read", &[]);
    assert!(w.take_prints(ann).starts_with("The sign reads: Edited while you played!"));
    ticks(&mut w, 40);
    assert_eq!(class_of(&mut w, c.tree), "tree", "the regrowing thread survived the reload");
}
