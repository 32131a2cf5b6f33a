//! `State::table_clear`: every entry goes, the table (its identity and
//! metatable) stays, refilling works, and a snapshot rollback restores the
//! old contents exactly.

use luprex_vm::raw::{State, Value};

fn run(st: &mut State, code: &str) -> Vec<Value> {
    st.exec(code.as_bytes(), b"=t").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn clear_keeps_identity_and_metatable() {
    let mut st = State::new();
    run(
        &mut st,
        "t = setmetatable({10, 20, 30, a = 1, b = 2, [true] = 3}, {__index = function() return 'mt' end})
         alias = t",
    );
    let Value::Table(t) = st.get_global("t") else { panic!() };
    let before = st.state_hash();
    st.table_clear(t);
    assert!(st.table(t).is_empty());
    assert_ne!(st.state_hash(), before);
    let r = run(
        &mut st,
        "assert(alias == t and next(t) == nil and #t == 0)
         assert(t.a == 'mt' and t[1] == 'mt', 'the metatable stays')
         for i = 1, 40 do t['k' .. i] = i end
         t[1] = 'one'
         local n = 0 for _ in pairs(t) do n = n + 1 end
         collectgarbage()
         return n, t.k40, t[1]",
    );
    assert!(matches!(r[0], Value::Int(41)));
    assert!(matches!(r[1], Value::Int(40)));
    st.check_heap().unwrap();
}

#[test]
fn rollback_restores_cleared_table() {
    let mut st = State::new();
    run(&mut st, "t = {1, 2, x = 'x', y = {}}");
    let Value::Table(t) = st.get_global("t") else { panic!() };
    let h = (st.state_hash(), st.heap_hash());
    let s = st.snapshot().unwrap();
    st.table_clear(t);
    run(&mut st, "t.z = 1; collectgarbage()");
    st.rollback(s).unwrap();
    assert_eq!((st.state_hash(), st.heap_hash()), h);
    run(
        &mut st,
        "assert(t[1] == 1 and t[2] == 2 and t.x == 'x' and type(t.y) == 'table' and t.z == nil)",
    );
    st.release(s).unwrap();
    st.check_heap().unwrap();
}

/// `State::table_rebuild`: the table iterates exactly the given entries in
/// the given order (integer keys in the hash part included, key 1 and key
/// `n + 1` among them), lookups and later stores work, and a repeated key
/// is refused.
#[test]
fn rebuild_gives_exactly_the_order() {
    let mut st = State::new();
    run(&mut st, "t = setmetatable({9, 9, x = 9}, {__index = function() return 'mt' end})");
    let Value::Table(t) = st.get_global("t") else { panic!() };
    let a = Value::Str(st.intern(b"a"));
    let orders: [&[Value]; 4] = [
        &[Value::Int(2), a, Value::Int(1)],
        &[Value::Int(1), Value::Int(2), a, Value::Int(3), Value::Int(5)],
        &[a, Value::Int(1), Value::Bool(true), Value::Float(2.5)],
        &[],
    ];
    for keys in orders {
        let entries: Vec<(Value, Value)> =
            keys.iter().enumerate().map(|(i, &k)| (k, Value::Int(i as i64 + 10))).collect();
        st.table_rebuild(t, &entries).unwrap();
        let got: Vec<(Value, Value)> = st.table(t).iter().collect();
        assert_eq!(got.len(), entries.len());
        for (g, e) in got.iter().zip(&entries) {
            assert!(g.0.raw_eq_interned(e.0) && g.1.raw_eq_interned(e.1), "{got:?} != {entries:?}");
        }
        for &(k, v) in &entries {
            assert!(st.table(t).get(k).raw_eq_interned(v));
        }
        st.check_heap().unwrap();
    }
    // Later stores and the metatable work as usual.
    let r = run(
        &mut st,
        "t[1] = 'one'; t[2] = 'two'; t.a = 'a'
         local n = 0 for _ in pairs(t) do n = n + 1 end
         return n, #t, t.zzz",
    );
    assert!(matches!(r[0], Value::Int(3)) && matches!(r[1], Value::Int(2)));
    let one = Value::Int(1);
    assert!(st.table_rebuild(t, &[(one, one), (Value::Int(2), one), (one, one)]).is_err());
    assert!(st.table(t).is_empty(), "a refused rebuild leaves the table empty");
    assert!(st.table_rebuild(t, &[(Value::Float(f64::NAN), one)]).is_err());
    st.check_heap().unwrap();
}
