//! Table-graph numbering and lockstep pairing (difference transmission):
//! the design document's T1/T2 → A ↔ B example through its four
//! situations, special tables, sortable keys, the metatable pseudo-key,
//! determinism across States, and pairing with partial overlap.

use luprex_vm::raw::TableRef;
use luprex_vm::raw::{pair_tables, Numbering, SpecialSet, State, Value};

fn state(src: &str) -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.exec(src.as_bytes(), b"=test").unwrap_or_else(|e| panic!("{e}"));
    st
}

fn g(st: &mut State, name: &str) -> Value {
    st.get_global(name)
}

fn t(st: &mut State, name: &str) -> TableRef {
    match st.get_global(name) {
        Value::Table(t) => t,
        v => panic!("{name} is {v:?}"),
    }
}

/// A table reached by a dotted path from a global (`"A.b.c"`).
fn path(st: &mut State, p: &str) -> TableRef {
    let mut parts = p.split('.');
    let mut cur = t(st, parts.next().unwrap());
    for k in parts {
        let key = st.new_string(k.as_bytes());
        cur = match st.table_get(Value::Table(cur), key) {
            Value::Table(x) => x,
            v => panic!("{p}: {k} is {v:?}"),
        };
    }
    cur
}

/// Marks the named globals special; returns the set and the root values.
fn specials(st: &mut State, names: &[&str]) -> (SpecialSet, Vec<Value>) {
    let mut s = SpecialSet::new();
    let roots: Vec<Value> = names.iter().map(|n| g(st, n)).collect();
    roots.iter().for_each(|&v| assert!(s.mark_value(v)));
    (s, roots)
}

/// The numbered graph as text: for each number, its followed edges as
/// `key->number` (`@meta` for the metatable). Independent of handles.
fn shape(st: &State, n: &Numbering) -> Vec<String> {
    n.tables()
        .iter()
        .map(|&tb| {
            let tab = st.table(tb);
            let mut edges = Vec::new();
            if let Some(m) = tab.meta {
                edges.push(format!("@meta->{}", n.number_of(m).unwrap_or(0)));
            }
            for (k, v) in tab.iter() {
                let Value::Table(c) = v else { continue };
                let key = match k {
                    Value::Str(s) => String::from_utf8_lossy(st.str_bytes(s)).into_owned(),
                    Value::Int(i) => i.to_string(),
                    Value::Float(f) => format!("{f:?}"),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                edges.push(format!("{key}->{}", n.number_of(c).unwrap_or(0)));
            }
            edges.join(" ")
        })
        .collect()
}

const MASTER: &str = r#"
    A = {name = "A"}
    B = {name = "B", a = A}
    A.b = B
    T1 = {data = A, x = 1}
    T2 = {data = A}
"#;

#[test]
fn seed_example_numbering_shares_and_cycles() {
    let mut m = state(MASTER);
    let (sp, roots) = specials(&mut m, &["T1", "T2"]);
    let num = m.number_tables(&roots, &sp);
    let (a, b) = (t(&mut m, "A"), t(&mut m, "B"));
    assert_eq!(num.len(), 2, "A is shared by T1 and T2, B -> A is a cycle");
    assert_eq!(num.number_of(a), Some(1));
    assert_eq!(num.number_of(b), Some(2));
    assert_eq!(num.table(1), Some(a));
    assert_eq!(num.table(2), Some(b));
    assert_eq!(num.table(0), None);
    assert_eq!(num.table(3), None);
    // The tangible databases are special: not numbered.
    let t1 = t(&mut m, "T1");
    assert_eq!(num.number_of(t1), None);
    assert_eq!(shape(&m, &num), ["b->2", "a->1"]);
    // Only T1 near: the same graph.
    let (sp1, roots1) = specials(&mut m, &["T1"]);
    assert_eq!(m.number_tables(&roots1, &sp1).len(), 2);
}

/// The document's story: client empty; then near T1; warped to T2; then
/// halfway, with an obsolete copy under T1 and an updated one under T2.
#[test]
fn seed_example_pairing_story() {
    let mut m = state(MASTER);
    let (msp, _) = specials(&mut m, &["T1", "T2"]);
    let roots = |m: &mut State, names: &[&str]| -> Vec<Value> {
        names.iter().map(|n| g(m, n)).collect::<Vec<_>>()
    };
    let (a, b) = (t(&mut m, "A"), t(&mut m, "B"));

    // 1. Empty client: nothing pairs; A and B get numbers 1 and 2.
    let mut c = state("T1 = {x = 1} T2 = {}");
    let (csp, croots) = specials(&mut c, &["T1", "T2"]);
    let cnum = c.number_tables(&croots, &csp);
    assert_eq!(cnum.len(), 0);
    let mr = roots(&mut m, &["T1", "T2"]);
    let mut p = pair_tables(&m, &mr, &msp, &c, &croots, &csp, &cnum);
    assert_eq!(p.len(), 0);
    assert_eq!(p.number_remaining(&m, &mr, &msp), 1..3);
    assert_eq!((p.number_of(a), p.number_of(b)), (Some(1), Some(2)));

    // 2. Near T1, the client has A' <-> B' under T1: both pair.
    let mut c = state("A = {name = 'A'} B = {name = 'B', a = A} A.b = B T1 = {data = A} T2 = {}");
    let (csp, _) = specials(&mut c, &["T1", "T2"]);
    let croots = roots(&mut c, &["T1"]);
    let cnum = c.number_tables(&croots, &csp);
    let (ca, cb) = (t(&mut c, "A"), t(&mut c, "B"));
    let mr = roots(&mut m, &["T1"]);
    let mut p = pair_tables(&m, &mr, &msp, &c, &croots, &csp, &cnum);
    assert_eq!(p.len(), 2);
    assert_eq!(p.number_of(a), cnum.number_of(ca));
    assert_eq!(p.number_of(b), cnum.number_of(cb));
    assert_eq!(p.pairs()[0].master, a);
    assert_eq!(p.pairs()[0].client, ca);
    assert_eq!(p.number_remaining(&m, &mr, &msp), 3..3, "everything paired");

    // 3. Warped to T2: the client's T2 has no data; A and B are new there.
    let croots = roots(&mut c, &["T2"]);
    let cnum = c.number_tables(&croots, &csp);
    let mr = roots(&mut m, &["T2"]);
    let mut p = pair_tables(&m, &mr, &msp, &c, &croots, &csp, &cnum);
    assert_eq!((cnum.len(), p.len()), (0, 0));
    assert_eq!(p.number_remaining(&m, &mr, &msp), 1..3);

    // 4. Halfway: T1 -> obsolete A'/B', T2 -> updated A''/B''. Breadth
    // first, the client numbers A' 1, A'' 2, B' 3, B'' 4; the candidate
    // (A, A') comes first, so A pairs with A' and (A, A'') is dropped.
    let mut c = state(
        r#"
        OA = {name = 'A'} OB = {name = 'B', a = OA} OA.b = OB
        UA = {name = 'A'} UB = {name = 'B', a = UA} UA.b = UB
        T1 = {data = OA} T2 = {data = UA}
        "#,
    );
    let (csp, croots) = specials(&mut c, &["T1", "T2"]);
    let cnum = c.number_tables(&croots, &csp);
    let names = ["OA", "UA", "OB", "UB"];
    for (i, n) in names.iter().enumerate() {
        let tb = t(&mut c, n);
        assert_eq!(cnum.number_of(tb), Some(i as u32 + 1), "{n}");
    }
    let mr = roots(&mut m, &["T1", "T2"]);
    let mut p = pair_tables(&m, &mr, &msp, &c, &croots, &csp, &cnum);
    assert_eq!(p.len(), 2);
    assert_eq!(p.number_of(a), Some(1));
    assert_eq!(p.number_of(b), Some(3));
    assert_eq!(p.table(2), None, "UA stays unpaired");
    assert_eq!(p.client_len(), 4);
    assert_eq!(p.number_remaining(&m, &mr, &msp), 5..5);
}

#[test]
fn special_tables_are_skipped() {
    let mut st = state(
        r#"
        Class = {__class = "Class", helper = {deep = {}}}
        Class.__index = Class
        Obj = setmetatable({pos = {1, 2}, cls = Class, env = _G}, Class)
        T = {obj = Obj, other = Class}
        "#,
    );
    let (mut sp, roots) = specials(&mut st, &["T"]);
    sp.mark(st.globals());
    sp.mark(st.registry());
    let class = t(&mut st, "Class");
    sp.mark(class);
    let num = st.number_tables(&roots, &sp);
    assert_eq!(num.len(), 2, "Obj and Obj.pos only: {:?}", shape(&st, &num));
    assert_eq!(num.number_of(class), None);
    let helper = path(&mut st, "Class.helper");
    assert_eq!(num.number_of(helper), None, "not entered through a special table");
    assert_eq!(shape(&st, &num), ["@meta->0 pos->2 cls->0 env->0", ""]);
    // Unmarked, the class is an ordinary table and is entered.
    sp.unmark(class);
    let num = st.number_tables(&roots, &sp);
    assert_eq!(num.len(), 5);
}

#[test]
fn only_sortable_keys_are_followed() {
    let mut st = state(
        r#"
        R = {}
        R[{}] = {tag = "table key"}
        R[print] = {tag = "function key"}
        R[coroutine.create(print)] = {tag = "thread key"}
        R.s = {tag = "string key"}
        R[7] = {tag = "int key"}
        R[1] = {tag = "array key"}
        R[1.5] = {tag = "float key"}
        R[true] = {tag = "bool key"}
        R.n = 5
        "#,
    );
    let r = t(&mut st, "R");
    let num = st.number_tables(&[Value::Table(r)], &SpecialSet::new());
    assert_eq!(num.len(), 6);
    let tags: Vec<String> = num.tables()[1..]
        .iter()
        .map(|&tb| {
            let k = st.new_string(b"tag");
            let v = st.table_get(Value::Table(tb), k);
            String::from_utf8_lossy(st.to_str(v).unwrap()).into_owned()
        })
        .collect();
    assert_eq!(tags, ["array key", "string key", "int key", "float key", "bool key"]);
}

#[test]
fn metatable_is_a_key_visited_first() {
    let mut st = state(
        r#"
        M = {__index = {shared = true}}
        R = setmetatable({x = {}, y = {}}, M)
        "#,
    );
    let r = t(&mut st, "R");
    let num = st.number_tables(&[Value::Table(r)], &SpecialSet::new());
    let m = t(&mut st, "M");
    assert_eq!(num.number_of(r), Some(1));
    assert_eq!(num.number_of(m), Some(2), "the metatable comes before the fields");
    assert_eq!(shape(&st, &num), ["@meta->2 x->3 y->4", "__index->5", "", "", ""]);
    // Pairing follows METATABLE too.
    let mut c = state("M = {__index = {shared = true}} R = setmetatable({x = {}}, M)");
    let cr = t(&mut c, "R");
    let cnum = c.number_tables(&[Value::Table(cr)], &SpecialSet::new());
    let none = SpecialSet::new();
    let p = pair_tables(&st, &[Value::Table(r)], &none, &c, &[Value::Table(cr)], &none, &cnum);
    assert_eq!(p.len(), 4, "R, M, M.__index, R.x");
    let cm = t(&mut c, "M");
    assert_eq!(p.number_of(m), cnum.number_of(cm));
}

/// A program building a graph with sharing, cycles, metatables and mixed
/// keys.
const BUILD: &str = r#"
    local nodes = {}
    for i = 1, 300 do
      nodes[i] = {id = i, name = "n" .. i}
    end
    for i = 1, 300 do
      local n = nodes[i]
      n.next = nodes[i % 300 + 1]
      n[1] = nodes[(i * 7) % 300 + 1]
      if i % 5 == 0 then n[2.5] = nodes[(i * 11) % 300 + 1] end
      if i % 7 == 0 then setmetatable(n, nodes[(i * 13) % 300 + 1]) end
      if i % 3 == 0 then n[true] = {leaf = i} end
    end
    TAN = {home = nodes[1], alt = nodes[150]}
"#;

#[test]
fn numbering_is_deterministic_across_states() {
    let mut a = state(BUILD);
    let mut b = state(BUILD);
    // A third state with shifted slot indices: garbage collected first.
    let mut c = State::new();
    c.exec(b"local t = {} for i = 1, 500 do t[i] = {i} end", b"=g").unwrap();
    c.collect_garbage();
    c.exec(BUILD.as_bytes(), b"=test").unwrap();
    let mut shapes = Vec::new();
    let mut handles = Vec::new();
    for st in [&mut a, &mut b, &mut c] {
        let (sp, roots) = specials(st, &["TAN"]);
        let num = st.number_tables(&roots, &sp);
        assert_eq!(num.len(), 400);
        shapes.push(shape(st, &num));
        handles.push(num.tables().to_vec());
    }
    assert_eq!(shapes[0], shapes[1]);
    assert_eq!(shapes[0], shapes[2]);
    assert_eq!(handles[0], handles[1], "same program, same handles");
    assert_ne!(handles[0], handles[2], "the third state really has other handles");

    // Pairing two identical models pairs every table with its own number.
    let (asp, ar) = specials(&mut a, &["TAN"]);
    let (csp, cr) = specials(&mut c, &["TAN"]);
    let cnum = c.number_tables(&cr, &csp);
    let anum = a.number_tables(&ar, &asp);
    let mut p = pair_tables(&a, &ar, &asp, &c, &cr, &csp, &cnum);
    assert_eq!(p.len(), 400);
    for pr in p.pairs() {
        assert_eq!(anum.number_of(pr.master), Some(pr.number));
        assert_eq!(cnum.table(pr.number), Some(pr.client));
    }
    assert_eq!(p.number_remaining(&a, &ar, &asp), 401..401);
}

#[test]
fn pairing_with_partial_overlap() {
    // Both heaps intern extra strings first so that equal keys have
    // different string handles in the two heaps.
    let mut m = state(
        r#"
        local pad = {"m1", "m2", "m3"}
        TAN = {
          a = {v = 1, sub = {deep = {}}},
          b = {v = 2},
          c = {v = 3},
          one = {}, two = {},
          [10] = {}, [1.5] = {}, [false] = {},
        }
        TAN.loop = TAN.a
        "#,
    );
    let mut c = state(
        r#"
        local pad = {"x", "y", "z", "w", "q"}
        local shared = {v = 9}
        TAN = {
          a = {v = 1, sub = 4},
          c = 5,
          d = {v = 4},
          one = shared, two = shared,
          ["10"] = {}, [1.5] = {}, [false] = {},
        }
        "#,
    );
    let (msp, mr) = specials(&mut m, &["TAN"]);
    let (csp, cr) = specials(&mut c, &["TAN"]);
    let cnum = c.number_tables(&cr, &csp);
    let mut p = pair_tables(&m, &mr, &msp, &c, &cr, &csp, &cnum);
    let paired: Vec<&str> = ["TAN.a", "TAN.one", "TAN.two", "TAN.b", "TAN.c"]
        .into_iter()
        .filter(|n| {
            let tb = path(&mut m, n);
            p.number_of(tb).is_some()
        })
        .collect();
    // a: both tables. one/two: the client's `shared` pairs with master
    // `one` only (a client table pairs once). b: missing in the client.
    // c: not a table in the client. sub: not a table in the client.
    assert_eq!(paired, ["TAN.a", "TAN.one"]);
    let msub = path(&mut m, "TAN.a.sub");
    assert_eq!(p.number_of(msub), None);
    // 10 vs "10": different keys; 1.5 and false: paired.
    assert_eq!(p.len(), 4, "{:?}", p.pairs());
    let tan = g(&mut m, "TAN");
    let f = m.table_get(tan, Value::Float(1.5));
    let Value::Table(f) = f else { panic!() };
    assert!(p.number_of(f).is_some());
    // Number the rest: b, c, two, [10], sub, deep (loop is a, paired).
    let range = p.number_remaining(&m, &mr, &msp);
    assert_eq!(range.len(), 6);
    assert_eq!(range.start, cnum.len() as u32 + 1);
    let mdeep = path(&mut m, "TAN.a.sub.deep");
    assert_eq!(p.number_of(mdeep), Some(range.end - 1), "deepest is numbered last");
    // Every number now names exactly one master table.
    let mut seen = std::collections::BTreeSet::new();
    for n in 1..=p.max_number() {
        if let Some(tb) = p.table(n) {
            assert_eq!(p.number_of(tb), Some(n));
            assert!(seen.insert(tb.index()));
        }
    }
}

#[test]
fn special_root_metatable_is_not_expanded() {
    let mut st = state(
        r#"
        TAN = setmetatable({data = {}}, {__id = 7, threads = {}})
        "#,
    );
    let (sp, roots) = specials(&mut st, &["TAN"]);
    let num = st.number_tables(&roots, &sp);
    assert_eq!(num.len(), 1, "only TAN.data; the tangible metatable is reserved");
    // An ordinary root is entered with its metatable.
    let tan = t(&mut st, "TAN");
    let num = st.number_tables(&[Value::Table(tan)], &SpecialSet::new());
    assert_eq!(num.len(), 4);
}

#[test]
fn closure_predicate_works_as_special() {
    let mut st = state("A = {b = {c = {}}} SKIP = A.b");
    let skip = t(&mut st, "SKIP");
    let a = t(&mut st, "A");
    let pred = move |x: TableRef| x == skip;
    let num = st.number_tables(&[Value::Table(a)], &pred);
    assert_eq!(num.len(), 1);
    let dyn_pred: &dyn Fn(TableRef) -> bool = &pred;
    assert_eq!(st.number_tables(&[Value::Table(a)], dyn_pred).len(), 1);
}

#[test]
fn pairing_does_not_depend_on_client_key_order() {
    // Same keys, other insertion order and an extra leading key in the
    // client: the in-step cursor misses, the lookups find them.
    let mut m = state("R = {} R.x = {1} R.y = {2} R.z = {3}");
    let mut c = state("R = {} R.w = {0} R.z = {3} R.y = {2} R.x = {1}");
    let (mr, cr) = (g(&mut m, "R"), g(&mut c, "R"));
    let none = SpecialSet::new();
    let cnum = c.number_tables(&[cr], &none);
    let p = pair_tables(&m, &[mr], &none, &c, &[cr], &none, &cnum);
    assert_eq!(p.len(), 4);
    for k in ["x", "y", "z"] {
        let (mt, ct) = (path(&mut m, &format!("R.{k}")), path(&mut c, &format!("R.{k}")));
        assert_eq!(p.number_of(mt), cnum.number_of(ct), "{k}");
    }
}
