//! The embedding API (`luprex_vm::Lua`), through its public surface only.

use luprex_vm::{
    AnyUserData, Error, Function, Lua, LuaString, MetaMethod, MultiValue, Table, UserData,
    UserDataFields, UserDataMethods, UserDataRef, Variadic,
};
use luprex_vm::{ErrorKind, Result, Value};
use std::collections::{BTreeMap, HashMap};

#[test]
fn load_exec_eval_call() {
    let lua = Lua::new();
    lua.load("x = 1 + 2").exec().unwrap();
    assert_eq!(lua.globals().get::<i64>("x").unwrap(), 3);
    assert_eq!(lua.load("x * 2").eval::<i64>().unwrap(), 6);
    assert_eq!(lua.load("local a = 5; return a").eval::<i64>().unwrap(), 5);
    let (a, b): (i64, String) =
        lua.load("local p, q = ... return p + 1, q .. '!'").call((41, "hi")).unwrap();
    assert_eq!((a, b.as_str()), (42, "hi!"));
    let f = lua.load("return 7").set_name("seven").into_function().unwrap();
    assert_eq!(f.call::<i64>(()).unwrap(), 7);
}

#[test]
fn environment_and_name() {
    let lua = Lua::new();
    let env = lua.create_table().unwrap();
    env.set("y", 10).unwrap();
    let v: i64 = lua.load("return y").set_environment(env.clone()).eval().unwrap();
    assert_eq!(v, 10);
    lua.load("z = 3").set_environment(env.clone()).exec().unwrap();
    assert_eq!(env.get::<i64>("z").unwrap(), 3);
    assert!(lua.globals().get::<Option<i64>>("z").unwrap().is_none());
    let e = lua.load("error('boom')").set_name("mychunk").exec().unwrap_err();
    assert!(e.to_string().starts_with("mychunk:1: boom"), "{e}");
}

#[test]
fn integer_and_float_conversions_both_ways() {
    let lua = Lua::new();
    let g = lua.globals();
    g.set("a", 5u8).unwrap();
    g.set("b", -7i32).unwrap();
    g.set("c", 2.5f64).unwrap();
    g.set("d", u64::MAX).unwrap();
    g.set("e", 1.5f32).unwrap();
    assert_eq!(lua.load("math.type and 0 or 0").eval::<i64>().unwrap_or(0), 0);
    assert!(lua
        .load("return a == 5 and b == -7 and c == 2.5 and e == 1.5")
        .eval::<bool>()
        .unwrap());
    assert_eq!(g.get::<f64>("d").unwrap(), u64::MAX as f64);
    assert_eq!(g.get::<u8>("a").unwrap(), 5);
    assert_eq!(g.get::<i16>("b").unwrap(), -7);
    assert_eq!(g.get::<f32>("c").unwrap(), 2.5);
    assert_eq!(lua.load("3.0").eval::<i64>().unwrap(), 3);
    assert_eq!(lua.load("'12'").eval::<i64>().unwrap(), 12);
    assert_eq!(lua.load("'1.5'").eval::<f64>().unwrap(), 1.5);
    assert_eq!(lua.load("7").eval::<f64>().unwrap(), 7.0);
    let e = lua.load("3.5").eval::<i64>().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Conversion { .. }), "{e}");
    let e = lua.load("300").eval::<u8>().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Conversion { .. }), "{e}");
    let e = lua.load("{}").eval::<i64>().unwrap_err();
    match e.kind() {
        ErrorKind::Conversion { from, to } => {
            assert_eq!((from.as_str(), to.as_str()), ("table", "i64"))
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn strings_bools_options_values() {
    let lua = Lua::new();
    let g = lua.globals();
    g.set("s", "héllo").unwrap();
    g.set("t", String::from("x")).unwrap();
    assert_eq!(g.get::<String>("s").unwrap(), "héllo");
    assert_eq!(lua.load("#s").eval::<i64>().unwrap(), 6);
    assert_eq!(lua.load("12").eval::<String>().unwrap(), "12");
    assert_eq!(lua.load("1.5").eval::<String>().unwrap(), "1.5");
    let bin: LuaString = lua.load("'\\xff\\0a'").eval().unwrap();
    assert_eq!(bin.as_bytes(), vec![0xff, 0, b'a']);
    assert!(bin.to_str().is_err());
    assert!(lua.load("'\\xff'").eval::<String>().is_err());
    g.set("yes", true).unwrap();
    assert!(g.get::<bool>("yes").unwrap());
    assert!(!g.get::<bool>("nothing").unwrap());
    assert!(lua.load("0").eval::<bool>().unwrap());
    g.set("o", Some(3)).unwrap();
    g.set("n", None::<i64>).unwrap();
    assert_eq!(g.get::<Option<i64>>("o").unwrap(), Some(3));
    assert_eq!(g.get::<Option<i64>>("n").unwrap(), None);
    assert_eq!(g.get::<Value>("o").unwrap(), Value::Integer(3));
    assert_eq!(lua.load("1.0").eval::<Value>().unwrap(), Value::Number(1.0));
    assert_eq!(Value::Integer(1), Value::Number(1.0));
    let s1: Value = lua.load("'abc'").eval().unwrap();
    let s2: Value = lua.load("'ab' .. 'c'").eval().unwrap();
    assert_eq!(s1, s2);
    assert_eq!(s1.type_name(), "string");
}

#[test]
fn collections_both_ways() {
    let lua = Lua::new();
    let g = lua.globals();
    g.set("v", vec![1, 2, 3]).unwrap();
    assert_eq!(lua.load("#v + v[3]").eval::<i64>().unwrap(), 6);
    assert_eq!(lua.load("{4, 5, 6}").eval::<Vec<i64>>().unwrap(), vec![4, 5, 6]);
    let mut hm = HashMap::new();
    hm.insert("b".to_string(), 2);
    hm.insert("a".to_string(), 1);
    hm.insert("c".to_string(), 3);
    g.set("hm", hm.clone()).unwrap();
    // Sorted insertion: traversal order is a, b, c.
    let order: String =
        lua.load("local s = '' for k in pairs(hm) do s = s .. k end return s").eval().unwrap();
    assert_eq!(order, "abc");
    assert_eq!(g.get::<HashMap<String, i64>>("hm").unwrap(), hm);
    let mut bm = BTreeMap::new();
    bm.insert(1, "one".to_string());
    bm.insert(2, "two".to_string());
    g.set("bm", bm.clone()).unwrap();
    assert_eq!(g.get::<BTreeMap<i64, String>>("bm").unwrap(), bm);
    assert_eq!(lua.load("bm[2]").eval::<String>().unwrap(), "two");
    let t: Table = lua.load("{10, 20, 30, x = 'y'}").eval().unwrap();
    let seq: Vec<i64> = t.sequence_values().collect::<Result<_>>().unwrap();
    assert_eq!(seq, vec![10, 20, 30]);
    let pairs: Vec<(Value, Value)> = t.pairs().collect::<Result<_>>().unwrap();
    assert_eq!(pairs.len(), 4);
    assert_eq!(pairs[3].0, Value::String(lua.create_string("x").unwrap()));
    assert_eq!(t.len().unwrap(), 3);
    assert_eq!(t.raw_len(), 3);
    assert!(lua.load("{1, 'x'}").eval::<Vec<i64>>().is_err());
}

#[test]
fn table_api_and_metamethods() {
    let lua = Lua::new();
    let t = lua.create_table().unwrap();
    t.raw_set(1, "a").unwrap();
    t.push("b").unwrap();
    assert_eq!(t.raw_get::<String>(2).unwrap(), "b");
    assert!(t.contains_key(1).unwrap());
    assert!(t.raw_set(Value::Nil, 1).is_err());
    let mt: Table = lua
        .load("{__index = function(_, k) return k .. '?' end, __len = function() return 99 end}")
        .eval()
        .unwrap();
    t.set_metatable(Some(mt.clone())).unwrap();
    assert_eq!(t.get::<String>("zz").unwrap(), "zz?");
    assert_eq!(t.raw_get::<Option<String>>("zz").unwrap(), None);
    assert_eq!(t.len().unwrap(), 99);
    assert_eq!(t.raw_len(), 2);
    assert!(t.metatable().unwrap() == mt);
    t.set_metatable(None).unwrap();
    assert!(t.metatable().is_none());
    let from = lua.create_table_from([("k", 1), ("l", 2)]).unwrap();
    assert_eq!(from.get::<i64>("l").unwrap(), 2);
}

#[test]
fn callbacks_with_tuples_and_variadics() {
    let lua = Lua::new();
    let add = lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b)).unwrap();
    lua.globals().set("add", add.clone()).unwrap();
    assert_eq!(lua.load("add(2, 3)").eval::<i64>().unwrap(), 5);
    assert_eq!(add.call::<i64>((4, 5)).unwrap(), 9);
    let concat = lua
        .create_function(|_, (sep, parts): (String, Variadic<String>)| Ok(parts.join(&sep)))
        .unwrap();
    lua.globals().set("concat", concat).unwrap();
    assert_eq!(lua.load("concat('-', 'a', 'b', 'c')").eval::<String>().unwrap(), "a-b-c");
    let multi = lua.create_function(|_, n: i64| Ok(Variadic((0..n).collect::<Vec<_>>()))).unwrap();
    lua.globals().set("multi", multi).unwrap();
    assert_eq!(lua.load("select('#', multi(4))").eval::<i64>().unwrap(), 4);
    let statik = lua.create_function(|_, ()| Ok("static str")).unwrap();
    assert_eq!(statik.call::<String>(()).unwrap(), "static str");
    let make = lua
        .create_function(|lua, n: i64| {
            let t = lua.create_table()?;
            for i in 1..=n {
                t.set(i, i * i)?;
            }
            Ok(t)
        })
        .unwrap();
    lua.globals().set("make", make).unwrap();
    assert_eq!(lua.load("make(4)[4]").eval::<i64>().unwrap(), 16);
    let mut count = 0;
    let counter = lua
        .create_function_mut(move |_, ()| {
            count += 1;
            Ok(count)
        })
        .unwrap();
    counter.call::<()>(()).unwrap();
    assert_eq!(counter.call::<i64>(()).unwrap(), 2);
    let mv = lua.create_function(|_, args: MultiValue| Ok(args.len())).unwrap();
    assert_eq!(mv.call::<usize>((1, 2, 3)).unwrap(), 3);
}

#[test]
fn nested_callbacks_calling_lua_calling_callbacks() {
    let lua = Lua::new();
    let depth = lua
        .create_function(|lua, n: i64| {
            if n == 0 {
                return Ok(0);
            }
            let f: Function = lua.globals().get("rec")?;
            Ok(1 + f.call::<i64>(n - 1)?)
        })
        .unwrap();
    lua.globals().set("depth", depth).unwrap();
    lua.load("function rec(n) return depth(n) end").exec().unwrap();
    assert_eq!(lua.load("rec(5)").eval::<i64>().unwrap(), 5);
    // A callback loading and running a chunk that calls back.
    let run = lua.create_function(|lua, src: String| lua.load(src).eval::<i64>()).unwrap();
    lua.globals().set("run", run).unwrap();
    assert_eq!(lua.load("run('run(\"1 + 1\") * 10')").eval::<i64>().unwrap(), 20);
}

#[derive(Debug)]
struct MyErr;

impl std::fmt::Display for MyErr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("my error")
    }
}

impl std::error::Error for MyErr {}

#[test]
fn callback_errors_keep_their_cause() {
    let lua = Lua::new();
    let fail = lua.create_function(|_, ()| -> Result<()> { Err(Error::external(MyErr)) }).unwrap();
    lua.globals().set("fail", fail).unwrap();
    // Caught by pcall in Lua: a string message with the caller's position.
    let (ok, msg): (bool, String) = lua.load("return pcall(fail)").set_name("c").eval().unwrap();
    assert!(!ok);
    assert_eq!(msg, "my error");
    let msg: String = lua
        .load("local ok, e = pcall(function() fail() end) return e")
        .set_name("c")
        .eval()
        .unwrap();
    assert_eq!(msg, "c:1: my error");
    // Not caught: out of the API with kind and cause.
    let e = lua.load("local x = 1\nfail()").set_name("c").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Callback);
    assert_eq!(e.to_string(), "c:2: my error");
    let src = std::error::Error::source(&e).expect("source");
    assert!(src.downcast_ref::<MyErr>().is_some());
    assert!(e.cause().is_some());
    assert!(e.traceback().contains("stack traceback"), "{}", e.traceback());
    // Through a Lua function called from Rust.
    let f: Function = lua.load("return function() fail() end").eval().unwrap();
    let e = f.call::<()>(()).unwrap_err();
    assert!(e.cause().is_some());
    // The state stays usable.
    assert_eq!(lua.load("1").eval::<i64>().unwrap(), 1);
}

#[test]
fn bad_arguments() {
    let lua = Lua::new();
    let f = lua.create_function(|_, (a, b): (i64, String)| Ok(format!("{a}{b}"))).unwrap();
    lua.globals().set("f", f).unwrap();
    let e = lua.load("f(1, {})").set_name("c").exec().unwrap_err();
    assert_eq!(e.to_string(), "c:1: bad argument #2 to 'f' (string expected, got table)");
    match e.kind() {
        ErrorKind::BadArgument { pos, func } => {
            assert_eq!(*pos, 2);
            assert_eq!(func.as_deref(), Some("f"));
        }
        k => panic!("{k:?}"),
    }
    let e = lua.load("f('x', 'y')").set_name("c").exec().unwrap_err();
    assert!(e.to_string().contains("bad argument #1 to 'f' (integer expected, got string)"), "{e}");
    let (ok, msg): (bool, String) = lua.load("return pcall(f, 1.5, 'y')").eval().unwrap();
    assert!(!ok);
    assert!(msg.contains("bad argument #1"), "{msg}");
}

#[test]
fn syntax_and_runtime_errors() {
    let lua = Lua::new();
    let e = lua.load("x = ").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: true });
    assert!(e.is_incomplete_input());
    let e = lua.load("for i = 1, 2 do").exec().unwrap_err();
    assert!(e.is_incomplete_input());
    let e = lua.load("x = = 1").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Syntax { incomplete_input: false });
    assert!(e.to_string().contains("unexpected symbol"), "{e}");
    let e = lua.load("local t = nil; return t.x").set_name("r").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Runtime);
    assert!(e.to_string().starts_with("r:1: attempt to index a nil value"), "{e}");
    assert!(e.traceback().starts_with("stack traceback:"), "{}", e.traceback());
    let e = lua.load("error({code = 42})").exec().unwrap_err();
    assert_eq!(e.to_string(), "(error object is a table value)");
    // The error is a std error usable with `?` in anyhow-like code.
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(!boxed.to_string().is_empty());
}

#[derive(Debug, Clone, PartialEq)]
struct Vec2 {
    x: f64,
    y: f64,
}

impl UserData for Vec2 {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("x", |_, v| Ok(v.x));
        fields.add_field_method_get("y", |_, v| Ok(v.y));
        fields.add_field_method_set("x", |_, v, x: f64| {
            v.x = x;
            Ok(())
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("len", |_, v, ()| Ok((v.x * v.x + v.y * v.y).sqrt()));
        methods.add_method_mut("scale", |_, v, k: f64| {
            v.x *= k;
            v.y *= k;
            Ok(())
        });
        methods.add_method("table", |lua, v, ()| lua.create_sequence_from([v.x, v.y]));
        methods.add_function("new", |lua, (x, y): (f64, f64)| lua.create_userdata(Vec2 { x, y }));
        methods.add_meta_function(
            MetaMethod::Add,
            |lua, (a, b): (UserDataRef<Vec2>, UserDataRef<Vec2>)| {
                lua.create_userdata(Vec2 { x: a.x + b.x, y: a.y + b.y })
            },
        );
        methods.add_meta_method(MetaMethod::ToString, |_, v, ()| Ok(format!("({}, {})", v.x, v.y)));
        methods.add_meta_method(MetaMethod::Eq, |_, v, o: UserDataRef<Vec2>| Ok(*v == *o));
    }
}

#[test]
fn userdata_methods_fields_metamethods() {
    let lua = Lua::new();
    let v = lua.create_userdata(Vec2 { x: 3.0, y: 4.0 }).unwrap();
    lua.globals().set("v", v.clone()).unwrap();
    assert_eq!(lua.load("v:len()").eval::<f64>().unwrap(), 5.0);
    assert_eq!(lua.load("v.x + v.y").eval::<f64>().unwrap(), 7.0);
    lua.load("v.x = 6; v:scale(0.5)").exec().unwrap();
    assert_eq!(*v.borrow::<Vec2>().unwrap(), Vec2 { x: 3.0, y: 2.0 });
    assert_eq!(lua.load("tostring(v)").eval::<String>().unwrap(), "(3, 2)");
    assert_eq!(lua.load("tostring(v + v.new(1, 1))").eval::<String>().unwrap(), "(4, 3)");
    assert_eq!(lua.load("v:table()[2]").eval::<f64>().unwrap(), 2.0);
    assert!(lua.load("v == v.new(3, 2)").eval::<bool>().unwrap());
    assert_eq!(lua.load("v.nope").eval::<Option<f64>>().unwrap(), None);
    let e = lua.load("v.y = 1").exec().unwrap_err();
    assert!(e.to_string().contains("unknown field 'y'"), "{e}");
    let e = lua.load("v.len(1)").exec().unwrap_err();
    assert!(e.to_string().contains("bad argument #1"), "{e}");
    // Borrowing.
    {
        let mut b = v.borrow_mut::<Vec2>().unwrap();
        b.y = 10.0;
        assert!(v.borrow::<Vec2>().is_err());
        let e = lua.load("v:len()").exec().unwrap_err();
        assert!(e.to_string().contains("already borrowed"), "{e}");
    }
    assert_eq!(lua.load("v.y").eval::<f64>().unwrap(), 10.0);
    assert!(v.is::<Vec2>());
    assert!(!v.is::<String>());
    let e = v.borrow::<String>().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Conversion { .. }), "{e}");
    let ud: AnyUserData = lua.globals().get("v").unwrap();
    assert!(ud == v);
    let taken: Vec2 = v.take().unwrap();
    assert_eq!(taken.y, 10.0);
    let e = lua.load("v:len()").exec().unwrap_err();
    assert!(e.to_string().contains("destructed"), "{e}");
    assert_eq!(lua.load("type(v)").eval::<String>().unwrap(), "userdata");
}

#[test]
fn handles_survive_collection_and_dropped_handles_are_collected() {
    let lua = Lua::new();
    let t: Table = lua.load("local t = {1, 2, 3} return t").eval().unwrap();
    let s: LuaString = lua.load("return 'only-in-a-handle-' .. 42").eval().unwrap();
    let f: Function = lua.load("local n = 10 return function() return n end").eval().unwrap();
    for _ in 0..3 {
        lua.collect_garbage().unwrap();
    }
    assert_eq!(t.raw_get::<i64>(3).unwrap(), 3);
    assert_eq!(s.to_str().unwrap(), "only-in-a-handle-42");
    assert_eq!(f.call::<i64>(()).unwrap(), 10);
    // A weak table sees whether the object is still alive.
    lua.load("weak = setmetatable({}, {__mode = 'v'})").exec().unwrap();
    let obj = lua.create_table().unwrap();
    let weak: Table = lua.globals().get("weak").unwrap();
    weak.set(1, obj.clone()).unwrap();
    lua.collect_garbage().unwrap();
    assert_eq!(lua.load("#weak").eval::<i64>().unwrap(), 1);
    drop(obj);
    lua.collect_garbage().unwrap();
    assert_eq!(lua.load("#weak").eval::<i64>().unwrap(), 0);
    // Registry keys.
    let key = lua.create_registry_value(lua.create_table().unwrap()).unwrap();
    let weak2: Table =
        lua.load("weak2 = setmetatable({}, {__mode = 'v'}) return weak2").eval().unwrap();
    weak2.set(1, lua.registry_value::<Table>(&key).unwrap()).unwrap();
    lua.collect_garbage().unwrap();
    assert_eq!(weak2.raw_len(), 1);
    lua.remove_registry_value(key).unwrap();
    lua.collect_garbage().unwrap();
    assert_eq!(weak2.raw_len(), 0);
}

#[test]
fn callback_closure_freed_with_its_function() {
    use std::rc::Rc;
    let lua = Lua::new();
    let marker = Rc::new(());
    let m = marker.clone();
    let f = lua.create_function(move |_, ()| Ok(Rc::strong_count(&m))).unwrap();
    assert_eq!(Rc::strong_count(&marker), 2);
    assert_eq!(f.call::<usize>(()).unwrap(), 2);
    drop(f);
    lua.collect_garbage().unwrap();
    assert_eq!(Rc::strong_count(&marker), 1);
}

#[test]
fn userdata_dropped_on_collection() {
    use std::rc::Rc;
    struct Holder(#[allow(dead_code)] Rc<()>);
    impl UserData for Holder {}
    let lua = Lua::new();
    let marker = Rc::new(());
    let ud = lua.create_userdata(Holder(marker.clone())).unwrap();
    lua.collect_garbage().unwrap();
    assert_eq!(Rc::strong_count(&marker), 2);
    drop(ud);
    lua.collect_garbage().unwrap();
    assert_eq!(Rc::strong_count(&marker), 1);
}

#[test]
fn coroutines_and_callbacks() {
    let lua = Lua::new();
    let double = lua.create_function(|_, n: i64| Ok(n * 2)).unwrap();
    lua.globals().set("double", double).unwrap();
    let v: i64 = lua
        .load(
            "local co = coroutine.wrap(function(a) local b = coroutine.yield(double(a)) return double(b) end)
             return co(3) + co(10)",
        )
        .eval()
        .unwrap();
    assert_eq!(v, 26);
}

#[test]
fn lua_values_as_handles_in_callbacks() {
    let lua = Lua::new();
    let apply = lua
        .create_function(|_, (f, t): (Function, Table)| {
            let mut out = Vec::new();
            for v in t.sequence_values::<i64>() {
                out.push(f.call::<i64>(v?)?);
            }
            Ok(out)
        })
        .unwrap();
    lua.globals().set("apply", apply).unwrap();
    let v: Vec<i64> = lua.load("apply(function(x) return x + 1 end, {1, 2, 3})").eval().unwrap();
    assert_eq!(v, vec![2, 3, 4]);
}

#[test]
fn raw_state_access() {
    let lua = Lua::new();
    lua.with_raw_state(|st| st.set_global("answer", luprex_vm::raw::Value::Int(42))).unwrap();
    assert_eq!(lua.globals().get::<i64>("answer").unwrap(), 42);
    // API use inside is refused, not a panic.
    let inner = lua.with_raw_state(|_| lua.create_table().is_err()).unwrap();
    assert!(inner);
}

#[test]
fn limits_are_catchable_by_the_host_and_leave_the_vm_usable() {
    use luprex_vm::LuaOptions;
    let lua = Lua::new_with_options(LuaOptions::new().instruction_limit(10_000));
    let e = lua.load("while true do end").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InstructionLimit);
    // pcall in Lua cannot swallow it.
    lua.set_instruction_limit(Some(10_000)).unwrap();
    let e = lua.load("pcall(function() while true do end end) return 1").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InstructionLimit);
    lua.set_instruction_limit(None).unwrap();
    assert_eq!(lua.load("1 + 1").eval::<i64>().unwrap(), 2);

    assert_eq!(lua.set_memory_limit(lua.used_memory() + 200_000).unwrap(), 0);
    let e = lua.load("local t = {} for i = 1, 1e7 do t[i] = {} end").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Memory, "{e}");
    lua.collect_garbage().unwrap();
    assert_eq!(lua.load("#'still works'").eval::<i64>().unwrap(), 11);

    let h = lua.interrupt_handle().unwrap();
    assert!(lua.set_memory_limit(0).unwrap() > 0);
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.interrupt();
        h
    });
    let e = lua.load("while true do end").exec().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Interrupted);
    t.join().unwrap().clear();
    assert_eq!(lua.load("2").eval::<i64>().unwrap(), 2);
}

#[cfg(feature = "serde")]
mod serde_support {
    use luprex_vm::Lua;
    use luprex_vm::{LuaSerdeExt, Value};
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Shape {
        Empty,
        Circle(f64),
        Rect { w: i64, h: i64 },
        Pair(i64, String),
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Config {
        name: String,
        level: u32,
        ratio: f64,
        tags: Vec<String>,
        nick: Option<String>,
        missing: Option<i64>,
        shapes: Vec<Shape>,
        scores: BTreeMap<String, i64>,
        flag: bool,
    }

    fn sample() -> Config {
        let mut scores = BTreeMap::new();
        scores.insert("a".to_string(), 1);
        scores.insert("b".to_string(), -2);
        Config {
            name: "x".into(),
            level: 3,
            ratio: 0.5,
            tags: vec!["t1".into(), "t2".into()],
            nick: Some("nk".into()),
            missing: None,
            shapes: vec![
                Shape::Empty,
                Shape::Circle(1.5),
                Shape::Rect { w: 2, h: 3 },
                Shape::Pair(7, "seven".into()),
            ],
            scores,
            flag: true,
        }
    }

    #[test]
    fn round_trip_through_lua() {
        let lua = Lua::new();
        let v = lua.to_value(&sample()).unwrap();
        lua.globals().set("cfg", v).unwrap();
        let check = "return cfg.name == 'x' and cfg.level == 3 and #cfg.tags == 2 and cfg.nick == 'nk'
            and cfg.missing == nil and cfg.shapes[1] == 'Empty' and cfg.shapes[2].Circle == 1.5
            and cfg.shapes[3].Rect.h == 3 and cfg.shapes[4].Pair[2] == 'seven' and cfg.scores.b == -2
            and cfg.flag == true";
        assert!(lua.load(check).eval::<bool>().unwrap());
        let back: Config = lua.from_value(lua.globals().get::<Value>("cfg").unwrap()).unwrap();
        assert_eq!(back, sample());
    }

    #[test]
    fn from_lua_written_tables() {
        let lua = Lua::new();
        let v: Value = lua
            .load("{name = 'n', level = 1, ratio = 2, tags = {}, shapes = {'Empty', {Rect = {w = 1, h = 2}}}, scores = {}, flag = false}")
            .eval()
            .unwrap();
        let c: Config = lua.from_value(v).unwrap();
        assert_eq!(c.ratio, 2.0);
        assert_eq!(c.shapes[1], Shape::Rect { w: 1, h: 2 });
        assert_eq!(c.nick, None);
        let bad: Value = lua.load("{name = 1}").eval().unwrap();
        assert!(lua.from_value::<Config>(bad).is_err());
        let seq: Vec<(i64, bool)> =
            lua.from_value(lua.load("{{1, true}, {2, false}}").eval().unwrap()).unwrap();
        assert_eq!(seq, vec![(1, true), (2, false)]);
        let any: serde_any::Any =
            lua.from_value(lua.load("{1, 2, x = 3}").eval().unwrap()).unwrap();
        assert_eq!(any.0, 3);
    }

    /// Counts the entries of any self-describing value (exercises
    /// `deserialize_any` on a mixed table: a map).
    mod serde_any {
        use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
        pub struct Any(pub usize);
        impl<'de> Deserialize<'de> for Any {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Any;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a map")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Any, A::Error> {
                        let mut n = 0;
                        while m
                            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                            .is_some()
                        {
                            n += 1;
                        }
                        Ok(Any(n))
                    }
                }
                d.deserialize_any(V)
            }
        }
    }
}

#[test]
fn threads_resume_from_rust() {
    use luprex_vm::ThreadStatus;
    let lua = Lua::new();
    let f: Function = lua
        .load("function(a) local b = coroutine.yield(a + 1) return b * 2, 'done' end")
        .eval()
        .unwrap();
    let co = lua.create_thread(f).unwrap();
    assert_eq!(co.status(), ThreadStatus::Resumable);
    assert_eq!(co.resume::<i64>(1).unwrap(), 2);
    let (v, s): (i64, String) = co.resume(10).unwrap();
    assert_eq!((v, s.as_str()), (20, "done"));
    assert_eq!(co.status(), ThreadStatus::Finished);
    let e = co.resume::<()>(()).unwrap_err();
    assert_eq!(e.to_string(), "cannot resume dead coroutine");
    let bad: luprex_vm::Thread =
        lua.load("coroutine.create(function() error('inside') end)").eval().unwrap();
    let e = bad.resume::<()>(()).unwrap_err();
    assert!(e.to_string().ends_with("inside"), "{e}");
    assert_eq!(bad.status(), ThreadStatus::Error);
    assert_eq!(lua.load("1").eval::<i64>().unwrap(), 1);
}

#[test]
fn shared_userdata_borrows_coexist() {
    let lua = Lua::new();
    let v = lua.create_userdata(Vec2 { x: 1.0, y: 2.0 }).unwrap();
    lua.globals().set("v", &v).unwrap();
    // Both operands are the same object, borrowed shared twice.
    assert_eq!(lua.load("tostring(v + v)").eval::<String>().unwrap(), "(2, 4)");
    assert!(lua.load("v == v").eval::<bool>().unwrap());
    // A shared borrow held by Rust does not block Lua's reads, but blocks writes.
    let r = v.borrow::<Vec2>().unwrap();
    assert_eq!(lua.load("v.x + v:len() * 0").eval::<f64>().unwrap(), 1.0);
    let e = lua.load("v:scale(2)").exec().unwrap_err();
    assert!(e.to_string().contains("already borrowed"), "{e}");
    assert!(v.take::<Vec2>().is_err());
    drop(r);
    lua.load("v:scale(2)").exec().unwrap();
    assert_eq!(v.borrow::<Vec2>().unwrap().y, 4.0);
}

#[test]
fn snapshot_rollback_and_save_through_the_api() -> Result<()> {
    let lua = Lua::new();
    lua.load("counter = 0 items = {}").exec()?;
    let before = lua.state_hash()?;
    let kept = lua.create_table()?;
    kept.set("x", 1)?;
    lua.globals().set("kept", kept.clone())?;
    let before_kept = lua.state_hash()?;
    let s = lua.snapshot()?;
    lua.load("counter = counter + 1 for i = 1, 100 do items[i] = {i} end").exec()?;
    let late = lua.create_table()?;
    late.set("y", 2)?;
    assert_eq!(lua.globals().get::<i64>("counter")?, 1);
    lua.rollback(s)?;
    assert_eq!(lua.globals().get::<i64>("counter")?, 0);
    assert_eq!(lua.load("return #items").eval::<i64>()?, 0);
    assert_eq!(lua.state_hash()?, before_kept);
    assert_ne!(before, before_kept);
    // a handle taken before the snapshot still works; one taken after it is dead
    assert_eq!(kept.get::<i64>("x")?, 1);
    assert!(late.get::<Option<i64>>("y").is_err() || late.get::<Option<i64>>("y")?.is_none());
    // replay gives the same state
    lua.load("counter = counter + 1 for i = 1, 100 do items[i] = {i} end").exec()?;
    let replayed = lua.state_hash()?;
    lua.rollback(s)?;
    lua.load("counter = counter + 1 for i = 1, 100 do items[i] = {i} end").exec()?;
    assert_eq!(lua.state_hash()?, replayed);
    lua.release(s)?;
    assert!(lua.rollback(s).is_err(), "a released snapshot is refused");
    // save and load into another Lua
    let bytes = lua.save_state()?;
    let other = Lua::new();
    other.load_state(&bytes)?;
    assert_eq!(other.state_hash()?, lua.state_hash()?);
    assert_eq!(other.globals().get::<i64>("counter")?, 1);
    Ok(())
}
