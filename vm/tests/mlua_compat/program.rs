// A host program written for mlua's common API (mlua 0.12). It names no
// crate: the file that includes it says which crate `mlua` is. The vm's
// test (`vm/tests/mlua_compat.rs`) includes it with `use luprex_vm as mlua;`;
// `benches/boundary` includes it twice, with the real mlua and with ours,
// and checks that both print the same log.
//
// It sticks to what both crates' `Lua::new()` open: the base and coroutine
// libraries (mlua opens the others too; luprex's live in luprex-stdlib).

use mlua::prelude::*;
use mlua::{
    AnyUserData, Function, Lua, MetaMethod, MultiValue, Table, UserData,
    UserDataFields, UserDataMethods, Value, Variadic,
};

#[derive(Clone, Copy, Debug, PartialEq)]
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
        methods.add_method("dot", |_, v, other: LuaUserDataRef<Vec2>| Ok(v.x * other.x + v.y * other.y));
        methods.add_method_mut("scale", |_, v, k: f64| {
            v.x *= k;
            v.y *= k;
            Ok(())
        });
        methods.add_meta_method(MetaMethod::ToString, |_, v, ()| Ok(format!("Vec2({}, {})", v.x, v.y)));
        methods.add_meta_function(
            MetaMethod::Add,
            |_, (a, b): (LuaUserDataRef<Vec2>, LuaUserDataRef<Vec2>)| Ok(Vec2 { x: a.x + b.x, y: a.y + b.y }),
        );
        methods.add_function("new", |_, (x, y): (f64, f64)| Ok(Vec2 { x, y }));
    }
}

fn describe(v: &Value) -> LuaResult<String> {
    Ok(match v {
        Value::Nil => "nil".to_string(),
        Value::Boolean(b) => format!("boolean {b}"),
        Value::Integer(i) => format!("integer {i}"),
        Value::Number(n) => format!("float {n}"),
        Value::String(s) => format!("string {}", s.to_str()?),
        Value::Table(t) => format!("table of length {}", t.raw_len()),
        Value::Function(_) => "function".to_string(),
        Value::Thread(_) => "thread".to_string(),
        Value::UserData(_) => "userdata".to_string(),
        _ => format!("other {}", v.type_name()),
    })
}

/// Runs the program; returns its log, one line per check.
pub fn run() -> LuaResult<Vec<String>> {
    let lua = Lua::new();
    let mut log = Vec::new();

    // Chunks: exec, eval, call, names, environments.
    lua.load("x = 20 + 1").set_name("setup").exec()?;
    let x: i64 = lua.load("x * 2").eval()?;
    log.push(format!("eval: {x}"));
    let (s, n): (String, i64) = lua.load("local a, b = ... return a .. '!', b + 1").call(("hi", 1))?;
    log.push(format!("call: {s} {n}"));
    let env = lua.create_table()?;
    env.set("y", 5)?;
    let f = lua.load("return y").set_environment(env).into_function()?;
    log.push(format!("environment: {}", f.call::<i64>(())?));
    let err = lua.load("error('boom')").set_name("=failing").exec().unwrap_err();
    log.push(format!("runtime error mentions boom: {}", err.to_string().contains("boom")));
    let err = lua.load("x = ").exec().unwrap_err();
    log.push(format!("syntax error: {}", err.to_string().contains("unexpected symbol")));

    // Tables.
    let globals = lua.globals();
    let t = lua.create_table()?;
    t.set("name", "luprex")?;
    t.raw_set(1, 10)?;
    t.raw_set(2, 20)?;
    t.push(30)?;
    globals.set("t", &t)?;
    log.push(format!("len: {} raw_len: {}", t.len()?, t.raw_len()));
    log.push(format!("lua sees: {}", lua.load("#t + t[2]").eval::<i64>()?));
    log.push(format!("raw_get: {}", t.raw_get::<String>("name")?));
    log.push(format!("contains name: {} contains zz: {}", t.contains_key("name")?, t.contains_key("zz")?));
    let sum: i64 = t.sequence_values::<i64>().map(|v| v.unwrap()).sum();
    log.push(format!("sequence sum: {sum}"));
    let popped: i64 = t.pop()?;
    log.push(format!("pop: {popped} then len {}", t.raw_len()));
    let mut keys = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair?;
        keys.push(format!("{}={}", describe(&k)?, describe(&v)?));
    }
    log.push(format!("pairs: {}", keys.join(", ")));
    let mut count = 0;
    t.for_each(|_: Value, _: Value| {
        count += 1;
        Ok(())
    })?;
    log.push(format!("for_each count: {count}"));
    let back: Table = globals.get("t")?;
    log.push(format!("same table back: {}", back == t));
    let mt = lua.create_table()?;
    mt.set("__index", lua.create_function(|_, (_t, k): (Table, String)| Ok(format!("default {k}")))?)?;
    t.set_metatable(Some(mt))?;
    log.push(format!("metatable: {} / {}", t.metatable().is_some(), t.get::<String>("missing")?));
    let from = lua.create_table_from([("a", 1), ("b", 2)])?;
    let seq = lua.create_sequence_from([5, 6, 7])?;
    log.push(format!("table_from b: {} sequence len: {}", from.get::<i64>("b")?, seq.raw_len()));
    seq.clear()?;
    log.push(format!("cleared is_empty: {}", seq.is_empty()));

    // Functions and conversions.
    let add = lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b))?;
    globals.set("add", add)?;
    let join = lua.create_function(|_, (sep, parts): (String, Variadic<String>)| Ok(parts.join(&sep)))?;
    globals.set("join", join)?;
    let squares = lua.create_function(|lua, n: i64| {
        let t = lua.create_table()?;
        for i in 1..=n {
            t.set(i, i * i)?;
        }
        Ok(t)
    })?;
    globals.set("squares", squares)?;
    let mut calls = 0;
    let counter = lua.create_function_mut(move |_, ()| {
        calls += 1;
        Ok(calls)
    })?;
    globals.set("counter", counter)?;
    log.push(format!("add: {}", lua.load("add(1, 2)").eval::<i64>()?));
    log.push(format!("join: {}", lua.load("join('-', 'a', 'b', 'c')").eval::<String>()?));
    log.push(format!("squares: {:?}", lua.load("squares(4)").eval::<Vec<i64>>()?));
    log.push(format!("counter: {}", lua.load("counter(); counter(); return counter()").eval::<i64>()?));
    let maybe: Option<i64> = lua.load("nil").eval()?;
    log.push(format!("option: {maybe:?}"));
    let f: Function = lua.load("function(x) return x * 2, 'twice' end").eval()?;
    let (n, s): (f64, String) = f.call(2.5)?;
    log.push(format!("lua function: {n} {s}"));
    let multi: MultiValue = lua.load("return 1, 'two', nil, true").eval()?;
    let described: Vec<String> = multi.iter().map(describe).collect::<LuaResult<_>>()?;
    log.push(format!("multi: {}", described.join(" | ")));
    let bad = lua.load("add('x', 1)").exec().unwrap_err();
    log.push(format!("bad argument: {}", bad.to_string().contains("bad argument #1")));
    let failing = lua.create_function(|_, ()| -> LuaResult<()> { Err(LuaError::runtime("custom failure")) })?;
    globals.set("failing", failing)?;
    log.push(format!("pcall catches: {}", lua.load("return not pcall(failing)").eval::<bool>()?));
    let external = lua.create_function(|_, ()| -> LuaResult<()> {
        Err(std::io::Error::other("disk on fire").into_lua_err())
    })?;
    globals.set("external", external)?;
    let e = lua.load("external()").exec().unwrap_err();
    log.push(format!("external error: {}", e.to_string().contains("disk on fire")));

    // Values.
    let v: Value = lua.load("42").eval()?;
    log.push(format!("as_integer: {:?} is_nil: {}", v.as_integer(), v.is_nil()));
    let v: Value = lua.load("'text'").eval()?;
    log.push(format!("string value: {} {}", describe(&v)?, v.type_name()));
    let s = lua.create_string("bytes\0inside")?;
    log.push(format!("string bytes: {} lossy: {}", s.as_bytes().len(), s.to_string_lossy().len()));
    globals.set("nothing", LuaNil)?;
    log.push(format!("nil global: {}", globals.get::<Value>("nothing")?.is_nil()));

    // Userdata.
    let v = lua.create_userdata(Vec2 { x: 1.0, y: 2.0 })?;
    globals.set("v", &v)?;
    let proto = lua.create_userdata(Vec2 { x: 0.0, y: 0.0 })?;
    globals.set("Vec2", proto)?;
    lua.load("v:scale(2); v.x = v.x + 1; w = v + Vec2.new(10, 10)").exec()?;
    log.push(format!("userdata: {}", lua.load("tostring(w) .. ' ' .. v:dot(w)").eval::<String>()?));
    log.push(format!("borrow: {:?}", *v.borrow::<Vec2>()?));
    v.borrow_mut::<Vec2>()?.y = -1.0;
    let w: AnyUserData = globals.get("w")?;
    log.push(format!("is Vec2: {} y after borrow_mut: {}", w.is::<Vec2>(), lua.load("v.y").eval::<f64>()?));
    log.push(format!("take: {:?}", v.take::<Vec2>()?));

    // Registry.
    let key = lua.create_registry_value("kept")?;
    lua.gc_collect()?;
    log.push(format!("registry: {}", lua.registry_value::<String>(&key)?));
    lua.remove_registry_value(key)?;
    lua.set_named_registry_value("config", 7)?;
    log.push(format!("named registry: {}", lua.named_registry_value::<i64>("config")?));

    // Coroutines.
    let body: Function = lua.load("function(a) local b = coroutine.yield(a + 1) return b * 2 end").eval()?;
    let co = lua.create_thread(body)?;
    log.push(format!("thread: {:?}", co.status() == LuaThreadStatus::Resumable));
    let first: i64 = co.resume(1)?;
    let second: i64 = co.resume(10)?;
    log.push(format!("resume: {first} {second} finished: {}", co.status() == LuaThreadStatus::Finished));

    // Memory.
    log.push(format!("used memory positive: {}", lua.used_memory() > 0));
    Ok(log)
}
