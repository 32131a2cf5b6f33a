//! The typed boundary's fast paths (issue 16): callbacks run on the lent
//! state, arguments and results convert straight from and to the stack,
//! `Function::call` pushes its arguments in place. These cases exercise the
//! edges of those paths: many values (past the inline buffer of 8), errors
//! in the middle of a conversion, nested lending, handles dropped while the
//! state is lent, and one closure type shared by two states. Small enough
//! to run under Miri (`cargo +nightly miri test -p luprex-vm --test
//! boundary`), which checks the lending's `unsafe` block.

use luprex_vm::{Error, Function, Lua, Table, Value, Variadic};

#[test]
fn many_arguments_and_results_cross_both_ways() -> Result<(), Error> {
    let lua = Lua::new();
    let sum = lua.create_function(|_, xs: Variadic<i64>| Ok(xs.iter().sum::<i64>()))?;
    lua.globals().set("sum", sum)?;
    let spread = lua.create_function(|_, n: i64| Ok(Variadic((1..=n).collect::<Vec<i64>>())))?;
    lua.globals().set("spread", spread)?;
    assert_eq!(lua.load("sum(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)").eval::<i64>()?, 78);
    assert_eq!(lua.load("sum(spread(20))").eval::<i64>()?, 210);
    assert_eq!(lua.load("select('#', spread(0))").eval::<i64>()?, 0);
    let f: Function = lua.load("return function(...) return ... end").eval()?;
    let many: Variadic<i64> = f.call(Variadic((1..=30).collect::<Vec<i64>>()))?;
    assert_eq!(many.len(), 30);
    assert_eq!(many[29], 30);
    let (a, b, rest): (i64, String, Variadic<i64>) = f.call((1, "two", 3, 4, 5, 6, 7, 8, 9, 10))?;
    assert_eq!((a, b.as_str(), rest.len()), (1, "two", 8));
    let none: Option<i64> = f.call(())?;
    assert_eq!(none, None);
    Ok(())
}

#[test]
fn conversion_errors_leave_the_stack_clean() -> Result<(), Error> {
    let lua = Lua::new();
    let f: Function = lua.load("return function(a, b) return a, b end").eval()?;
    for _ in 0..100 {
        // results that do not convert
        assert!(f.call::<(i64, i64)>((1, "x")).is_err());
        // a callback whose arguments do not convert
        let g = lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b))?;
        let r = g.call::<i64>((1, "not a number"));
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("bad argument #2"), "{msg}");
    }
    // a runtime error inside the call
    let boom: Function = lua.load("return function() error('boom') end").eval()?;
    assert!(boom.call::<()>(()).unwrap_err().to_string().contains("boom"));
    // the state still works, and nothing piled up on its stack
    assert_eq!(f.call::<(i64, String)>((7, "y"))?, (7, "y".to_string()));
    // (at top level, with no frame, `nargs` is the stack's length)
    let depth = lua.with_raw_state(|st| st.nargs())?;
    assert_eq!(depth, 0);
    Ok(())
}

#[test]
fn callbacks_use_the_lent_state_at_any_depth() -> Result<(), Error> {
    let lua = Lua::new();
    // a callback that creates values, calls Lua, which calls it again
    let down = lua.create_function(|lua, n: i64| {
        let t = lua.create_table()?;
        t.set("n", n)?;
        if n == 0 {
            return Ok(t);
        }
        let f: Function = lua.globals().get("down")?;
        let inner: Table = f.call(n - 1)?;
        t.set("inner", inner)?;
        Ok(t)
    })?;
    lua.globals().set("down", down)?;
    let depth =
        lua.load("local t, d = down(20), 0 while t.inner do t, d = t.inner, d + 1 end return d");
    assert_eq!(depth.eval::<i64>()?, 20);
    // handles made and dropped inside a callback release their pins
    let churn = lua.create_function(|lua, n: i64| {
        for i in 0..n {
            let s = lua.create_string(format!("s{i}"))?;
            drop(s);
        }
        Ok(lua.globals().get::<Value>("churn")?.is_function())
    })?;
    lua.globals().set("churn", churn)?;
    assert!(lua.load("churn(200)").eval::<bool>()?);
    lua.collect_garbage()?;
    assert!(lua.load("churn(10)").eval::<bool>()?);
    Ok(())
}

fn make_add(lua: &Lua) -> Result<Function, Error> {
    // one closure type, so one trampoline native per state
    lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b))
}

#[test]
fn one_closure_type_in_two_states() -> Result<(), Error> {
    let (a, b) = (Lua::new(), Lua::new());
    for lua in [&a, &b] {
        for i in 0..3 {
            lua.globals().set(format!("add{i}"), make_add(lua)?)?;
        }
    }
    assert_eq!(a.load("add0(1, 2) + add2(3, 4)").eval::<i64>()?, 10);
    assert_eq!(b.load("add1(5, 6)").eval::<i64>()?, 11);
    drop(a);
    assert_eq!(b.load("add2(1, 1)").eval::<i64>()?, 2);
    // a callback cannot be saved: the state refuses
    assert!(b.save_state().is_err());
    Ok(())
}
