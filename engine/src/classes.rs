//! The global environment and the class database: `makeclass`,
//! `maketangible` and the class rebuild.
//!
//! **The environment holds classes only** (seed 004, "The Global
//! Environment Table"). A World has one global environment, the VM's
//! globals table (`_ENV` of every chunk it loads), and its raw entries are
//! exactly the classes, by name. Everything else a script reads as a
//! global (`pairs`, `string`, `makeclass`, `global`...) lives in a separate
//! *library table*, reached through the environment's metatable:
//!
//! ```text
//! environment (globals)        metatable of the environment
//!   furnace = <class>            __index     = library table
//!   player  = <class>            __newindex  = the guard (a native)
//!                                __metatable = "the global environment"
//! ```
//!
//! * Reading a global looks in the environment (a class), then in the
//!   library; an unknown name reads nil, as in plain Lua.
//! * Assigning a global that is not in the environment calls the guard,
//!   which refuses it with a Lua error at the assignment's position:
//!   `file.lua:3: cannot assign global 'x': globals hold classes only ...`.
//!   The only value the guard lets through is a class under its own name.
//! * `makeclass` writes the class into the environment with a raw set.
//! * `__metatable` protects the metatable: `setmetatable(_G, nil)` fails
//!   and `getmetatable(_G)` returns a string.
//!
//! What the guard cannot see: an assignment to a name that is *already* a
//! class (`furnace = 5`) and `rawset(_G, k, v)` are raw writes the VM does
//! without consulting the metatable. Both are caught at the next class
//! rebuild, which puts the class back (or removes the stray value) and
//! reports [`crate::ReportKind::Environment`].
//!
//! **The class database.** The registry key `classdb` maps every class
//! name ever made to its table. The table of a class is created once and
//! kept forever, so anything that points at it (an instance's metatable,
//! an upvalue, a table field) keeps pointing at the live class across
//! reloads. The environment holds the subset defined by the latest class
//! rebuild.
//!
//! **makeclass(name)** (seed 004): take `classdb[name]` or create it, put
//! it in the environment, set `__class = name` and `__index = class`; keep
//! every other field. **maketangible(name)** does the same and also
//! creates the `action` subtable (for plans) if the class has none.
//!
//! **The class rebuild** (seed 004, "Class Rebuilds") is done by
//! [`crate::World::rebuild`]: `begin_rebuild` empties every class (all
//! fields and its metatable, the table itself kept) and the environment
//! (which holds only classes, so this removes each class from it); then
//! every `loadresult` runs in sequence and its `makeclass` calls put the
//! classes back. A class no file defines any more
//! stays out of the environment (its table stays in `classdb`, empty).
//!
//! **Class order.** Because a rebuild first removes every class from the
//! environment and the VM's tables iterate in insertion order, the
//! environment's traversal order after a rebuild is the order of each
//! class's *first* `makeclass`/`maketangible` during that rebuild: files in
//! `control.lst` order, and within a file in execution order. A class
//! defined across several files takes the position of the first file that
//! makes it. `classes_in_order` reads that order; world start calls the
//! `init` functions in it.
//!
//! **Invariants.** After a class rebuild, every raw entry of the
//! environment is `name = classdb[name]` with `classdb[name].__class ==
//! name` and `__index` the class itself. A class table is never replaced.

use crate::registry_table;
use luprex_vm::raw::{Action, Error, NativeFn, State, StrRef, TableRef, Value};

type R = Result<Action, Error>;

/// Registry key of the class database (name → class table).
pub(crate) const CLASSDB: &str = "classdb";
/// Registry key of the library table (the environment's `__index`).
pub(crate) const LIBRARY: &str = "library";

/// What the guard says after `cannot assign global 'x': `.
const GUARD_MSG: &str = "globals hold classes only (made by makeclass or maketangible); \
     keep shared data in global(\"name\") instead";

/// Moves every global opened so far into the library table, installs the
/// guard and the engine's class functions. Call after the libraries are
/// opened and before any script runs.
pub(crate) fn open(st: &mut State) -> Result<(), Error> {
    let env = st.globals();
    let lib = st.new_table_sized(0, 64);
    let entries: Vec<(Value, Value)> = st.table(env).iter().collect();
    for (k, v) in entries {
        st.try_table_set(Value::Table(lib), k, v)?;
        st.try_table_set(Value::Table(env), k, Value::Nil)?;
    }
    let db = st.new_table_sized(0, 16);
    // makeclass and maketangible keep what they use as upvalues (see
    // `Up`), so that a call interns nothing and reads no registry key.
    let ups = vec![
        Value::Table(db),
        Value::Table(lib),
        Value::Str(st.intern(b"__class")),
        Value::Str(st.intern(b"__index")),
        Value::Str(st.intern(b"action")),
    ];
    for (name, f) in [("makeclass", makeclass as NativeFn), ("maketangible", maketangible)] {
        let id = st.native_id(name, f);
        let v = st.new_rust_closure(id, ups.clone());
        let k = st.intern(name.as_bytes());
        st.raw_set_str(lib, k, v);
    }

    let meta = st.new_table_sized(0, 4);
    let k = st.intern(b"__index");
    st.raw_set_str(meta, k, Value::Table(lib));
    st.set_native_field(meta, "__newindex", "engine.guard", guard);
    let k = st.intern(b"__metatable");
    let v = st.new_string(b"the global environment");
    st.raw_set_str(meta, k, v);
    st.set_table_metatable(env, Some(meta));

    let reg = st.registry();
    let k = st.intern(LIBRARY.as_bytes());
    st.raw_set_str(reg, k, Value::Table(lib));
    let k = st.intern(CLASSDB.as_bytes());
    st.raw_set_str(reg, k, Value::Table(db));
    Ok(())
}

/// The library table (where `pairs`, `string`, `makeclass`... live).
pub(crate) fn library(st: &mut State) -> TableRef {
    registry_table(st, LIBRARY)
}

/// `__newindex` of the environment: refuses every value that is not the
/// class of that name.
fn guard(st: &mut State) -> R {
    let (env, k, v) = (st.arg(1), st.key(st.arg(2)), st.arg(3));
    if let (Value::Str(name), Value::Table(_)) = (k, v) {
        let db = registry_table(st, CLASSDB);
        if st.raw_eq(st.table(db).get_str(name), v) {
            st.try_table_set(env, k, v)?;
            return Ok(Action::Return(0));
        }
    }
    let mut shown = Vec::new();
    st.tostring_raw(k, &mut shown);
    let shown = String::from_utf8_lossy(&shown);
    let shown = if matches!(k, Value::Str(_)) { format!("'{shown}'") } else { shown.into() };
    Err(st.native_error(format!("cannot assign global {shown}: {GUARD_MSG}")))
}

/// The upvalues of `makeclass` and `maketangible`: the class database,
/// the library table and three interned field names.
struct Up {
    db: TableRef,
    lib: TableRef,
    class: StrRef,
    index: StrRef,
    action: StrRef,
}

impl Up {
    fn of_running(st: &State) -> Up {
        let t = |i| match st.native_upvalue(i) {
            Value::Table(t) => t,
            _ => unreachable!("makeclass upvalue {i} is a table"),
        };
        let s = |i| match st.native_upvalue(i) {
            Value::Str(s) => s,
            _ => unreachable!("makeclass upvalue {i} is a string"),
        };
        Up { db: t(0), lib: t(1), class: s(2), index: s(3), action: s(4) }
    }
}

/// Argument 1 as a class name: a non-empty string that is not the name of
/// a library global.
fn check_class_name(st: &mut State, up: &Up) -> Result<StrRef, Error> {
    // A class name is a key of several tables: its twin if it is loose.
    let name = match st.arg(1) {
        Value::Str(s) => st.str_key_mut(s),
        _ => return Err(st.arg_type_error(1, "string")),
    };
    if st.str_bytes(name).is_empty() {
        return Err(st.arg_error(1, "class name is empty"));
    }
    if !st.table(up.lib).get_str(name).is_nil() {
        let shown = String::from_utf8_lossy(st.str_bytes(name)).into_owned();
        return Err(st.arg_error(1, &format!("'{shown}' is the name of a library global")));
    }
    Ok(name)
}

/// `makeclass(name)`.
fn makeclass(st: &mut State) -> R {
    let up = Up::of_running(st);
    let name = check_class_name(st, &up)?;
    let c = make_class(st, &up, name, false)?;
    st.push(Value::Table(c));
    Ok(Action::Return(1))
}

/// `maketangible(name)`.
fn maketangible(st: &mut State) -> R {
    let up = Up::of_running(st);
    let name = check_class_name(st, &up)?;
    let c = make_class(st, &up, name, true)?;
    st.push(Value::Table(c));
    Ok(Action::Return(1))
}

/// The steps of `makeclass` (and with `tangible`, `maketangible`).
fn make_class(st: &mut State, up: &Up, name: StrRef, tangible: bool) -> Result<TableRef, Error> {
    let c = match st.table(up.db).get_str(name) {
        Value::Table(c) => c,
        _ => {
            let c = st.new_table_sized(0, 8);
            st.raw_set_str(up.db, name, Value::Table(c));
            c
        }
    };
    let env = st.globals();
    if !st.raw_eq(st.table(env).get_str(name), Value::Table(c)) {
        st.raw_set_str(env, name, Value::Table(c));
    }
    st.raw_set_str(c, up.class, Value::Str(name));
    st.raw_set_str(c, up.index, Value::Table(c));
    if tangible {
        match st.table(c).get_str(up.action) {
            Value::Table(_) => {}
            Value::Nil => {
                let a = st.new_table_sized(0, 4);
                st.raw_set_str(c, up.action, Value::Table(a));
            }
            other => {
                let shown = String::from_utf8_lossy(st.str_bytes(name)).into_owned();
                let msg = format!(
                    "class '{shown}' has a field 'action' that is not a table (a {})",
                    other.type_name()
                );
                return Err(st.native_error(msg));
            }
        }
    }
    Ok(c)
}

/// First step of a class rebuild: checks the environment (as
/// [`check_environment`], whose findings it returns: a stray value written
/// since the last rebuild is reported, not silently dropped), then empties
/// the environment and every class of `classdb` (every field and its
/// metatable; the tables themselves are kept). Emptying in place
/// (`table_clear`) keeps each table's capacity, so the refill does not
/// rehash.
pub(crate) fn begin_rebuild(st: &mut State) -> Result<Vec<(String, String)>, Error> {
    let bad = check_environment(st)?;
    let db = registry_table(st, CLASSDB);
    let env = st.globals();
    st.table_clear(env);
    let classes: Vec<(Value, Value)> = st.table(db).iter().collect();
    for (_, c) in classes {
        if let Value::Table(c) = c {
            st.table_clear(c);
            st.set_table_metatable(c, None);
        }
    }
    Ok(bad)
}

/// Last step of a class rebuild (and a check before it): every raw entry
/// of the environment must be `name = classdb[name]`. A stray value (written with `rawset`, or
/// assigned over a class name) is removed, the class is put back, and the
/// entry is returned as `(global name, message)` for a report.
pub(crate) fn check_environment(st: &mut State) -> Result<Vec<(String, String)>, Error> {
    let db = registry_table(st, CLASSDB);
    let env = st.globals();
    let kclass = st.intern(b"__class");
    let entries: Vec<(Value, Value)> = st.table(env).iter().collect();
    let mut bad = Vec::new();
    for (k, v) in entries {
        let class = match k {
            Value::Str(s) => st.table(db).get_str(s),
            _ => Value::Nil,
        };
        if !class.is_nil() && st.raw_eq(class, v) {
            continue;
        }
        let mut shown = Vec::new();
        st.tostring_raw(k, &mut shown);
        let shown = String::from_utf8_lossy(&shown).into_owned();
        let restored = matches!(class, Value::Table(c) if !st.table(c).get_str(kclass).is_nil());
        st.try_table_set(Value::Table(env), k, if restored { class } else { Value::Nil })?;
        let what = if restored { "the class was put back" } else { "it was removed" };
        bad.push((
            shown.clone(),
            format!(
                "global '{shown}' held a {} that is not its class ({GUARD_MSG}); {what}",
                v.type_name()
            ),
        ));
    }
    Ok(bad)
}

/// The classes of the environment in class order (see the module docs):
/// `(name, class)`.
pub(crate) fn classes_in_order(st: &State) -> Vec<(StrRef, TableRef)> {
    let env = st.globals();
    st.table(env)
        .iter()
        .filter_map(|(k, v)| match (k, v) {
            (Value::Str(s), Value::Table(t)) => Some((s, t)),
            _ => None,
        })
        .collect()
}
