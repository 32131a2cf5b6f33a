//! The embedding API: calls, errors, tracebacks, natives with
//! continuations, stack limits, tail calls, GC churn.

use luprex_vm::raw::{Action, Error, State, Status, Value};

fn run(st: &mut State, src: &str) -> Result<Vec<Value>, Error> {
    st.exec(src.as_bytes(), b"=input")
}

fn s(st: &State, v: Value) -> String {
    String::from_utf8_lossy(st.to_str(v).expect("string")).into_owned()
}

#[test]
fn call_and_results() {
    let mut st = State::new();
    let f = st.load(b"local a, b = ... return a + b, a * b", b"=t").unwrap();
    let r = st.call(f, &[Value::Int(3), Value::Int(4)]).unwrap();
    assert!(matches!(r[..], [Value::Int(7), Value::Int(12)]));
    st.set_global("g", Value::Int(5));
    let r = run(&mut st, "return g * 2").unwrap();
    assert!(matches!(r[..], [Value::Int(10)]));
    let t = st.new_table();
    let k = st.new_string(b"k");
    st.table_set(t, k, Value::Bool(true));
    assert!(st.try_table_set(t, Value::Nil, Value::Int(1)).is_err());
    assert!(matches!(st.table_get(t, k), Value::Bool(true)));
    st.check_heap().unwrap();
}

#[test]
fn error_message_and_traceback() {
    let mut st = State::new();
    let e = run(
        &mut st,
        "local function f(x) return x.y end\nlocal function g() return f(nil) + 1 end\ng()",
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "input:1: attempt to index a nil value (local 'x')");
    assert_eq!(
        e.traceback(),
        "stack traceback:\n\tinput:1: in upvalue 'f'\n\tinput:2: in local 'g'\n\tinput:3: in main chunk\n\t[C]: in ?"
    );
    let e = run(&mut st, "error({})").unwrap_err();
    assert_eq!(e.to_string(), "(error object is a table value)");
    assert!(matches!(e.value(), Value::Table(_)));
    let e = run(&mut st, "error(setmetatable({}, {__tostring = function() return 'custom' end}))")
        .unwrap_err();
    assert_eq!(e.to_string(), "custom");
    let e = run(&mut st, "local t = {} function t.m() error('in m') end t.m()").unwrap_err();
    assert_eq!(e.to_string(), "input:1: in m");
    assert!(e.traceback().contains("[C]: in function 'error'"), "{}", e.traceback());
    assert!(e.traceback().contains("in field 'm'"), "{}", e.traceback());
    st.check_heap().unwrap();
}

#[test]
fn traceback_elides_levels() {
    let mut st = State::new();
    let e =
        run(&mut st, "local function r(n) if n == 0 then error('bottom') end r(n - 1) end r(30)")
            .unwrap_err();
    assert!(e.traceback().contains("\n\t...\t(skipping "), "{}", e.traceback());
}

#[test]
fn stack_overflow_is_a_lua_error() {
    let mut st = State::new();
    let e = run(&mut st, "local function f() return 1 + f() end return f()").unwrap_err();
    assert_eq!(e.to_string(), "input:1: stack overflow");
    let r = run(&mut st, "local function f() return 1 + f() end return pcall(f)").unwrap();
    assert!(matches!(r[0], Value::Bool(false)));
    // The state is still usable.
    let r = run(&mut st, "return 1 + 1").unwrap();
    assert!(matches!(r[..], [Value::Int(2)]));
    st.check_heap().unwrap();
}

#[test]
fn c_stack_overflow() {
    let mut st = State::new();
    let src = "local t = setmetatable({}, {__tostring = function(x) return tostring(x) end}) return pcall(tostring, t)";
    let r = run(&mut st, src).unwrap();
    assert!(matches!(r[0], Value::Bool(false)));
    assert!(s(&st, r[1]).contains("stack overflow"), "{}", s(&st, r[1]));
}

#[test]
fn tail_calls_run_in_constant_space() {
    let mut st = State::new();
    let r = run(&mut st, "local function loop(n) if n == 0 then return 'done' end return loop(n - 1) end return loop(10000000)")
        .unwrap();
    assert_eq!(s(&st, r[0]), "done");
}

#[test]
fn deep_lua_recursion_does_not_use_the_rust_stack() {
    let mut st = State::new();
    let r = run(
        &mut st,
        "local function d(n) if n == 0 then return 0 end return 1 + d(n - 1) end return d(150000)",
    )
    .unwrap();
    assert!(matches!(r[..], [Value::Int(150000)]));
}

fn native_yield(st: &mut State) -> Result<Action, Error> {
    // Yields its argument + 1, then on resume adds the resume value to 100.
    let n = st.check_int(1)?;
    st.push(Value::Int(n + 1));
    Ok(Action::Yield { nvalues: 1, k: Some((native_yield_k, n)) })
}

fn native_yield_k(st: &mut State, status: Status, ctx: i64) -> Result<Action, Error> {
    assert_eq!(status, Status::Yield);
    let v = st.arg(st.nargs());
    let Value::Int(x) = v else { return Err(st.native_error("expected int")) };
    st.push(Value::Int(100 + x + ctx));
    Ok(Action::Return(1))
}

fn native_call(st: &mut State) -> Result<Action, Error> {
    // Calls its first argument with 10 and returns its result * 2.
    let f = st.arg(1);
    st.push(f);
    st.push(Value::Int(10));
    Ok(Action::Call { nargs: 1, nresults: 1, k: Some((native_call_k, 0)) })
}

fn native_call_k(st: &mut State, _status: Status, _ctx: i64) -> Result<Action, Error> {
    let v = st.arg(st.nargs());
    let Value::Int(x) = v else { return Err(st.native_error("expected int")) };
    st.push(Value::Int(x * 2));
    Ok(Action::Return(1))
}

#[test]
fn natives_yield_and_call_with_continuations() {
    let mut st = State::new();
    let f = st.register_native("test.yield", native_yield);
    st.set_global("nyield", f);
    let g = st.register_native("test.call", native_call);
    st.set_global("ncall", g);
    let r = run(
        &mut st,
        "local co = coroutine.wrap(function(a) local r = nyield(a) return 'end', r end)
         local y = co(5)
         local e, r = co(1000)
         -- the called function yields through the native
         local co2 = coroutine.wrap(function() return ncall(function(x) return coroutine.yield(x) + 1 end) end)
         local y2 = co2()
         local r2 = co2(20)
         return y, e, r, y2, r2",
    )
    .unwrap();
    assert!(matches!(r[0], Value::Int(6)));
    assert_eq!(s(&st, r[1]), "end");
    assert!(matches!(r[2], Value::Int(1105)));
    assert!(matches!(r[3], Value::Int(10)));
    assert!(matches!(r[4], Value::Int(42)));
    st.check_heap().unwrap();
}

#[test]
fn yield_across_c_boundary_and_outside() {
    let mut st = State::new();
    let e = run(&mut st, "coroutine.yield(1)").unwrap_err();
    assert_eq!(e.to_string(), "attempt to yield from outside a coroutine");
}

#[test]
fn gc_churn_keeps_heap_small_and_consistent() {
    let mut st = State::new();
    run(&mut st, "local keep = {} for i = 1, 300000 do local t = {i} if i % 1000 == 0 then keep[#keep+1] = t end end return #keep")
        .unwrap();
    st.collect_garbage();
    st.check_heap().unwrap();
    assert!(st.memory_in_use() < 4 << 20, "{}", st.memory_in_use());
}

#[test]
fn print_is_captured_and_tostring_uses_metamethods() {
    use std::cell::RefCell;
    use std::rc::Rc;
    #[derive(Clone, Default)]
    struct Cap(Rc<RefCell<Vec<u8>>>);
    impl std::io::Write for Cap {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let cap = Cap::default();
    let mut st = State::new();
    st.set_stdout(Box::new(cap.clone()));
    run(&mut st, "print(1, 'a', nil, true, 2.5, setmetatable({}, {__tostring = function() return 'T' end}), setmetatable({}, {__name = 'N'}) ~= nil)")
        .unwrap();
    st.flush_stdout();
    assert_eq!(String::from_utf8_lossy(&cap.0.borrow()), "1\ta\tnil\ttrue\t2.5\tT\ttrue\n");
    let t = run(&mut st, "return setmetatable({}, {__name = 'My'})").unwrap()[0];
    let txt = String::from_utf8(st.tostring(t)).unwrap();
    assert!(txt.starts_with("My: 0x") && txt.len() == "My: 0x".len() + 12, "{txt}");
}

#[test]
fn budget_hook_fires() {
    fn hook(st: &mut State) -> Result<(), Error> {
        Err(st.error_string(b"budget exhausted"))
    }
    let mut st = State::new();
    st.set_budget_hook(Some(hook));
    let e = run(&mut st, "while true do end").unwrap_err();
    assert_eq!(e.to_string(), "budget exhausted");
}

#[test]
fn pins_keep_values_alive() {
    let mut st = State::new();
    let t = st.new_table();
    let p = st.pin(t);
    st.collect_garbage();
    st.check_heap().unwrap();
    assert!(matches!(st.pinned(p), Value::Table(_)));
    st.unpin(p);
    st.collect_garbage();
    st.check_heap().unwrap();
}

/// `set_int_in_array` and `set_ints_in_array` store only where `lua_seti`
/// would store raw (array part; no metatable, or a non-nil slot), and a
/// rollback undoes what they stored.
#[test]
fn array_stores_write_only_where_raw_and_roll_back() {
    let mut st = State::new();
    let r =
        run(&mut st, "t = {1, 2, 3, 4}; u = setmetatable({1, nil, 3}, {}); return t, u").unwrap();
    let (Value::Table(t), Value::Table(u)) = (r[0], r[1]) else { panic!("tables") };
    let snap = st.snapshot().unwrap();
    assert!(st.set_int_in_array(t, 2, Value::Int(20)));
    assert!(!st.set_int_in_array(t, 5, Value::Int(50)), "past the array part");
    assert!(!st.set_int_in_array(t, 0, Value::Int(0)));
    assert!(st.set_ints_in_array(t, 3, &[Value::Int(30), Value::Int(40)]));
    assert!(!st.set_ints_in_array(t, 3, &[Value::Int(1), Value::Int(2), Value::Int(3)]));
    assert!(st.set_int_in_array(u, 1, Value::Int(10)));
    assert!(!st.set_int_in_array(u, 2, Value::Int(20)), "nil slot with a metatable");
    assert!(!st.set_ints_in_array(u, 1, &[Value::Int(7), Value::Int(8)]));
    // An append within the array's capacity, on a table without a metatable.
    let r = run(&mut st, "w = {}; for i = 1, 5 do w[i] = i end; return w").unwrap();
    let Value::Table(w) = r[0] else { panic!("table") };
    let room = (6..=64).take_while(|&i| st.set_int_in_array(w, i, Value::Int(i * 10))).count();
    assert!(room > 0, "a table grown by appends has room for one more");
    assert!(!st.set_int_in_array(w, 8 + room as i64, Value::Int(0)), "a gap is not an append");
    assert!(!st.set_int_in_array(w, 6 + room as i64, Value::Nil), "nil is not an append");
    let r = run(&mut st, "return #w, w[6]").unwrap();
    assert!(matches!(r[..], [Value::Int(n), Value::Int(60)] if n == 5 + room as i64));
    let r = run(&mut st, "return t[1] .. ',' .. t[2] .. ',' .. t[3] .. ',' .. t[4], u[1], u[2]")
        .unwrap();
    assert_eq!(s(&st, r[0]), "1,20,30,40");
    assert!(matches!(r[1..], [Value::Int(10), Value::Nil]));
    st.rollback(snap).unwrap();
    let r = run(&mut st, "return t[1] .. ',' .. t[2] .. ',' .. t[3] .. ',' .. t[4], u[1]").unwrap();
    assert_eq!(s(&st, r[0]), "1,2,3,4");
    assert!(matches!(r[1], Value::Int(1)));
    st.check_heap().unwrap();
}
