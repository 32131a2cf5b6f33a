//! Property test of difference transmission: random graph mutations on the
//! master (shared references, cycles, metatables, references to tangibles
//! and classes, deletions, key re-insertions, published globals, class
//! changes, destroyed tangibles), random player movement, tangibles
//! walking over several ticks, and ticks of every model in step. After
//! every frame:
//!
//! * the incremental frame equals a full re-walk's (the transmitter's
//!   `check_incremental`), and so do the ServerSync state hashes after them;
//! * ServerSync and ClientSync have equal state hashes;
//! * the graph reachable from the close tangibles and the published
//!   globals in the client model is isomorphic to the master's, checked by
//!   an independent paired traversal that compares every entry's key and
//!   value *in iteration order* and keeps the table correspondence a
//!   bijection.
//!
//! Cases: `PROPTEST_CASES` (default 12, a few seconds in debug).

use luprex_engine::diff::{self, Options, Radii, Transmitter};
use luprex_engine::raw::{is_sortable, SpecialSet, State, TableRef, Value};
use luprex_engine::{Model, SourceFile, World};
use proptest::prelude::*;
use std::collections::{BTreeMap, VecDeque};

const SRC: &str = "local thing = makeclass('thing')\nthing.kind = 'thing'\n\
                   local person = makeclass('person')\nperson.kind = 'person'\n";
const TANGIBLES: usize = 6;
const KEYS: [&str; 8] = ["'a'", "'b'", "'c'", "1", "2", "3", "2.5", "true"];

#[derive(Clone, Debug)]
enum V {
    Int(i64),
    Float(i8),
    Str(u8),
    Bool(bool),
    Table(u8),
    Tangible(u8),
    Class,
    Function,
    Nil,
}

#[derive(Clone, Debug)]
enum Op {
    New,
    Set(u8, u8, V),
    TanSet(u8, u8, V),
    Meta(u8, Option<u8>),
    MetaClass(u8),
    Reinsert(u8, u8),
    Publish(u8, V),
    Move(u8, i8),
    Walk(u8, i8, u8),
    Player(i8),
    Tick,
    SetClass(u8, bool),
    Destroy(u8),
    Frame,
}

fn v() -> impl Strategy<Value = V> {
    prop_oneof![
        1 => (-3i64..3).prop_map(V::Int),
        1 => any::<i8>().prop_map(V::Float),
        1 => (0u8..4).prop_map(V::Str),
        1 => any::<bool>().prop_map(V::Bool),
        4 => any::<u8>().prop_map(V::Table),
        1 => any::<u8>().prop_map(V::Tangible),
        1 => Just(V::Class),
        1 => Just(V::Function),
        2 => Just(V::Nil),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::New),
        8 => (any::<u8>(), 0u8..8, v()).prop_map(|(i, k, v)| Op::Set(i, k, v)),
        4 => (any::<u8>(), 0u8..8, v()).prop_map(|(i, k, v)| Op::TanSet(i, k, v)),
        1 => (any::<u8>(), proptest::option::of(any::<u8>())).prop_map(|(i, j)| Op::Meta(i, j)),
        1 => any::<u8>().prop_map(Op::MetaClass),
        2 => (any::<u8>(), 0u8..8).prop_map(|(i, k)| Op::Reinsert(i, k)),
        1 => (0u8..3, v()).prop_map(|(k, v)| Op::Publish(k, v)),
        2 => (any::<u8>(), any::<i8>()).prop_map(|(t, x)| Op::Move(t, x)),
        1 => (any::<u8>(), any::<i8>(), 1u8..6).prop_map(|(t, x, d)| Op::Walk(t, x, d)),
        2 => any::<i8>().prop_map(Op::Player),
        2 => Just(Op::Tick),
        1 => (any::<u8>(), any::<bool>()).prop_map(|(t, p)| Op::SetClass(t, p)),
        1 => any::<u8>().prop_map(Op::Destroy),
        3 => Just(Op::Frame),
    ]
}

struct Sim {
    master: World,
    sync: World,
    client: World,
    tx: Transmitter,
    player: u64,
    tans: Vec<u64>,
    tables: usize,
    radii: Radii,
}

impl Sim {
    fn new(incremental: bool) -> Sim {
        let mut master = World::new(Model::Master).unwrap();
        master.load_sources(&[SourceFile::new("main.lua", SRC)]).unwrap();
        master.start().unwrap();
        let player = master.new_tangible("person", [0.0; 3]).unwrap();
        master.make_player(player).unwrap();
        let mut tans = Vec::new();
        for i in 0..TANGIBLES {
            tans.push(master.new_tangible("thing", [i as f64 * 20.0, 0.0, 0.0]).unwrap());
        }
        master.exec("=init", "local P = global('pool'); P[1] = {}").unwrap();
        let radii = Radii { visibility: 60.0, close: 40.0 };
        let opts = Options { verify_state_hash: true, incremental };
        Sim {
            master,
            sync: World::new(Model::ServerSync).unwrap(),
            client: World::new(Model::ClientSync).unwrap(),
            tx: {
                let mut tx = Transmitter::new(player, radii, opts);
                // Every incremental frame is checked against a full one.
                tx.check_incremental(true);
                tx
            },
            player,
            tans,
            tables: 1,
            radii,
        }
    }

    fn lua_value(&self, v: &V) -> String {
        match v {
            V::Int(i) => i.to_string(),
            V::Float(f) => format!("{}.25", f),
            V::Str(s) => format!("'s{s}'"),
            V::Bool(b) => b.to_string(),
            V::Table(i) => format!("P[{}]", *i as usize % self.tables + 1),
            V::Tangible(i) => format!("gettangible({})", self.tans[*i as usize % self.tans.len()]),
            V::Class => "thing".into(),
            V::Function => "print".into(),
            V::Nil => "nil".into(),
        }
    }

    fn exec(&mut self, code: &str) {
        let code = format!("local P = global('pool')\n{code}");
        self.master.exec("=op", &code).unwrap_or_else(|e| panic!("{code}: {e}"));
    }

    fn tan(&self, i: u8) -> u64 {
        self.tans[i as usize % self.tans.len()]
    }

    fn run(&mut self, op: &Op) {
        let p = |i: u8, n: usize| i as usize % n + 1;
        match op {
            Op::New => {
                self.tables += 1;
                self.exec(&format!("P[{}] = {{}}", self.tables));
            }
            Op::Set(i, k, v) => {
                let code = format!(
                    "P[{}][{}] = {}",
                    p(*i, self.tables),
                    KEYS[*k as usize],
                    self.lua_value(v)
                );
                self.exec(&code);
            }
            Op::TanSet(i, k, v) => {
                let code = format!(
                    "local t = gettangible({}); if t then t[{}] = {} end",
                    self.tan(*i),
                    KEYS[*k as usize],
                    self.lua_value(v)
                );
                self.exec(&code);
            }
            Op::Meta(i, j) => {
                let mt = j.map_or("nil".to_owned(), |j| format!("P[{}]", p(j, self.tables)));
                self.exec(&format!("setmetatable(P[{}], {mt})", p(*i, self.tables)));
            }
            Op::MetaClass(i) => {
                self.exec(&format!("setmetatable(P[{}], thing)", p(*i, self.tables)))
            }
            Op::Reinsert(i, k) => {
                let t = format!("P[{}]", p(*i, self.tables));
                let k = KEYS[*k as usize];
                self.exec(&format!("local v = {t}[{k}]; {t}[{k}] = nil; {t}[{k}] = v"));
            }
            Op::Publish(k, v) => {
                let code = format!("global.set('g{k}', {})", self.lua_value(v));
                self.exec(&code);
            }
            Op::Move(t, x) => {
                let id = self.tan(*t);
                let _ = self.master.move_to(id, [f64::from(*x), 0.0, 0.0], 0);
            }
            Op::Walk(t, x, d) => {
                let id = self.tan(*t);
                let _ = self.master.move_to(id, [f64::from(*x), 0.0, 0.0], i64::from(*d));
            }
            Op::Tick => {
                // The host ticks every model in step (the clock is checked,
                // not transmitted).
                self.master.tick();
                self.sync.tick();
                self.client.tick();
            }
            Op::Player(x) => {
                self.master.move_to(self.player, [f64::from(*x), 0.0, 0.0], 0).unwrap();
            }
            Op::SetClass(t, person) => {
                let id = self.tan(*t);
                let _ = self.master.set_class(id, if *person { "person" } else { "thing" });
            }
            Op::Destroy(t) => {
                // Rarely: keep most tangibles alive.
                if t % 8 == 0 {
                    let id = self.tan(*t);
                    self.master.destroy_tangible(id);
                }
            }
            Op::Frame => self.frame(),
        }
    }

    fn frame(&mut self) {
        let t = self.tx.frame(&mut self.master, &mut self.sync, None).unwrap();
        assert!(t.reports.is_empty(), "{:?}", t.reports);
        let bytes = t.frame.encode();
        diff::apply_bytes(&mut self.client, &bytes).unwrap();
        assert_eq!(self.sync.state_hash(), self.client.state_hash(), "ServerSync != ClientSync");
        let pos = self.master.position(self.player).unwrap();
        let close = self.master.scan_radius(pos, self.radii.close);
        assert_eq!(self.client.scan_radius(pos, self.radii.close), close);
        check_isomorphic(&mut self.master, &mut self.client, &close);
    }
}

/// One model's view for the checker.
struct Side<'a> {
    st: &'a State,
    special: SpecialSet,
    reg: TableRef,
}

/// Raw `t[name]` by content (no interning).
fn field(st: &State, t: TableRef, name: &str) -> Value {
    st.table(t)
        .iter()
        .find(|(k, _)| matches!(k, Value::Str(s) if st.str_bytes(*s) == name.as_bytes()))
        .map_or(Value::Nil, |e| e.1)
}

fn registry_table(st: &State, name: &str) -> TableRef {
    match field(st, st.registry(), name) {
        Value::Table(t) => t,
        _ => panic!("no registry.{name}"),
    }
}

/// What a special table is: tangible id, class name, globals, other.
#[derive(Debug, PartialEq)]
enum Id {
    Tangible(i64),
    Class(Vec<u8>),
    Globals,
    Other,
}

impl Side<'_> {
    fn special_id(&self, t: TableRef) -> Id {
        let st = self.st;
        if t == st.globals() {
            return Id::Globals;
        }
        if let Some(mt) = st.metatable(Value::Table(t)) {
            if let Value::Int(id) = field(st, mt, "__id") {
                if st.table(self.reg).get_int(id).raw_eq_interned(Value::Table(t)) {
                    return Id::Tangible(id);
                }
            }
        }
        match field(st, t, "__class") {
            Value::Str(s) => Id::Class(st.str_bytes(s).to_vec()),
            _ => Id::Other,
        }
    }

    /// Whether the master value `v` reaches the client (non-nil image).
    fn transmittable(&self, client: &Side<'_>, v: Value) -> bool {
        match v {
            Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => true,
            Value::Table(t) if !self.special.contains(t) => true,
            Value::Table(t) => match self.special_id(t) {
                Id::Tangible(id) => {
                    matches!(client.st.table(client.reg).get_int(id), Value::Table(_))
                }
                Id::Class(_) | Id::Globals => true,
                Id::Other => false,
            },
            _ => false,
        }
    }
}

fn check_isomorphic(master: &mut World, client: &mut World, close: &[u64]) {
    let ms = master.special_set();
    let cs = client.special_set();
    let mut mroots = vec![];
    let mut croots = vec![];
    for &id in close {
        mroots.push(master.tangible(id).unwrap());
        croots.push(client.tangible(id).unwrap());
    }
    let (mst, cst) = (master.state(), client.state());
    let mut m = Side { st: mst, special: ms, reg: registry_table(mst, "tangibles") };
    let mut c = Side { st: cst, special: cs, reg: registry_table(cst, "tangibles") };
    let (mp, cp) = (registry_table(mst, "globalpub"), registry_table(cst, "globalpub"));
    m.special.mark(mp);
    c.special.mark(cp);
    mroots.insert(0, mp);
    croots.insert(0, cp);
    let mut to_c: BTreeMap<u32, u32> = BTreeMap::new();
    let mut to_m: BTreeMap<u32, u32> = BTreeMap::new();
    let mut queue: VecDeque<(TableRef, TableRef, bool, String)> = VecDeque::new();
    for (i, (&a, &b)) in mroots.iter().zip(&croots).enumerate() {
        queue.push_back((a, b, false, format!("root {i}")));
    }
    let pair = |a: TableRef,
                b: TableRef,
                to_c: &mut BTreeMap<u32, u32>,
                to_m: &mut BTreeMap<u32, u32>,
                path: &str|
     -> bool {
        match (to_c.get(&a.index()), to_m.get(&b.index())) {
            (None, None) => {
                to_c.insert(a.index(), b.index());
                to_m.insert(b.index(), a.index());
                true
            }
            (Some(&x), Some(&y)) if x == b.index() && y == a.index() => false,
            _ => panic!("{path}: the table correspondence is not a bijection"),
        }
    };
    while let Some((a, b, with_meta, path)) = queue.pop_front() {
        if with_meta {
            let (ma, mb) = (mst.metatable(Value::Table(a)), cst.metatable(Value::Table(b)));
            let ma = ma.map_or(Value::Nil, Value::Table);
            let mb = mb.map_or(Value::Nil, Value::Table);
            if !m.transmittable(&c, ma) {
                assert!(mb.is_nil(), "{path}: client has a metatable the master cannot send");
            } else if let Some(next) = same_value(&m, &c, ma, mb, &format!("{path}.<mt>")) {
                if pair(next.0, next.1, &mut to_c, &mut to_m, &path) {
                    queue.push_back((next.0, next.1, true, format!("{path}.<mt>")));
                }
            }
        }
        let me: Vec<(Value, Value)> = mst
            .table(a)
            .iter()
            .filter(|&(k, v)| is_sortable(k) && m.transmittable(&c, v))
            .collect();
        let ce: Vec<(Value, Value)> =
            cst.table(b).iter().filter(|&(k, _)| is_sortable(k)).collect();
        let show = |st: &State, es: &[(Value, Value)]| {
            es.iter()
                .map(|(k, _)| match k {
                    Value::Str(s) => String::from_utf8_lossy(st.str_bytes(*s)).into_owned(),
                    k => format!("{k:?}"),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            me.len(),
            ce.len(),
            "{path}: entry count; master keys {:?}, client keys {:?}",
            show(mst, &me),
            show(cst, &ce)
        );
        for ((mk, mv), (ck, cv)) in me.iter().zip(&ce) {
            let p = format!("{path}.{:?}", show(mst, &[(*mk, *mv)]));
            assert!(
                same_scalar(mst, cst, *mk, *ck),
                "{path}: key order differs: master {:?}, client {:?}",
                show(mst, &me),
                show(cst, &ce)
            );
            if let Some(next) = same_value(&m, &c, *mv, *cv, &p) {
                if pair(next.0, next.1, &mut to_c, &mut to_m, &p) {
                    queue.push_back((next.0, next.1, true, p));
                }
            }
        }
    }
}

fn same_scalar(m: &State, c: &State, a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => m.str_bytes(x) == c.str_bytes(y),
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a.raw_eq_interned(b),
    }
}

/// Checks that client value `cv` corresponds to master value `mv`;
/// returns the pair of ordinary tables to follow, if they are.
fn same_value(
    m: &Side<'_>,
    c: &Side<'_>,
    mv: Value,
    cv: Value,
    path: &str,
) -> Option<(TableRef, TableRef)> {
    match (mv, cv) {
        (Value::Table(a), Value::Table(b)) => {
            let (sa, sb) = (m.special.contains(a), c.special.contains(b));
            assert_eq!(sa, sb, "{path}: ordinary table vs special table");
            if !sa {
                return Some((a, b));
            }
            assert_eq!(m.special_id(a), c.special_id(b), "{path}: special tables differ");
            None
        }
        _ => {
            assert!(same_scalar(m.st, c.st, mv, cv), "{path}: {mv:?} vs {cv:?}");
            None
        }
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn client_graph_is_isomorphic_to_master(
        ops in proptest::collection::vec(op(), 1..60),
        incremental in any::<bool>(),
    ) {
        let mut sim = Sim::new(incremental);
        sim.frame();
        for op in &ops {
            sim.run(op);
        }
        sim.frame();
        // A frame right after a frame carries nothing.
        let t = sim.tx.frame(&mut sim.master, &mut sim.sync, None).unwrap();
        prop_assert!(t.frame.is_empty(), "{:?}", t.frame);
        diff::apply(&mut sim.client, &t.frame).unwrap();
        prop_assert_eq!(sim.sync.state_hash(), sim.client.state_hash());
    }
}

/// An incremental frame must re-send a table nobody wrote when a table it
/// refers to is paired with another client table: here `Z.r = X` where X
/// loses its client table `Y` to a new table stored where X was.
#[test]
fn an_unwritten_table_whose_child_changes_partner_is_resent() {
    let mut sim = Sim::new(true);
    let t = sim.tans[0];
    sim.exec(&format!("local T = gettangible({t}); local X = {{v = 1}}; T.a = X; T.b = {{r = X}}"));
    sim.frame();
    sim.exec(&format!("gettangible({t}).a = {{w = 2}}"));
    sim.frame();
    sim.frame();
}

/// A frame that stores a reference to a table the client already has
/// changes the order in which the traversals discover tables (here W
/// before Z): the next frame must not reuse its passes 4 to 6.
#[test]
fn a_frame_that_changes_the_structure_is_not_reused() {
    let mut sim = Sim::new(true);
    let t = sim.tans[0];
    sim.exec(&format!(
        "local T = gettangible({t}); local X, Y = {{}}, {{}}; T.a = X; T.b = Y
         Y.c = {{v = 1}}; Y.d = {{}}; P[2] = X; P[3] = Y"
    ));
    sim.frame();
    sim.frame();
    sim.exec("P[2].r = P[3].d");
    sim.frame();
    sim.exec("P[3].c.v = 2");
    sim.frame();
    sim.frame();
}

const ORDER_KEYS: [&str; 16] =
    ["1", "2", "3", "4", "5", "6", "7", "8", "9", "16", "0", "-1", "'a'", "'b'", "'c'", "2.5"];
const ORDER_STARTS: [&str; 6] = [
    "{}",
    "{1, 2, 3}",
    "{1, 2, 3, 4, 5, 6, 7, 8}",
    "{a = 1, b = 2}",
    "{[1] = 1, [2] = 2}",
    "{nil, nil, 3}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() * 4, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever layout a master table has (integer keys in its hash part,
    /// key 1 or key `n + 1` among them, an array with holes), the client's
    /// copy iterates in the master's order (checked by `Sim::frame`: no
    /// desync report, the paired traversal compares orders), including
    /// when the table is rebuilt again after more stores.
    #[test]
    fn any_key_order_is_restored(
        rounds in proptest::collection::vec(
            (0..ORDER_STARTS.len(), proptest::collection::vec((0..ORDER_KEYS.len(), 0u8..3), 1..30)),
            1..4,
        ),
    ) {
        let mut sim = Sim::new(true);
        sim.frame();
        let t = sim.tans[0];
        for (round, (start, stores)) in rounds.iter().enumerate() {
            let mut code = format!("local t = {}\n", ORDER_STARTS[*start]);
            for &(k, v) in stores {
                let v = ["nil", "true", "{}"][v as usize];
                code.push_str(&format!("t[{}] = {v}\n", ORDER_KEYS[k]));
            }
            code.push_str(&format!("gettangible({t}).o{} = t", round % 2));
            sim.exec(&code);
            sim.frame();
            // More stores into the same table, then another frame.
            sim.exec(&format!(
                "local t = gettangible({t}).o{}; t[1] = nil; t[4] = 'x'; t.z = 1; t[2] = 2",
                round % 2
            ));
            sim.frame();
        }
    }
}

/// A class table is special, so no frame watches it; renaming a class (its
/// `__class`) changes the image of every value naming it (here a
/// metatable): the next frame must not skip the table passes.
#[test]
fn a_renamed_class_is_seen() {
    let mut sim = Sim::new(true);
    let t = sim.tans[0];
    sim.exec(&format!("P[2] = setmetatable({{}}, thing); gettangible({t}).m = P[2]"));
    sim.frame();
    sim.frame();
    sim.exec("rawset(thing, '__class', 'renamed')");
    // The server reports the tangibles whose class has no name now (pass
    // 9); the frame must still be the full re-walk's.
    let t = sim.tx.frame(&mut sim.master, &mut sim.sync, None).unwrap();
    assert!(t.reports.iter().all(|r| !r.detail.contains("incremental")), "{:?}", t.reports);
    diff::apply(&mut sim.client, &t.frame).unwrap();
    sim.exec("rawset(thing, '__class', 'thing')");
    sim.frame();
    sim.frame();
}
