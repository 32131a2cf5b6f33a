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
