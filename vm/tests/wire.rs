//! Values between heaps (`vm/src/wire.rs`): every value kind round-trips
//! from one state to another through `WireValue` and its byte form;
//! malformed input is an error, never a panic; keys translate by value.

use luprex_vm::raw::TableRef;
use luprex_vm::raw::{lookup_key, translate_key, State, Value, WireError, WireValue};

fn state(src: &str) -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.exec(src.as_bytes(), b"=wire").unwrap_or_else(|e| panic!("{e}"));
    st
}

fn global(st: &mut State, name: &str) -> Value {
    st.get_global(name)
}

fn table(v: Value) -> TableRef {
    match v {
        Value::Table(t) => t,
        v => panic!("not a table: {v:?}"),
    }
}

/// Same value, across heaps: strings by content, tables through `tables`.
fn same(a: &State, x: Value, b: &State, y: Value) -> bool {
    match (x, y) {
        (Value::Str(s), Value::Str(t)) => a.str_bytes(s) == b.str_bytes(t),
        (Value::Float(f), Value::Float(g)) => f.to_bits() == g.to_bits(),
        (Value::Int(i), Value::Int(j)) => i == j,
        (Value::Bool(p), Value::Bool(q)) => p == q,
        (Value::Nil, Value::Nil) => true,
        _ => false,
    }
}

#[test]
fn every_value_kind_round_trips_between_states() {
    let mut src = state(
        r#"
        T = {} U = {}
        VALS = {nil, true, false, 0, -1, math and 1 or 1, 1 << 62, -(1 << 63), 1.0, -0.0,
                0.1, 1/0, -1/0, 0/0, "", "hello", "\0bin\255", T, U, print,
                function() end, coroutine.create(function() end)}
        N = 22
        "#,
    );
    let mut dst = state("X = {} Y = {}");
    let (t, u) = (table(global(&mut src, "T")), table(global(&mut src, "U")));
    let (x, y) = (global(&mut dst, "X"), global(&mut dst, "Y"));
    let vals = global(&mut src, "VALS");
    for i in 1..=22 {
        let v = src.table_get(vals, Value::Int(i));
        let mut map = |v: Value| match v {
            Value::Table(h) if h == t => Some(WireValue::Table(7)),
            Value::Table(h) if h == u => Some(WireValue::Host(1 << 40)),
            _ => None,
        };
        let w = src.encode_value(v, &mut map);
        // The byte form round-trips too.
        let mut bytes = Vec::new();
        w.write(&mut bytes);
        let (w2, used) = WireValue::read(&bytes).unwrap();
        assert_eq!((w2.clone(), used), (w.clone(), bytes.len()), "value {i}");
        let back = dst
            .decode_value(&w2, &mut |w| match w {
                WireValue::Table(7) => Some(x),
                WireValue::Host(h) if *h == 1 << 40 => Some(y),
                _ => None,
            })
            .unwrap();
        match v {
            Value::Table(h) if h == t => {
                assert!(matches!(back, Value::Table(_)) && same_t(back, x))
            }
            Value::Table(_) => assert!(same_t(back, y)),
            Value::RustFn(_) | Value::LuaFn(_) | Value::Thread(_) => {
                assert_eq!(w, WireValue::Nil, "value {i} is not transmittable");
                assert!(back.is_nil());
            }
            _ => assert!(same(&src, v, &dst, back), "value {i}: {v:?} came back as {back:?}"),
        }
    }
}

fn same_t(a: Value, b: Value) -> bool {
    matches!((a, b), (Value::Table(x), Value::Table(y)) if x == y)
}

#[test]
fn decoded_strings_are_interned_in_the_destination() {
    let mut dst = state("K = 'known'");
    let k = global(&mut dst, "K");
    let v = dst.decode_value(&WireValue::str(b"known"), &mut |_| None).unwrap();
    assert!(matches!((k, v), (Value::Str(a), Value::Str(b)) if a == b));
}

#[test]
fn unresolvable_references_are_errors() {
    let mut dst = state("");
    assert_eq!(
        dst.decode_value(&WireValue::Table(3), &mut |_| None).unwrap_err(),
        WireError::UnknownTable(3)
    );
    assert_eq!(
        dst.decode_value(&WireValue::Host(9), &mut |_| None).unwrap_err(),
        WireError::UnknownHost(9)
    );
    // Any float bits are a float (a NaN with a payload included).
    let v = dst.decode_value(&WireValue::Float(0x7ff8_dead_beef_0001), &mut |_| None).unwrap();
    assert!(matches!(v, Value::Float(f) if f.to_bits() == 0x7ff8_dead_beef_0001));
}

#[test]
fn malformed_bytes_are_errors() {
    assert_eq!(WireValue::read(&[]), Err(WireError::Truncated));
    assert_eq!(WireValue::read(&[9]), Err(WireError::BadTag(9)));
    assert_eq!(WireValue::read(&[3, 1, 2]), Err(WireError::Truncated));
    assert_eq!(WireValue::read(&[6, 1, 2, 3]), Err(WireError::Truncated));
    assert_eq!(WireValue::read(&[5, 5, b'a']), Err(WireError::Truncated));
    assert_eq!(WireValue::read(&[5, 0x80]), Err(WireError::Truncated));
    // The byte form is canonical: an overlong length (found by the
    // wire_value fuzz target) is refused.
    assert_eq!(WireValue::read(&[5, 0x80, 0]), Err(WireError::BadLength));
    assert_eq!(WireValue::read(&[5, 0x81, 0]), Err(WireError::BadLength));
    assert_eq!(WireValue::read(&[5, 0x81, 0x00, b'a']), Err(WireError::BadLength));
    assert_eq!(
        WireValue::read(&[5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
        Err(WireError::BadLength)
    );
    // Every prefix of a valid encoding is truncated, never a panic.
    let mut bytes = Vec::new();
    for w in [
        WireValue::Int(-5),
        WireValue::float(2.5),
        WireValue::str(&[7u8; 300]),
        WireValue::Table(1),
        WireValue::Host(2),
        WireValue::Bool(true),
        WireValue::Nil,
    ] {
        bytes.clear();
        w.write(&mut bytes);
        assert_eq!(WireValue::read(&bytes).unwrap(), (w.clone(), bytes.len()));
        for n in 0..bytes.len() {
            assert_eq!(WireValue::read(&bytes[..n]), Err(WireError::Truncated), "{w:?} cut at {n}");
        }
    }
    // Values follow one another.
    bytes.clear();
    WireValue::Int(1).write(&mut bytes);
    WireValue::str(b"ab").write(&mut bytes);
    let (a, n) = WireValue::read(&bytes).unwrap();
    let (b, m) = WireValue::read(&bytes[n..]).unwrap();
    assert_eq!((a, b, n + m), (WireValue::Int(1), WireValue::str(b"ab"), bytes.len()));
}

#[test]
fn keys_translate_by_value() {
    let mut master =
        state("T = {name = 1, [2] = 2, [2.5] = 3, [true] = 4, only_master = 5, [{}] = 6}");
    let mut client = state("C = {name = 'x'}");
    let t = table(global(&mut master, "T"));
    let c = global(&mut client, "C");
    let keys: Vec<Value> = master.table_entries(t).map(|(k, _)| k).collect();
    assert_eq!(keys.len(), 6);
    let key_str =
        |st: &State, k: Value, want: &[u8]| matches!(k, Value::Str(s) if st.str_bytes(s) == want);
    let name = *keys.iter().find(|&&k| key_str(&master, k, b"name")).unwrap();
    let only = *keys.iter().find(|&&k| key_str(&master, k, b"only_master")).unwrap();
    let tkey = *keys.iter().find(|k| matches!(k, Value::Table(_))).unwrap();
    // Read-only: numbers and booleans as they are; `name` is known to the
    // client, `only_master` is not; a table is not a sortable key.
    for &k in &keys {
        let l = lookup_key(&master, k, &client);
        match k {
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                assert_eq!(format!("{l:?}"), format!("{:?}", Some(k)))
            }
            _ => {}
        }
    }
    let cname = lookup_key(&master, name, &client).unwrap();
    assert!(key_str(&client, cname, b"name"));
    assert!(matches!(client.table_get(c, cname), Value::Str(_)));
    assert!(lookup_key(&master, only, &client).is_none(), "never interned in the client");
    assert!(lookup_key(&master, tkey, &client).is_none(), "not a sortable key");
    // Storing interns.
    let k = translate_key(&master, only, &mut client).unwrap();
    client.try_table_set(c, k, Value::Int(5)).unwrap();
    assert!(lookup_key(&master, only, &client).is_some());
    assert!(translate_key(&master, tkey, &mut client).is_none());
    assert!(translate_key(&master, Value::Float(f64::NAN), &mut client).is_none());
    assert!(translate_key(&master, Value::Nil, &mut client).is_none());
}

#[test]
fn table_primitives_apply_a_frame() {
    // Copy a cyclic graph A -> B -> A (and a metatable) from one state to
    // another with the read and write primitives and the value encoding.
    let mut master = state(
        "A = {1, 'two', x = 3.5} B = {up = A} A.down = B setmetatable(B, {__index = A}) ROOTS = {A, B}",
    );
    let mut client = state("");
    let roots = table(global(&mut master, "ROOTS"));
    let order: Vec<TableRef> = master.table_entries(roots).map(|(_, v)| table(v)).collect();
    let meta = master.table(order[1]).meta.unwrap();
    let mut order = order;
    order.push(meta);
    let number = |t: TableRef| order.iter().position(|&o| o == t).map(|i| i as u32 + 1);
    let made: Vec<Value> = order.iter().map(|_| client.new_table()).collect();
    for (i, &tm) in order.iter().enumerate() {
        let entries: Vec<(Value, Value)> = master.table_entries(tm).collect();
        for (k, v) in entries {
            let ck = translate_key(&master, k, &mut client).unwrap();
            let w = master.encode_value(v, &mut |v| match v {
                Value::Table(t) => number(t).map(WireValue::Table),
                _ => None,
            });
            let cv = client
                .decode_value(&w, &mut |w| match w {
                    WireValue::Table(n) => made.get(*n as usize - 1).copied(),
                    _ => None,
                })
                .unwrap();
            client.try_table_set(made[i], ck, cv).unwrap();
        }
        if let Some(m) = master.table(tm).meta {
            let n = number(m).unwrap();
            client.set_any_metatable(made[i], Some(table(made[n as usize - 1])));
        }
    }
    client.set_global("A", made[0]);
    client.set_global("B", made[1]);
    let r = client
        .exec(b"return A.down.up == A, B[2], A.x, getmetatable(B).__index == A, B.x", b"=check")
        .unwrap();
    assert!(matches!(r[0], Value::Bool(true)));
    assert!(matches!(r[1], Value::Str(_)));
    assert!(matches!(r[2], Value::Float(f) if f == 3.5));
    assert!(matches!(r[3], Value::Bool(true)));
    assert!(matches!(r[4], Value::Float(f) if f == 3.5));
}
