//! A scripting host: Rust exposes an inventory (userdata) and a few
//! callbacks, a Lua script implements the game rule, Rust calls it back.
//!
//! Run with `cargo run -p luprex-vm --example host`. It also prints a rough
//! per-call cost of both directions (use `--release` for meaningful numbers).

use luprex_vm::Result;
use luprex_vm::{Function, Lua, MetaMethod, Table, UserData, UserDataFields, UserDataMethods};
use std::collections::BTreeMap;
use std::time::Instant;

/// Host data shared with the script.
#[derive(Default)]
struct Inventory {
    items: BTreeMap<String, i64>,
}

impl UserData for Inventory {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("kinds", |_, inv| Ok(inv.items.len()));
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("add", |_, inv, (name, n): (String, Option<i64>)| {
            let e = inv.items.entry(name).or_default();
            *e += n.unwrap_or(1);
            Ok(*e)
        });
        methods.add_method("count", |_, inv, name: String| {
            Ok(inv.items.get(&name).copied().unwrap_or(0))
        });
        methods.add_method("list", |lua, inv, ()| lua.create_table_from(inv.items.clone()));
        methods.add_meta_method(MetaMethod::Len, |_, inv, ()| Ok(inv.items.values().sum::<i64>()));
    }
}

const SCRIPT: &str = r#"
-- The rule: crafting a sword needs 2 iron and 1 wood.
function craft(inv, what)
    if what ~= "sword" then error("unknown recipe: " .. what) end
    if inv:count("iron") < 2 or inv:count("wood") < 1 then
        log("not enough material for " .. what)
        return false
    end
    inv:add("iron", -2); inv:add("wood", -1); inv:add("sword")
    log("crafted a " .. what .. ", " .. #inv .. " items in stock")
    return true
end
"#;

fn main() -> Result<()> {
    let lua = Lua::new();
    // Callbacks: logging, and a function returning a table.
    let log = lua.create_function(|_, msg: String| {
        println!("[lua] {msg}");
        Ok(())
    })?;
    lua.globals().set("log", log)?;
    let recipes = lua.create_function(|lua, ()| lua.create_sequence_from(["sword"]))?;
    lua.globals().set("recipes", recipes)?;

    lua.load(SCRIPT).set_name("rules.lua").exec()?;
    let inv = lua.create_userdata(Inventory::default())?;
    lua.globals().set("inv", &inv)?;
    lua.load("inv:add('iron', 3); inv:add('wood')").exec()?;

    let craft: Function = lua.globals().get("craft")?;
    for _ in 0..2 {
        let ok: bool = craft.call((&inv, "sword"))?;
        println!("craft -> {ok}");
    }
    let list: Table = lua.load("inv:list()").eval()?;
    for pair in list.pairs::<String, i64>() {
        let (k, v) = pair?;
        println!("  {k}: {v}");
    }
    println!("total items: {}", lua.load("#inv").eval::<i64>()?);
    // A script error comes back as a Rust error with a traceback.
    if let Err(e) = craft.call::<bool>((&inv, "shield")) {
        println!("error: {e}\n{}", e.traceback());
    }
    println!("inventory from Rust: {:?}", inv.borrow::<Inventory>()?.items);

    // Rough per-call costs.
    let add = lua.create_function(|_, (a, b): (i64, i64)| Ok(a + b))?;
    lua.globals().set("add", add)?;
    let n = 200_000;
    let t = Instant::now();
    lua.load(format!("local s = 0 for i = 1, {n} do s = add(s, i) end return s")).exec()?;
    println!("Lua -> Rust callback: {:?} per call", t.elapsed() / n);
    let f: Function = lua.load("function(a, b) return a + b end").eval()?;
    let t = Instant::now();
    let mut s = 0i64;
    for i in 0..n as i64 {
        s = f.call((s, i))?;
    }
    println!("Rust -> Lua call: {:?} per call (sum {s})", t.elapsed() / n);
    Ok(())
}
