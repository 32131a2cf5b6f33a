//! Script globals: `global(name)`, `global.get`, `global.set`, and the
//! reloadability helper `default`.
//!
//! Since the global environment holds only classes, data shared between
//! scripts lives in tables the engine keeps in the registry:
//!
//! * **The globals database** (seed 004), registry key `globaldb`: name →
//!   table. `global(name)` returns the table of that name, creating it
//!   empty on first use. It exists **only in the master**: the synchronous
//!   models (ServerSync, ClientSync) have no `globaldb` at all, and any use
//!   of global data there raises an error. That is deliberate (seed 004,
//!   "What Gets Difference Transmitted": the globals database is not
//!   transmitted, and a script that read it on a client would see nothing
//!   the master has).
//!
//!   *How a use fails.* Scripts fetch their global tables at the top of a
//!   file (`local accounts = global("accounts")`) and use them inside
//!   functions. If `global(name)` itself raised in a synchronous model,
//!   every such file would fail to load on every client and take its
//!   classes with it. So in a synchronous model `global(name)` returns a
//!   **placeholder**: an empty table whose metatable (protected, with
//!   `__global = name`) raises on every use (`__index`, `__newindex`,
//!   `__len`, `__pairs`, `__call`). A use inside a world thread is a
//!   **NoPredict** (seed 003): the command touches data only the master
//!   has, so it cannot be predicted; the thread is killed and the master's
//!   run is the one that counts (`threads.rs`: the running thread is
//!   flagged, and the scheduler kills it when the resume returns, even if
//!   a `pcall` caught the error). A use anywhere else (a probe, host
//!   code, a file's top level) is an ordinary error. `default(placeholder,
//!   key, value)` does nothing and returns nil, so the usual top-level
//!   initialisation idiom loads everywhere.
//! * **Published globals** (seed 003, "The Scripter's View": `global.set`
//!   and `global.get` "for data that needs to be broadcast to all
//!   clients"), registry key `globalpub`: name → any value. Every model
//!   has the table and `global.get(name)` reads it everywhere; only the
//!   master may `global.set`. Difference transmission (a later increment)
//!   will carry `globalpub` from the master to the synchronous models like
//!   any other world table; until then a synchronous model's `globalpub`
//!   holds only what its own (identical) execution put there, i.e. nothing.
//!
//! `global` is a table with a `__call` metamethod, so that `global(name)`,
//! `global.get(name)` and `global.set(name, value)` are all spelled from
//! one library name.
//!
//! Both tables survive class rebuilds: a reload re-runs the files, and
//! `global("users")` returns the same table with the same contents. Code
//! that initialises a field must therefore do it only once; `default(t,
//! key, value)` is the idiom (see `docs/SCRIPTING.md`).
//!
//! **Invariant:** whether a World is the master is a fact of its VM state
//! (the registry has a `globaldb` table), not of Rust-side data, so a
//! saved and reloaded World keeps its nature, and ServerSync and ClientSync
//! models of the same scripts have equal state hashes.

use crate::registry_get;
use luprex_vm::raw::{Action, Error, State, TableRef, Value};

type R = Result<Action, Error>;

/// Registry key of the globals database (master only).
pub(crate) const GLOBALDB: &str = "globaldb";
/// Registry key of the published globals (every model).
pub(crate) const GLOBALPUB: &str = "globalpub";

/// Opens `global` and `default` in the library table `lib`; creates
/// `globalpub`, and `globaldb` if `master`.
pub(crate) fn open(st: &mut State, lib: TableRef, master: bool) -> Result<(), Error> {
    let reg = st.registry();
    if master {
        let db = st.new_table_sized(0, 8);
        let k = st.intern(GLOBALDB.as_bytes());
        st.raw_set_str(reg, k, Value::Table(db));
    }
    let publ = st.new_table_sized(0, 8);
    let k = st.intern(GLOBALPUB.as_bytes());
    st.raw_set_str(reg, k, Value::Table(publ));

    let g = st.new_table_sized(0, 2);
    st.set_native_field(g, "get", "global.get", global_get);
    st.set_native_field(g, "set", "global.set", global_set);
    let meta = st.new_table_sized(0, 1);
    st.set_native_field(meta, "__call", "global", global_call);
    st.set_table_metatable(g, Some(meta));
    let k = st.intern(b"global");
    st.raw_set_str(lib, k, Value::Table(g));

    st.set_native_field(lib, "default", "default", default);
    Ok(())
}

/// Argument `i` as a global name (a string), for function `f` whose
/// first visible argument is `i - shift`.
fn check_name(st: &mut State, i: usize, shift: usize, f: &str) -> Result<Value, Error> {
    match st.arg(i) {
        v @ Value::Str(_) => Ok(v),
        v => {
            let got = if st.arg_is_none(i) { "no value" } else { v.type_name() };
            let msg = format!("bad argument #{} to '{f}' (string expected, got {got})", i - shift);
            Err(st.native_error(msg))
        }
    }
}

/// `global(name)`: the `__call` of the `global` table (argument 1 is the
/// table itself).
fn global_call(st: &mut State) -> R {
    let name = check_name(st, 2, 1, "global")?;
    let Value::Table(db) = registry_get(st, GLOBALDB) else {
        let t = placeholder(st, name);
        st.push(Value::Table(t));
        return Ok(Action::Return(1));
    };
    let t = match st.table_get(Value::Table(db), name) {
        t @ Value::Table(_) => t,
        _ => {
            let t = Value::Table(st.new_table_sized(0, 4));
            st.try_table_set(Value::Table(db), name, t)?;
            t
        }
    };
    st.push(t);
    Ok(Action::Return(1))
}

/// The placeholder `global(name)` returns in a synchronous model (see
/// the module docs).
fn placeholder(st: &mut State, name: Value) -> TableRef {
    let t = st.new_table_sized(0, 0);
    let meta = st.new_table_sized(0, 8);
    for ev in ["__index", "__newindex", "__len", "__pairs", "__call"] {
        st.set_native_field(meta, ev, "global data", placeholder_use);
    }
    let k = st.intern(b"__global");
    st.raw_set_str(meta, k, name);
    let k = st.intern(b"__metatable");
    let v = st.new_string(b"global data (master only)");
    st.raw_set_str(meta, k, v);
    st.set_table_metatable(t, Some(meta));
    t
}

/// The name of placeholder `t`, if it is one.
fn placeholder_name(st: &mut State, t: Value) -> Option<String> {
    let meta = st.metatable(t)?;
    let k = st.intern(b"__global");
    match st.table(meta).get_str(k) {
        Value::Str(s) => Some(String::from_utf8_lossy(st.str_bytes(s)).into_owned()),
        _ => None,
    }
}

/// Any use of a placeholder: a NoPredict in a world thread, else an error.
fn placeholder_use(st: &mut State) -> R {
    let name = placeholder_name(st, st.arg(1)).unwrap_or_default();
    let what = format!("global('{name}')");
    if crate::threads::flag_nopredict(st, &what) {
        let msg = format!(
            "NoPredict: {what} is global data, which only the master has; this command \
             cannot be predicted"
        );
        return Err(st.native_error(msg));
    }
    let msg = format!(
        "{what}: global data exists only on the master; this is a synchronous model (use \
         global.get for published data)"
    );
    Err(st.native_error(msg))
}

/// `global.get(name)`.
fn global_get(st: &mut State) -> R {
    let name = check_name(st, 1, 0, "get")?;
    let publ = registry_get(st, GLOBALPUB);
    let v = st.table_get(publ, name);
    st.push(v);
    Ok(Action::Return(1))
}

/// `global.set(name, value)`.
fn global_set(st: &mut State) -> R {
    let name = check_name(st, 1, 0, "set")?;
    if registry_get(st, GLOBALDB).is_nil() {
        let mut shown = Vec::new();
        st.tostring_raw(name, &mut shown);
        let msg = format!(
            "global.set('{}'): published globals are set only on the master; this is a \
             synchronous model",
            String::from_utf8_lossy(&shown)
        );
        return Err(st.native_error(msg));
    }
    let v = st.arg(2);
    let publ = registry_get(st, GLOBALPUB);
    st.try_table_set(publ, name, v)?;
    Ok(Action::Return(0))
}

/// `default(t, key, value)`: if `t[key]` (raw) is nil, sets it to
/// `value`; returns `t[key]`.
fn default(st: &mut State) -> R {
    let t = st.check_table(1)?;
    if placeholder_name(st, Value::Table(t)).is_some() {
        st.push(Value::Nil);
        return Ok(Action::Return(1));
    }
    let k = st.arg(2);
    if k.is_nil() {
        return Err(st.arg_error(2, "key is nil"));
    }
    let cur = st.table_get(Value::Table(t), k);
    if !cur.is_nil() {
        st.push(cur);
        return Ok(Action::Return(1));
    }
    let v = st.arg(3);
    st.try_table_set(Value::Table(t), k, v)?;
    st.push(v);
    Ok(Action::Return(1))
}
