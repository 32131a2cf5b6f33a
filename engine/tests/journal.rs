//! Master persistence (`journal.rs`): a checkpoint plus the journal of
//! events replays to the exact state; damaged tails are reported and cut.

use luprex_engine::{Event, Model, Plain, Store, World};
use std::path::{Path, PathBuf};

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worlds").join(name)
}

/// A scratch directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(test: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("luprex-journal-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Dir(d)
    }
    fn journal(&self) -> PathBuf {
        self.0.join("journal.bin")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn master() -> World {
    let mut w = World::from_dir(Model::Master, scenario("players")).unwrap();
    assert!(w.take_reports().is_empty());
    w
}

/// Applies `e` to the master and appends it to the store, as a server does.
fn apply(w: &mut World, store: &mut Store, e: Event) {
    let _ = w.apply_event(&e);
    store.append(&e).unwrap();
}

/// A session of play: admissions, walks, chat, ticks, a refused command.
fn play(w: &mut World, store: &mut Store, round: u64) {
    apply(w, store, Event::Admit { name: format!("p{round}") });
    let ids: Vec<u64> = w.players().iter().map(|p| p.1).collect();
    for (i, &id) in ids.iter().enumerate() {
        let to = [(i as f64) * 3.0, round as f64, 0.0];
        apply(w, store, Event::Walk { actor: id, to });
        let say = Event::Invoke {
            actor: id,
            target: id,
            function: "say".into(),
            args: vec![Plain::Str(format!("hello {round}"))],
        };
        apply(w, store, say);
        apply(w, store, Event::Tick);
    }
    // Refused (not permitted): refused again on replay, changing nothing.
    let bad =
        Event::Invoke { actor: ids[0], target: ids[0], function: "onjoin".into(), args: vec![] };
    apply(w, store, bad);
}

#[test]
fn replay_gives_the_same_state() {
    let dir = Dir::new("replay");
    let mut w = master();
    let mut store = Store::create(&dir.0, &w).unwrap();
    for round in 0..4 {
        play(&mut w, &mut store, round);
    }
    store.flush(true).unwrap();
    drop(store);
    let (mut store, rec) = Store::open(&dir.0).unwrap();
    assert_eq!(rec.world.state_hash(), w.state_hash());
    assert!(rec.cut.is_none() && !rec.stale_journal);
    assert_eq!(rec.refused, 4, "the four refused commands are refused again");
    assert!(rec.replayed > 20);
    // Appending goes on after the replayed records.
    let mut r = rec.world;
    play(&mut w, &mut store, 9);
    play(&mut r, &mut Store::create(&Dir::new("scratch").0, &master()).unwrap(), 9);
    store.flush(false).unwrap();
    drop(store);
    let (_, rec) = Store::open(&dir.0).unwrap();
    assert_eq!(rec.world.state_hash(), w.state_hash());
    assert_eq!(r.state_hash(), w.state_hash());
}

#[test]
fn a_damaged_tail_is_reported_and_cut() {
    let dir = Dir::new("tail");
    let mut w = master();
    let mut store = Store::create(&dir.0, &w).unwrap();
    play(&mut w, &mut store, 0);
    store.flush(false).unwrap();
    let whole = std::fs::metadata(dir.journal()).unwrap().len();
    let hash = w.state_hash();
    play(&mut w, &mut store, 1);
    store.flush(false).unwrap();
    drop(store);
    // Cut the file in the middle of round 1's first record: round 0 stays.
    let f = std::fs::OpenOptions::new().write(true).open(dir.journal()).unwrap();
    f.set_len(whole + 5).unwrap();
    drop(f);
    let (mut store, rec) = Store::open(&dir.0).unwrap();
    let cut = rec.cut.clone().expect("the tail is reported");
    assert_eq!((cut.at, cut.bytes), (whole, 5));
    assert!(cut.why.contains("truncated"), "{cut}");
    assert_eq!(rec.world.state_hash(), hash);
    assert_eq!(std::fs::metadata(dir.journal()).unwrap().len(), whole, "cut from the file");
    // The store goes on from there.
    let mut w = rec.world;
    play(&mut w, &mut store, 2);
    store.flush(false).unwrap();
    drop(store);
    let (_, rec) = Store::open(&dir.0).unwrap();
    assert!(rec.cut.is_none());
    assert_eq!(rec.world.state_hash(), w.state_hash());
}

#[test]
fn a_corrupt_record_ends_the_journal() {
    let dir = Dir::new("crc");
    let mut w = master();
    let mut store = Store::create(&dir.0, &w).unwrap();
    play(&mut w, &mut store, 0);
    store.flush(false).unwrap();
    let at = std::fs::metadata(dir.journal()).unwrap().len();
    let hash = w.state_hash();
    play(&mut w, &mut store, 1);
    store.flush(false).unwrap();
    drop(store);
    let mut bytes = std::fs::read(dir.journal()).unwrap();
    bytes[at as usize + 9] ^= 0x40; // inside the first payload of round 1
    std::fs::write(dir.journal(), &bytes).unwrap();
    let (_, rec) = Store::open(&dir.0).unwrap();
    let cut = rec.cut.expect("reported");
    assert_eq!(cut.at, at);
    assert!(cut.why.contains("CRC"), "{cut}");
    assert_eq!(rec.world.state_hash(), hash);
}

#[test]
fn checkpoints_start_a_new_journal() {
    let dir = Dir::new("ckpt");
    let mut w = master();
    let mut store = Store::create(&dir.0, &w).unwrap();
    play(&mut w, &mut store, 0);
    let old_journal = {
        store.flush(false).unwrap();
        std::fs::read(dir.journal()).unwrap()
    };
    store.checkpoint(&w).unwrap();
    assert_eq!((store.generation(), store.events_since_checkpoint()), (2, 0));
    assert_eq!(std::fs::metadata(dir.journal()).unwrap().len(), 16, "an empty journal");
    play(&mut w, &mut store, 1);
    store.flush(false).unwrap();
    drop(store);
    let (_, rec) = Store::open(&dir.0).unwrap();
    assert_eq!(rec.world.state_hash(), w.state_hash());
    // A crash between the new checkpoint and its journal leaves the old
    // journal: its events are in the checkpoint already, so it is dropped.
    let mut c = master();
    let mut s = Store::create(&Dir::new("ckpt2").0, &c).unwrap();
    play(&mut c, &mut s, 0);
    std::fs::write(dir.journal(), &old_journal).unwrap();
    let mut store = Store::create(&dir.0, &c).unwrap(); // generation 3
    drop(store);
    std::fs::write(dir.journal(), &old_journal).unwrap(); // generation 1
    let (s2, rec) = Store::open(&dir.0).unwrap();
    assert!(rec.stale_journal && rec.replayed == 0);
    assert_eq!(rec.world.state_hash(), c.state_hash());
    store = s2;
    assert_eq!(store.generation(), 3);
}

#[test]
fn a_damaged_checkpoint_is_an_error() {
    let dir = Dir::new("badckpt");
    let w = master();
    drop(Store::create(&dir.0, &w).unwrap());
    let p = dir.0.join("checkpoint.bin");
    let mut bytes = std::fs::read(&p).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 1;
    std::fs::write(&p, &bytes).unwrap();
    let e = Store::open(&dir.0).unwrap_err().to_string();
    assert!(e.contains("damaged checkpoint: CRC mismatch"), "{e}");
    std::fs::write(&p, &bytes[..20]).unwrap();
    assert!(Store::open(&dir.0).is_err());
}

#[test]
fn answers_replay() {
    let dir = Dir::new("answers");
    let mut w = World::from_dir(Model::Master, scenario("threads")).unwrap();
    for i in 0..4 {
        w.new_tangible("sleeper", [i as f64, 0.0, 0.0]).unwrap();
    }
    assert!(w.make_player(4).unwrap());
    let mut store = Store::create(&dir.0, &w).unwrap();
    apply(
        &mut w,
        &mut store,
        Event::Invoke { actor: 4, target: 1, function: "ask".into(), args: vec![] },
    );
    let reqs = w.take_requests();
    assert_eq!(reqs.len(), 1);
    apply(&mut w, &mut store, Event::answer(&reqs[0], vec![Plain::Str("12:00".into())]));
    assert_eq!(w.take_prints(4), "12:00\n");
    apply(&mut w, &mut store, Event::Tick);
    store.flush(false).unwrap();
    drop(store);
    let (_, rec) = Store::open(&dir.0).unwrap();
    assert_eq!(rec.world.state_hash(), w.state_hash());
    assert_eq!(rec.refused, 0);
}

/// A recording master journals exactly the calls made to it, refused ones
/// included, and the journal replays to its state.
#[test]
fn recorded_events_replay() {
    let dir = Dir::new("record");
    let mut w = master();
    let mut store = Store::create(&dir.0, &w).unwrap();
    w.record_events(true);
    let ann = w.admit("ann").unwrap().id;
    let bob = w.admit("bob").unwrap().id;
    w.walk(ann, [5.0, 5.0, 0.0]).unwrap();
    w.tick();
    w.invoke(bob, bob, "say", &[Plain::Str("hi".into())]).unwrap();
    assert!(w.invoke(bob, ann, "nope", &[]).is_err());
    w.depart(ann).unwrap();
    w.tick();
    let events = w.take_events();
    assert_eq!(events.len(), 8);
    assert_eq!(events[0], Event::Admit { name: "ann".into() });
    assert_eq!(events[7], Event::Tick);
    assert!(w.take_events().is_empty());
    for e in &events {
        store.append(e).unwrap();
    }
    store.flush(false).unwrap();
    drop(store);
    let (_, mut rec) = Store::open(&dir.0).unwrap();
    assert_eq!((rec.replayed, rec.refused), (8, 1));
    assert_eq!(rec.world.state_hash(), w.state_hash());
    assert!(rec.world.take_events().is_empty(), "a replay does not record");
}
