//! Rejected frames: a malformed or inconsistent frame is refused with an
//! error and leaves the client model exactly as it was (state hash
//! unchanged); the good frame still applies afterwards. Divergences are
//! reported with the pass that found them.

use luprex_engine::diff::{
    self, CreateTangible, DiffError, Frame, Key, Options, Pass, Radii, Reject, Sets, TangibleOp,
    Target, Transmitter, Val, WireStep,
};
use luprex_engine::{Model, SourceFile, World};

const SRC: &str = "makeclass('thing')\nmakeclass('person')\n";

struct Setup {
    master: World,
    sync: World,
    client: World,
    tx: Transmitter,
    t1: u64,
}

fn setup() -> Setup {
    let mut master = World::new(Model::Master).unwrap();
    master.load_sources(&[SourceFile::new("main.lua", SRC)]).unwrap();
    master.start().unwrap();
    let p = master.new_tangible("person", [0.0; 3]).unwrap();
    master.make_player(p).unwrap();
    let t1 = master.new_tangible("thing", [5.0, 0.0, 0.0]).unwrap();
    master
        .exec(
            "=s",
            &format!(
                "local t = gettangible({t1}); local A = {{x = 1, s = 'str'}}
                 A.self = A; t.a = A; t.n = 3; global.set('g', {{A}})"
            ),
        )
        .unwrap();
    let opts = Options { verify_state_hash: true, incremental: true };
    Setup {
        master,
        sync: World::new(Model::ServerSync).unwrap(),
        client: World::new(Model::ClientSync).unwrap(),
        tx: Transmitter::new(p, Radii { visibility: 50.0, close: 50.0 }, opts),
        t1,
    }
}

fn next_frame(s: &mut Setup) -> Frame {
    let t = s.tx.frame(&mut s.master, &mut s.sync, None).unwrap();
    assert!(t.reports.is_empty());
    t.frame
}

/// `bytes` must be rejected and leave the client unchanged.
fn rejected(client: &mut World, bytes: &[u8]) -> DiffError {
    let before = client.state_hash();
    let e = diff::apply_bytes(client, bytes).expect_err("the frame must be rejected");
    assert_eq!(client.state_hash(), before, "a rejected frame changed the client: {e}");
    e
}

#[test]
fn truncated_frames_are_rejected() {
    let mut s = setup();
    let bytes = next_frame(&mut s).encode();
    for n in 0..bytes.len() {
        let e = rejected(&mut s.client, &bytes[..n]);
        assert!(matches!(e, DiffError::Decode(_)), "{n}: {e}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(rejected(&mut s.client, &long), DiffError::Decode(_)));
    diff::apply_bytes(&mut s.client, &bytes).unwrap();
    assert_eq!(s.client.state_hash(), s.sync.state_hash());
}

#[test]
fn corrupted_bytes_never_change_a_rejecting_client() {
    let mut s = setup();
    let bytes = next_frame(&mut s).encode();
    let mut errors = 0;
    for i in 0..bytes.len() {
        for x in [0xff, 0x01, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= x;
            let snap = s.client.snapshot().unwrap();
            let before = s.client.state_hash();
            if diff::apply_bytes(&mut s.client, &b).is_err() {
                errors += 1;
                assert_eq!(s.client.state_hash(), before, "byte {i} ^ {x:#x}");
            }
            s.client.rollback(&snap).unwrap();
            s.client.release(snap).unwrap();
        }
    }
    // The state hash check at the end of the frame catches most
    // corruptions that decode.
    assert!(errors > bytes.len() * 2, "{errors} of {}", bytes.len() * 3);
    diff::apply_bytes(&mut s.client, &bytes).unwrap();
    assert_eq!(s.client.state_hash(), s.sync.state_hash());
}

#[test]
fn inconsistent_messages_are_rejected_by_pass() {
    let mut s = setup();
    let good = next_frame(&mut s);
    let g = |f: &mut Frame| f.graph.as_mut().unwrap().clone();
    let cases: Vec<(Frame, Pass)> = vec![
        {
            // An unknown table number.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.tables.push(Sets { target: Target::Table(9999), rewrite: false, sets: vec![] });
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A value naming an unknown table.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.tables[0].sets.push((Key::Str(b"bad".to_vec()), Val::Table(77)));
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A rewrite naming a key twice (the client cannot lay it out).
            let mut f = good.clone();
            let mut gr = g(&mut f);
            let k = Key::Str(b"k".to_vec());
            let sets = vec![(k.clone(), Val::Int(1)), (Key::Int(5), Val::Int(2)), (k, Val::Int(3))];
            gr.reorder.push(Sets { target: Target::Table(1), rewrite: true, sets });
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A rewrite with a NaN key, and one with the metatable key.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            let sets =
                vec![(Key::Int(1), Val::Int(1)), (Key::Float(f64::NAN.to_bits()), Val::Int(2))];
            gr.reorder.push(Sets { target: Target::Table(1), rewrite: true, sets });
            gr.reorder.push(Sets {
                target: Target::Table(1),
                rewrite: true,
                sets: vec![(Key::Metatable, Val::Nil)],
            });
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A NaN key.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.tables[0].sets.push((Key::Float(f64::NAN.to_bits()), Val::Int(1)));
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A metatable on a tangible database.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            let i = gr.dbs.iter().position(|d| matches!(d.target, Target::Tangible(_))).unwrap();
            gr.dbs[i].sets.push((Key::Metatable, Val::Table(1)));
            f.graph = Some(gr);
            (f, Pass::TangibleDifferences)
        },
        {
            // A metatable that is not a table.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.tables[0].sets.push((Key::Metatable, Val::Int(3)));
            f.graph = Some(gr);
            (f, Pass::TableContents)
        },
        {
            // A tangible that does not exist.
            let mut f = good.clone();
            f.tangibles.push(TangibleOp::Delete(424242));
            (f, Pass::CreateAndDeleteTangibles)
        },
        {
            // A tangible created twice.
            let mut f = good.clone();
            let c = f.tangibles.iter().find_map(|t| match t {
                TangibleOp::Create(c) => Some(c.clone()),
                _ => None,
            });
            f.tangibles.push(TangibleOp::Create(c.unwrap()));
            (f, Pass::CreateAndDeleteTangibles)
        },
        {
            // An unknown class.
            let mut f = good.clone();
            let queue = vec![WireStep { tick: 0, pos: [900.0, 0.0, 0.0] }];
            f.tangibles.push(TangibleOp::Create(CreateTangible {
                id: 999,
                class: "nope".into(),
                queue,
            }));
            (f, Pass::CreateAndDeleteTangibles)
        },
        {
            // A queue with decreasing ticks.
            let mut f = good.clone();
            let q = vec![
                WireStep { tick: 5, pos: [0.0; 3] },
                WireStep { tick: 2, pos: [1.0, 0.0, 0.0] },
            ];
            f.player.queue = Some(q);
            (f, Pass::UpdatePlayerPosition)
        },
        {
            // A non-finite coordinate.
            let mut f = good.clone();
            f.player.queue = Some(vec![WireStep { tick: 0, pos: [f64::INFINITY, 0.0, 0.0] }]);
            (f, Pass::UpdatePlayerPosition)
        },
        {
            // More tables created than referenced.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.new_tables += 1_000_000;
            f.graph = Some(gr);
            (f, Pass::NumberRemainingTables)
        },
        {
            // Wrong close-list hash.
            let mut f = good.clone();
            f.close_hash ^= 1;
            (f, Pass::CloseTangibleList)
        },
        {
            // Wrong numbering hash.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.numbering_hash ^= 1;
            f.graph = Some(gr);
            (f, Pass::NumberClientTables)
        },
        {
            // A value changed in transit: caught by the state hash.
            let mut f = good.clone();
            let mut gr = g(&mut f);
            gr.dbs.last_mut().unwrap().sets.push((Key::Str(b"n".to_vec()), Val::Int(4)));
            f.graph = Some(gr);
            (f, Pass::StateHash)
        },
    ];
    for (i, (f, pass)) in cases.into_iter().enumerate() {
        let e = rejected(&mut s.client, &f.encode());
        let got = match &e {
            DiffError::Rejected { pass, .. } => *pass,
            DiffError::Desync(r) => r.pass,
            e => panic!("case {i}: {e}"),
        };
        assert_eq!(got, pass, "case {i}: {e}");
    }
    assert!(matches!(
        rejected(&mut s.client, &{
            let mut f = good.clone();
            f.tangibles.push(TangibleOp::Delete(424242));
            f.encode()
        }),
        DiffError::Rejected { reason: Reject::UnknownTangible(424242), .. }
    ));
    diff::apply(&mut s.client, &good).unwrap();
    assert_eq!(s.client.state_hash(), s.sync.state_hash());
}

#[test]
fn a_diverged_client_gets_a_desync_report_naming_the_pass() {
    let mut s = setup();
    let f = next_frame(&mut s);
    diff::apply(&mut s.client, &f).unwrap();
    // The client model diverges (a table the server does not know of).
    let t1 = s.t1;
    s.client.exec("=diverge", &format!("gettangible({t1}).extra = {{}}")).unwrap();
    s.master.exec("=m", &format!("gettangible({t1}).n = 4")).unwrap();
    let f = next_frame(&mut s);
    let before = s.client.state_hash();
    match diff::apply(&mut s.client, &f) {
        Err(DiffError::Desync(r)) => assert_eq!(r.pass, Pass::NumberClientTables, "{r}"),
        r => panic!("{r:?}"),
    }
    assert_eq!(s.client.state_hash(), before);
    // A clock mismatch is named too.
    s.client.tick();
    match diff::apply(&mut s.client, &f) {
        Err(DiffError::Desync(r)) => assert_eq!(r.pass, Pass::Clock, "{r}"),
        r => panic!("{r:?}"),
    }
}

/// The clock is not transmitted: the host ticks each synchronous model in
/// step with the master. A frame carries the master's tick; the server
/// refuses to compute a frame for a ServerSync model at another tick
/// (`DiffError::Clock`, the model unchanged, the transmitter usable once
/// the host catches up), and the client refuses a frame of another tick
/// (a desync of pass `Clock`, the model unchanged). Ticked in step, with
/// tangibles walking across ticks, frames keep the models equal.
#[test]
fn the_clock_is_checked_on_both_sides_not_corrected() {
    let mut s = setup();
    let f = next_frame(&mut s);
    assert_eq!(f.now, s.master.now());
    diff::apply(&mut s.client, &f).unwrap();
    // The master ticks; the ServerSync model does not.
    s.master.tick();
    let before = s.sync.state_hash();
    match s.tx.frame(&mut s.master, &mut s.sync, None) {
        Err(DiffError::Clock { master, sync }) => {
            assert_eq!((master, sync), (s.master.now(), s.master.now() - 1))
        }
        r => panic!("{r:?}"),
    }
    assert_eq!(s.sync.state_hash(), before);
    // The host catches up; the client has not ticked yet.
    s.sync.tick();
    let f = next_frame(&mut s);
    assert_eq!(f.now, s.master.now());
    let before = s.client.state_hash();
    match diff::apply(&mut s.client, &f) {
        Err(DiffError::Desync(r)) => assert_eq!(r.pass, Pass::Clock, "{r}"),
        r => panic!("{r:?}"),
    }
    assert_eq!(s.client.state_hash(), before);
    s.client.tick();
    diff::apply(&mut s.client, &f).unwrap();
    assert_eq!(s.client.state_hash(), s.sync.state_hash());
    // A walk over several ticks, out of the close radius and back, every model ticked in step; two frames a tick (the second
    // finds nothing changed but the clock), each checked against a full
    // re-walk.
    s.tx.check_incremental(true);
    let t1 = s.t1;
    for (x, ticks) in [(100.0, 6), (5.0, 4)] {
        s.master.move_to(t1, [x, 0.0, 0.0], ticks).unwrap();
        for _ in 0..ticks + 2 {
            for _ in 0..2 {
                let f = next_frame(&mut s);
                diff::apply(&mut s.client, &f).unwrap();
                assert_eq!(s.client.state_hash(), s.sync.state_hash());
                // Within the visibility radius the client has it where the
                // master has it (outside, pass 2 leaves it be: both models
                // move it alike).
                let (m, c) = (s.master.position(t1), s.client.position(t1));
                if m.unwrap()[0] <= 50.0 {
                    assert_eq!(c, m);
                }
            }
            for w in [&mut s.master, &mut s.sync, &mut s.client] {
                w.tick();
            }
        }
    }
}
