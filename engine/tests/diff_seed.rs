//! The scenario of seed 000 ("Multipass Difference Transmission"), step by
//! step: tangibles T1 and T2 share table A, A and B point to each other;
//! the player stands near T1, warps to T2, then stands halfway.

use luprex_engine::diff::{self, Frame, Options, Radii, Transmitter};
use luprex_engine::{Model, Plain, SourceFile, World};

const SRC: &str = "local thing = makeclass('thing')\nthing.kind = 'thing'\n\
                   local person = makeclass('person')\nperson.kind = 'person'\n";

struct Setup {
    master: World,
    sync: World,
    client: World,
    tx: Transmitter,
    t1: u64,
    t2: u64,
}

fn setup() -> Setup {
    let mut master = World::new(Model::Master).unwrap();
    master.load_sources(&[SourceFile::new("main.lua", SRC)]).unwrap();
    master.start().unwrap();
    let player = master.new_tangible("person", [0.0, 0.0, 0.0]).unwrap();
    assert!(master.make_player(player).unwrap());
    let t1 = master.new_tangible("thing", [10.0, 0.0, 0.0]).unwrap();
    let t2 = master.new_tangible("thing", [1000.0, 0.0, 0.0]).unwrap();
    master
        .exec(
            "=setup",
            &format!(
                "local t1, t2 = gettangible({t1}), gettangible({t2})
                 local A, B = {{name = 'A'}}, {{name = 'B'}}
                 A.b = B; B.a = A
                 t1.a = A; t2.a = A"
            ),
        )
        .unwrap();
    let opts = Options { verify_state_hash: true, incremental: true };
    let tx = Transmitter::new(player, Radii { visibility: 600.0, close: 600.0 }, opts);
    Setup {
        master,
        sync: World::new(Model::ServerSync).unwrap(),
        client: World::new(Model::ClientSync).unwrap(),
        tx,
        t1,
        t2,
    }
}

/// One frame: computed, encoded, decoded and applied; the two synchronous
/// models must then have equal state hashes.
fn frame(s: &mut Setup) -> Frame {
    let t = s.tx.frame(&mut s.master, &mut s.sync, None).unwrap();
    assert!(t.reports.is_empty(), "{:?}", t.reports);
    let bytes = t.frame.encode();
    assert_eq!(Frame::decode(&bytes).unwrap(), t.frame);
    diff::apply_bytes(&mut s.client, &bytes).unwrap();
    assert_eq!(s.sync.state_hash(), s.client.state_hash(), "ServerSync and ClientSync differ");
    t.frame
}

fn probe(w: &mut World, code: &str) -> Vec<Plain> {
    w.probe(code).unwrap_or_else(|e| panic!("{code}: {e}"))
}

fn b(v: bool) -> Plain {
    Plain::Bool(v)
}

#[test]
fn seed_scenario_step_by_step() {
    let mut s = setup();
    let (t1, t2) = (s.t1, s.t2);

    // Step 1: the player is next to T1. T1, A and B are created; T2 is not.
    let f = frame(&mut s);
    let g = f.graph.as_ref().expect("the first frame runs the table passes");
    assert_eq!(g.new_tables, 2, "A and B are created");
    let r = probe(
        &mut s.client,
        &format!(
            "local t1 = gettangible({t1})
             return gettangible({t2}) == nil, t1.a.name, t1.a.b.name, t1.a.b.a == t1.a,
                    getmetatable(t1) == 'tangible'"
        ),
    );
    assert_eq!(r, [b(true), Plain::Str("A".into()), Plain::Str("B".into()), b(true), b(true)]);
    let a1 = probe(&mut s.client, &format!("return tostring(gettangible({t1}).a)"));

    // Nothing changed: the next frame carries nothing.
    let f = frame(&mut s);
    assert!(f.is_empty(), "{f:?}");
    assert!(f.graph.is_none(), "the incremental path skips the table passes");

    // Step 2: the player warps to T2. "Updated A" and "updated B" are
    // created for T2; T1 keeps its obsolete copy and is not updated.
    let player = s.tx.player();
    s.master.move_to(player, [1000.0, 0.0, 0.0], 0).unwrap();
    let f = frame(&mut s);
    assert_eq!(f.graph.as_ref().unwrap().new_tables, 2, "updated A and B are created");
    let r = probe(
        &mut s.client,
        &format!(
            "local t1, t2 = gettangible({t1}), gettangible({t2})
             return t1 ~= nil, t2.a ~= t1.a, t2.a.name, t2.a.b.name, t2.a.b.a == t2.a,
                    t1.a.b.a == t1.a"
        ),
    );
    assert_eq!(
        r,
        [b(true), b(true), Plain::Str("A".into()), Plain::Str("B".into()), b(true), b(true)]
    );
    assert_eq!(probe(&mut s.client, &format!("return tostring(gettangible({t1}).a)")), a1);

    // The master changes A while the player is away: T1's copy stays
    // obsolete, T2's is updated.
    s.master.exec("=edit", &format!("gettangible({t2}).a.name = 'A2'")).unwrap();
    frame(&mut s);
    let r =
        probe(&mut s.client, &format!("return gettangible({t1}).a.name, gettangible({t2}).a.name"));
    assert_eq!(r, [Plain::Str("A".into()), Plain::Str("A2".into())]);

    // Step 3: halfway, both are visible: both point to the same A, which
    // points to B, which points back to A; no table needs creating.
    s.master.move_to(player, [505.0, 0.0, 0.0], 0).unwrap();
    let f = frame(&mut s);
    assert_eq!(f.graph.as_ref().unwrap().new_tables, 0);
    let r = probe(
        &mut s.client,
        &format!(
            "local t1, t2 = gettangible({t1}), gettangible({t2})
             return t1.a == t2.a, t1.a.name, t1.a.b.a == t1.a, t2.a.b.name"
        ),
    );
    assert_eq!(r, [b(true), Plain::Str("A2".into()), b(true), Plain::Str("B".into())]);
    assert!(frame(&mut s).is_empty());
}

#[test]
fn tangibles_leave_and_values_cross() {
    let mut s = setup();
    let (t1, t2) = (s.t1, s.t2);
    s.master
        .exec(
            "=values",
            &format!(
                "local t1 = gettangible({t1})
                 t1.n, t1.f, t1.s, t1.yes = 7, 2.5, 'str', true
                 t1.fn = function() end               -- sent as nil
                 t1.other = gettangible({t2})          -- not visible: nil
                 t1.cls = thing                        -- class by name
                 t1.t = setmetatable({{x = 1}}, thing) -- class as a metatable
                 t1.t[t1] = 'non-sortable key: ignored'
                 global.set('motd', {{text = 'hello'}})"
            ),
        )
        .unwrap();
    frame(&mut s);
    let r = probe(
        &mut s.client,
        &format!(
            "local t1 = gettangible({t1})
             return t1.n, t1.f, t1.s, t1.yes, t1.fn, t1.other, t1.cls == thing,
                    getmetatable(t1.t) == thing, t1.t.x, next(t1.t, 'x'),
                    global.get('motd').text"
        ),
    );
    assert_eq!(
        r,
        [
            Plain::Int(7),
            Plain::Float(2.5),
            Plain::Str("str".into()),
            b(true),
            Plain::Nil,
            Plain::Nil,
            b(true),
            b(true),
            Plain::Int(1),
            Plain::Nil,
            Plain::Str("hello".into()),
        ]
    );
    // Deletions and key order: the master deletes and re-inserts keys.
    s.master
        .exec(
            "=order",
            &format!(
                "local t1 = gettangible({t1})
                 t1.n = nil; t1.s = nil; t1.s = 'again'; t1.f = nil; t1.f = 3"
            ),
        )
        .unwrap();
    frame(&mut s);
    let order = "local t = gettangible(ID); local ks = {}
                 for k in pairs(t) do ks[#ks + 1] = tostring(k) end
                 return table.concat(ks, ',')";
    let code = order.replace("ID", &t1.to_string());
    let m = probe(&mut s.master, &code);
    let mut m = match &m[0] {
        Plain::Str(s) => s.split(',').map(str::to_owned).collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    // The master's function-valued and invisible keys are not transmitted.
    m.retain(|k| k != "fn" && k != "other");
    assert_eq!(probe(&mut s.client, &code), [Plain::Str(m.join(","))]);
    // The class changes (pass 9).
    let kind = format!("return gettangible({t1}).kind");
    assert_eq!(probe(&mut s.client, &kind), [Plain::Str("thing".into())]);
    s.master.set_class(t1, "person").unwrap();
    frame(&mut s);
    assert_eq!(probe(&mut s.client, &kind), [Plain::Str("person".into())]);
    // The tangible leaves the visibility radius on the master: the union
    // of the two scans still holds it, so its queue is corrected (the seed
    // deletes only tangibles the master no longer has).
    s.master.move_to(t1, [5000.0, 0.0, 0.0], 0).unwrap();
    frame(&mut s);
    assert_eq!(s.client.position(t1), Some([5000.0, 0.0, 0.0]));
    s.master.move_to(t1, [1.0, 0.0, 0.0], 0).unwrap();
    frame(&mut s);
    let r = probe(&mut s.client, &format!("local t = gettangible({t1}); return t.kind, t.t.x"));
    assert_eq!(r, [Plain::Str("person".into()), Plain::Int(1)]);
    // Destroyed on the master while visible: deleted on the client.
    assert!(s.master.destroy_tangible(t1));
    frame(&mut s);
    assert_eq!(probe(&mut s.client, &format!("return gettangible({t1}) == nil")), [b(true)]);
}

/// The source database pass of incremental frames: nothing is sent while
/// the databases stay equal, and an edit made between two frames (a
/// reload on the master) is sent by the next one and reaches the client's
/// classes.
#[test]
fn a_reload_between_frames_is_sent() {
    let mut s = setup();
    assert!(frame(&mut s).sources.is_some(), "the first frame sends the sources");
    assert!(frame(&mut s).sources.is_none(), "equal databases: nothing sent");
    assert!(frame(&mut s).sources.is_none());
    let edited = SRC.replace("thing.kind = 'thing'", "thing.kind = 'edited'");
    s.master.load_sources(&[SourceFile::new("main.lua", edited.as_str())]).unwrap();
    let f = frame(&mut s);
    let sent = f.sources.as_ref().expect("the edit is sent");
    assert!(sent.iter().any(|e| e.code.is_some()), "with the changed code");
    let kind = format!("return gettangible({}).kind", s.t1);
    assert_eq!(probe(&mut s.client, &kind), vec![Plain::Str("edited".into())]);
    assert!(frame(&mut s).sources.is_none(), "then nothing again");
}
