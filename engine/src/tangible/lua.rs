//! The Lua side of tangibles: the script functions (`newtangible`,
//! `destroy`, `getid`, `gettangible`, `position`, `moveto`, `halt`,
//! `scanradius`, `setclass`, `now`), the protected metatable of a Lua
//! tangible, and the helpers the rest of the engine uses to resolve
//! classes and recognise tangibles (`Keys`, `resolve_class`,
//! `as_tangible`, `create`, `make`, `destroy`, `set_class`).
//!
//! The Rust side (animation queues, the index, IDs, the journal) is the
//! parent module, `tangible.rs`; its module docs describe both halves.
//! Every function here keeps the two halves in step: a Lua tangible is
//! in the registry's `tangibles` exactly while its Rust tangible exists.

use super::*;

/// Interned names and tables the tangible functions use (also the
/// natives' upvalues, so a call interns nothing).
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    /// Registry `tangibles`.
    pub reg: TableRef,
    /// Registry `classdb`.
    pub classdb: TableRef,
    /// Whether this World is the master (it has a `globaldb`).
    pub master: bool,
    pub(crate) id: StrRef,
    pub(crate) index: StrRef,
    metatable: StrRef,
    pub(crate) threads: StrRef,
    class: StrRef,
    tangible: StrRef,
}

impl Keys {
    /// The keys, from the registry and interned names.
    pub(crate) fn new(st: &mut State) -> Keys {
        Keys {
            reg: crate::registry_table(st, TANGIBLES),
            classdb: crate::registry_table(st, crate::classes::CLASSDB),
            master: !crate::registry_get(st, crate::globals::GLOBALDB).is_nil(),
            id: st.intern(b"__id"),
            index: st.intern(b"__index"),
            metatable: st.intern(b"__metatable"),
            threads: st.intern(b"threads"),
            class: st.intern(b"__class"),
            tangible: st.intern(b"tangible"),
        }
    }

    pub(crate) fn upvalues(&self) -> Vec<Value> {
        vec![
            Value::Table(self.reg),
            Value::Table(self.classdb),
            Value::Bool(self.master),
            Value::Str(self.id),
            Value::Str(self.index),
            Value::Str(self.metatable),
            Value::Str(self.threads),
            Value::Str(self.class),
            Value::Str(self.tangible),
        ]
    }

    pub(crate) fn of_running(st: &State) -> Keys {
        let t = |i| match st.native_upvalue(i) {
            Value::Table(t) => t,
            _ => unreachable!("tangible upvalue {i} is a table"),
        };
        let s = |i| match st.native_upvalue(i) {
            Value::Str(s) => s,
            _ => unreachable!("tangible upvalue {i} is a string"),
        };
        Keys {
            reg: t(0),
            classdb: t(1),
            master: st.raw_eq(st.native_upvalue(2), Value::Bool(true)),
            id: s(3),
            index: s(4),
            metatable: s(5),
            threads: s(6),
            class: s(7),
            tangible: s(8),
        }
    }
}

/// Creates the registry table, attaches the host data and opens the
/// script functions in the library table `lib`.
pub(crate) fn open(st: &mut State, lib: TableRef) -> Result<(), Error> {
    let reg = st.new_table_sized(0, 16);
    let k = st.intern(TANGIBLES.as_bytes());
    let r = st.registry();
    st.raw_set_str(r, k, Value::Table(reg));
    st.register_host_data_loader(HOST_DATA, load_host_data);
    st.set_host_data(Tangibles::default())?;
    let ups = Keys::new(st).upvalues();
    let fns: [(&'static str, NativeFn); 10] = [
        ("newtangible", lua_newtangible),
        ("destroy", lua_destroy),
        ("getid", lua_getid),
        ("gettangible", lua_gettangible),
        ("position", lua_position),
        ("moveto", lua_moveto),
        ("halt", lua_halt),
        ("scanradius", lua_scanradius),
        ("setclass", lua_setclass),
        ("now", lua_now),
    ];
    for (name, f) in fns {
        let id = st.native_id(name, f);
        let v = st.new_rust_closure(id, ups.clone());
        let k = st.intern(name.as_bytes());
        st.raw_set_str(lib, k, v);
    }
    Ok(())
}

/// What a class argument can be wrong with.
pub(crate) enum ClassError {
    /// Not a table or string.
    Type,
    /// A name with no class.
    NoClass(String),
    /// A table that is not a class.
    NotAClass,
}

/// Resolves a class given as a class table or its name (a class of the
/// current environment).
pub(crate) fn resolve_class(st: &State, k: &Keys, v: Value) -> Result<TableRef, ClassError> {
    let env = st.globals();
    match st.key(v) {
        Value::Str(s) => match st.table(env).get_str(s) {
            Value::Table(c) if st.raw_eq(st.table(k.classdb).get_str(s), Value::Table(c)) => Ok(c),
            _ => Err(ClassError::NoClass(String::from_utf8_lossy(st.str_bytes(s)).into_owned())),
        },
        Value::Table(c) => match st.table(c).get_str(k.class) {
            Value::Str(s) if st.raw_eq(st.table(k.classdb).get_str(s), v) => Ok(c),
            _ => Err(ClassError::NotAClass),
        },
        _ => Err(ClassError::Type),
    }
}

/// Argument `i` as a class.
pub(crate) fn check_class(st: &mut State, k: &Keys, i: usize) -> Result<TableRef, Error> {
    match resolve_class(st, k, st.arg(i)) {
        Ok(c) => Ok(c),
        Err(ClassError::Type) => Err(st.arg_type_error(i, "class or class name")),
        Err(ClassError::NoClass(n)) => Err(st.arg_error(i, &format!("no class '{n}'"))),
        Err(ClassError::NotAClass) => {
            Err(st.arg_error(i, "table is not a class (made by makeclass or maketangible)"))
        }
    }
}

/// What a value is, as a tangible.
pub(crate) enum AsTangible {
    /// A live tangible.
    Live(u64, TableRef),
    /// The table of a destroyed tangible.
    Destroyed(u64),
    /// Not a tangible.
    No,
}

/// Classifies `v` as a tangible.
pub(crate) fn as_tangible(st: &State, k: &Keys, v: Value) -> AsTangible {
    let Value::Table(t) = v else { return AsTangible::No };
    let Some(mt) = st.metatable(v) else { return AsTangible::No };
    let Value::Int(id) = st.table(mt).get_str(k.id) else { return AsTangible::No };
    if !st.raw_eq(st.table(mt).get_str(k.metatable), Value::Str(k.tangible)) {
        return AsTangible::No;
    }
    match st.table(k.reg).get_int(id) {
        x if st.raw_eq(x, v) => AsTangible::Live(id as u64, t),
        Value::Nil => AsTangible::Destroyed(id as u64),
        _ => AsTangible::No,
    }
}

/// Argument `i` as a live tangible: its ID and table.
fn check_tangible(st: &mut State, k: &Keys, i: usize) -> Result<(u64, TableRef), Error> {
    match as_tangible(st, k, st.arg(i)) {
        AsTangible::Live(id, t) => Ok((id, t)),
        AsTangible::Destroyed(id) => Err(st.arg_error(i, &format!("tangible {id} was destroyed"))),
        AsTangible::No => Err(st.arg_type_error(i, "tangible")),
    }
}

/// Argument `i` as a finite number.
fn check_coord(st: &mut State, i: usize) -> Result<f64, Error> {
    let x = match st.check_number(i)? {
        Value::Int(n) => n as f64,
        Value::Float(f) => f,
        _ => unreachable!("check_number gives a number"),
    };
    if !x.is_finite() {
        return Err(st.arg_error(i, "coordinate is not finite"));
    }
    Ok(x)
}

/// Creates a tangible of class `class` at `pos`: allocates its ID, makes
/// its table and metatable, registers both halves. The allocation error
/// is returned as a message.
pub(crate) fn create(
    st: &mut State,
    k: &Keys,
    class: TableRef,
    pos: [f64; 3],
) -> Result<(u64, TableRef), String> {
    let id = host_mut(st).alloc_id(k.master).map_err(|e| e.to_string())?;
    Ok((id, make(st, k, class, pos, id)))
}

/// Makes both halves of tangible `id` (a free ID) of class `class` at
/// `pos`.
pub(crate) fn make(st: &mut State, k: &Keys, class: TableRef, pos: [f64; 3], id: u64) -> TableRef {
    let t = st.new_table_sized(0, 0);
    let mt = st.new_table_sized(0, 4);
    st.raw_set_str(mt, k.id, Value::Int(id as i64));
    st.raw_set_str(mt, k.index, Value::Table(class));
    st.raw_set_str(mt, k.metatable, Value::Str(k.tangible));
    let threads = st.new_table_sized(0, 0);
    st.raw_set_str(mt, k.threads, Value::Table(threads));
    st.set_table_metatable(t, Some(mt));
    st.raw_set_int(k.reg, id as i64, Value::Table(t));
    host_mut(st).insert(id, pos);
    t
}

/// Destroys tangible `id`: registry entry and Rust tangible. False if it
/// does not exist.
pub(crate) fn destroy(st: &mut State, k: &Keys, id: u64) -> bool {
    if !host_mut(st).remove(id) {
        return false;
    }
    // Its threads die with it (their wakeups went with the Rust side).
    if let Value::Table(t) = st.table(k.reg).get_int(id as i64) {
        if let Some(mt) = st.metatable(Value::Table(t)) {
            if let Value::Table(th) = st.table(mt).get_str(k.threads) {
                st.table_clear(th);
            }
        }
    }
    st.raw_set_int(k.reg, id as i64, Value::Nil);
    true
}

/// Changes the class of the tangible table `t`.
pub(crate) fn set_class(st: &mut State, k: &Keys, t: TableRef, class: TableRef) {
    if let Some(mt) = st.metatable(Value::Table(t)) {
        st.raw_set_str(mt, k.index, Value::Table(class));
    }
}

/// `newtangible(class, x, y, z)`.
fn lua_newtangible(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let class = check_class(st, &k, 1)?;
    let pos = [check_coord(st, 2)?, check_coord(st, 3)?, check_coord(st, 4)?];
    match create(st, &k, class, pos) {
        Ok((_, t)) => {
            st.push(Value::Table(t));
            Ok(Action::Return(1))
        }
        Err(msg) => Err(st.native_error(format!("newtangible: {msg}"))),
    }
}

/// `destroy(t)`.
fn lua_destroy(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (id, _) = check_tangible(st, &k, 1)?;
    destroy(st, &k, id);
    Ok(Action::Return(0))
}

/// `getid(t)`.
fn lua_getid(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (id, _) = check_tangible(st, &k, 1)?;
    st.push(Value::Int(id as i64));
    Ok(Action::Return(1))
}

/// `gettangible(id)`.
fn lua_gettangible(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let id = st.check_int(1)?;
    let v = st.table(k.reg).get_int(id);
    st.push(v);
    Ok(Action::Return(1))
}

/// `position(t)` → x, y, z.
fn lua_position(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (id, _) = check_tangible(st, &k, 1)?;
    let p = host(st).position(id).unwrap_or([f64::NAN; 3]);
    p.iter().for_each(|&c| st.push(Value::Float(c)));
    Ok(Action::Return(3))
}

/// `moveto(t, x, y, z, ticks)`.
fn lua_moveto(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (id, _) = check_tangible(st, &k, 1)?;
    let pos = [check_coord(st, 2)?, check_coord(st, 3)?, check_coord(st, 4)?];
    let ticks = st.check_int(5)?;
    if ticks < 0 {
        return Err(st.arg_error(5, "ticks must not be negative"));
    }
    if !host_mut(st).move_to(id, pos, ticks) {
        return Err(st.arg_error(5, "arrival tick out of range"));
    }
    Ok(Action::Return(0))
}

/// `halt(t)`.
fn lua_halt(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (id, _) = check_tangible(st, &k, 1)?;
    host_mut(st).halt(id);
    Ok(Action::Return(0))
}

/// `scanradius(t, r)` or `scanradius(x, y, z, r)`.
fn lua_scanradius(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (center, ri) = if matches!(st.arg(1), Value::Table(_)) {
        let (id, _) = check_tangible(st, &k, 1)?;
        (host(st).position(id).unwrap_or([f64::NAN; 3]), 2)
    } else {
        ([check_coord(st, 1)?, check_coord(st, 2)?, check_coord(st, 3)?], 4)
    };
    let r = match st.check_number(ri)? {
        Value::Int(n) => n as f64,
        Value::Float(f) => f,
        _ => unreachable!("check_number gives a number"),
    };
    if r.is_nan() || r < 0.0 {
        return Err(st.arg_error(ri, "radius must be a non-negative number"));
    }
    let mut ids = Vec::new();
    host(st).scan_radius(center, r, &mut ids);
    let arr = st.new_table_sized(ids.len(), 0);
    for (i, id) in ids.iter().enumerate() {
        let t = st.table(k.reg).get_int(*id as i64);
        st.raw_set_int(arr, i as i64 + 1, t);
    }
    st.push(Value::Table(arr));
    Ok(Action::Return(1))
}

/// `setclass(t, class)`.
fn lua_setclass(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let (_, t) = check_tangible(st, &k, 1)?;
    let class = check_class(st, &k, 2)?;
    set_class(st, &k, t, class);
    Ok(Action::Return(0))
}

/// `now()`.
fn lua_now(st: &mut State) -> R {
    let now = host(st).now();
    st.push(Value::Int(now));
    Ok(Action::Return(1))
}
