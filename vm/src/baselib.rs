//! The base library (`lbaselib.c`): `print`, `type`, `tostring`,
//! `tonumber`, `pairs`, `ipairs`, `next`, `select`, the `raw*` functions,
//! metatables, `assert`, `error`, `pcall`, `xpcall`, `load`,
//! `collectgarbage`, `warn`, `_G` and `_VERSION`.
//!
//! `pcall` and `xpcall` never nest the interpreter: they mark their frame
//! as protected and ask the VM to call the function ([`Action::Call`]),
//! finishing in a continuation — so a coroutine can yield inside them.
//! `pairs` with `__pairs` does the same. `print`, `tostring` and
//! `ipairs`' iterator call metamethods with nested calls, like their C
//! counterparts.

use crate::error::Error;
use crate::meta::{TM_METATABLE, TM_PAIRS};
use crate::number;
use crate::state::{Action, State, Status};
use crate::value::Value;

type R = Result<Action, Error>;

/// Opens the base library into the globals table.
pub fn open(st: &mut State) {
    let g = st.globals;
    let fns: &[(&str, &'static str, crate::state::NativeFn)] = &[
        ("print", "print", print),
        ("type", "type", type_),
        ("tostring", "tostring", tostring),
        ("tonumber", "tonumber", tonumber),
        ("ipairs", "ipairs", ipairs),
        ("next", "next", next),
        ("select", "select", select),
        ("rawget", "rawget", rawget),
        ("rawset", "rawset", rawset),
        ("rawequal", "rawequal", rawequal),
        ("rawlen", "rawlen", rawlen),
        ("setmetatable", "setmetatable", setmetatable),
        ("getmetatable", "getmetatable", getmetatable),
        ("assert", "assert", assert),
        ("error", "error", error),
        ("pcall", "pcall", pcall),
        ("xpcall", "xpcall", xpcall),
        ("load", "load", load),
        ("collectgarbage", "collectgarbage", collectgarbage),
        ("warn", "warn", warn),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(g, field, name, f);
    }
    st.register_continuation("pairs_k", pairs_k);
    st.register_continuation("pcall_k", pcall_k);
    st.register_continuation("xpcall_k", xpcall_k);
    // pairs returns the very `next` function.
    let next_fn = st.get_global("next");
    let id = st.native_id("pairs", pairs);
    let pairs_fn = st.new_rust_closure(id, vec![next_fn]);
    st.set_global("pairs", pairs_fn);
    let aux = st.register_native("ipairs_iterator", ipairs_aux);
    let id = st.native_id("ipairs", ipairs);
    let ipairs_fn = st.new_rust_closure(id, vec![aux]);
    st.set_global("ipairs", ipairs_fn);
    st.set_global("_G", Value::Table(g));
    let v = st.new_string(b"Lua 5.4");
    st.set_global("_VERSION", v);
}

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

fn print(st: &mut State) -> R {
    let n = st.nargs();
    let mut line = Vec::new();
    for i in 1..=n {
        if i > 1 {
            line.push(b'\t');
        }
        let v = st.arg(i);
        let s = st.tostring_bytes(v)?;
        line.extend_from_slice(&s);
    }
    st.charge_work(n as u64)?;
    st.charge_bytes(line.len())?;
    line.push(b'\n');
    st.write_stdout(&line);
    Ok(Action::Return(0))
}

fn type_(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let s = st.type_names[v.type_of() as usize];
    ret1(st, Value::Str(s))
}

fn tostring(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let b = st.tostring_bytes(v)?;
    st.charge_bytes(b.len())?;
    let s = st.new_string(&b);
    ret1(st, s)
}

fn tonumber(st: &mut State) -> R {
    if st.arg(2).is_nil() {
        let v = st.arg(1);
        if matches!(v, Value::Int(_) | Value::Float(_)) {
            return ret1(st, v);
        }
        if let Value::Str(s) = v {
            st.charge_bytes(st.heap.str(s).len())?;
            if let Some(n) = number::str_to_number(st.heap.str(s)) {
                return ret1(st, n.into());
            }
        }
        st.check_any(1)?;
        return ret1(st, Value::Nil);
    }
    let base = st.check_int(2)?;
    let Value::Str(s) = st.arg(1) else { return Err(st.arg_type_error(1, "string")) };
    if !(2..=36).contains(&base) {
        return Err(st.arg_error(2, "base out of range"));
    }
    st.charge_bytes(st.heap.str(s).len())?;
    let r = number::str_to_int_base(st.heap.str(s), base as u32);
    ret1(st, r.map_or(Value::Nil, Value::Int))
}

fn next(st: &mut State) -> R {
    let t = st.check_table(1)?;
    let k = st.heap.key(st.arg(2));
    let Some(step) = st.heap.tables.get(t).next_step(st.next_hint, k) else {
        return Err(st.error_string(b"invalid key to 'next'"));
    };
    if let Some((p, _, _)) = step.found {
        st.next_hint = p;
    }
    st.charge_bytes(step.scanned)?;
    // The pair word by word: `next_step` returned it through memory, and
    // a 16-byte copy waited for the stores that wrote it (two fifths of
    // `next`'s time).
    match &step.found {
        Some((_, k, v)) => {
            let (k, v) = (crate::execute::load(k), crate::execute::load(v));
            st.push(k);
            st.push(v);
            Ok(Action::Return(2))
        }
        None => ret1(st, Value::Nil),
    }
}

/// Whether `f` is the base library's `next` (what `pairs` returns for a
/// table without `__pairs`). A function pointer compares equal to itself;
/// were the compiler to merge `next` with a function of identical code,
/// that function would do what `next` does.
#[inline]
pub(crate) fn is_next(f: crate::state::NativeFn) -> bool {
    std::ptr::fn_addr_eq(f, next as crate::state::NativeFn)
}

/// Whether `f` is `ipairs`'s iterator (see [`is_next`]).
#[inline]
pub(crate) fn is_ipairs_aux(f: crate::state::NativeFn) -> bool {
    std::ptr::fn_addr_eq(f, ipairs_aux as crate::state::NativeFn)
}

fn pairs(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let tm = st.tm_of(v, TM_PAIRS);
    if tm.is_nil() {
        let next_fn = st.native_upvalue(0);
        st.push(next_fn);
        st.push(v);
        st.push(Value::Nil);
        return Ok(Action::Return(3));
    }
    st.push(tm);
    st.push(v);
    Ok(Action::Call { nargs: 1, nresults: 3, k: Some((pairs_k, 0)) })
}

fn pairs_k(_st: &mut State, _s: Status, _ctx: i64) -> R {
    Ok(Action::Return(3))
}

fn ipairs(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let aux = st.native_upvalue(0);
    st.push(aux);
    st.push(v);
    st.push(Value::Int(0));
    Ok(Action::Return(3))
}

fn ipairs_aux(st: &mut State) -> R {
    let i = st.check_int(2)?.wrapping_add(1);
    let t = st.arg(1);
    let v = match t {
        Value::Table(h) => {
            let v = st.heap.tables.get(h).get_int(i);
            if v.is_nil() && st.heap.tables.get(h).meta.is_some() {
                st.index_value(t, Value::Int(i))?
            } else {
                v
            }
        }
        _ => st.index_value(t, Value::Int(i))?,
    };
    if v.is_nil() {
        return ret1(st, Value::Nil);
    }
    st.push(Value::Int(i));
    st.push(v);
    Ok(Action::Return(2))
}

fn select(st: &mut State) -> R {
    let n = st.nargs() as i64;
    if let Value::Str(s) = st.arg(1) {
        if st.heap.str(s) == b"#" {
            return ret1(st, Value::Int(n - 1));
        }
    }
    let mut i = st.check_int(1)?;
    if i < 0 {
        i += n;
    } else if i > n {
        i = n;
    }
    if i < 1 {
        return Err(st.arg_error(1, "index out of range"));
    }
    Ok(Action::Return((n - i) as usize))
}

fn rawget(st: &mut State) -> R {
    let t = st.check_table(1)?;
    st.check_any(2)?;
    let v = st.heap.tables.get(t).get(st.heap.key(st.arg(2)));
    ret1(st, v)
}

fn rawset(st: &mut State) -> R {
    let t = st.check_table(1)?;
    st.check_any(2)?;
    st.check_any(3)?;
    let (k, v) = (st.arg(2), st.arg(3));
    st.raw_set_checked(t, k, v)?;
    ret1(st, Value::Table(t))
}

fn rawequal(st: &mut State) -> R {
    let a = st.check_any(1)?;
    let b = st.check_any(2)?;
    ret1(st, Value::Bool(st.heap.raw_eq(a, b)))
}

fn rawlen(st: &mut State) -> R {
    let n = match st.arg(1) {
        Value::Table(t) => st.heap.tables.get(t).len(),
        Value::Str(s) => st.heap.str(s).len() as i64,
        _ => return Err(st.arg_type_error(1, "table or string")),
    };
    ret1(st, Value::Int(n))
}

fn setmetatable(st: &mut State) -> R {
    let t = st.check_table(1)?;
    let mt = match st.arg(2) {
        Value::Nil if !st.arg_is_none(2) => None,
        Value::Table(m) => Some(m),
        _ => return Err(st.arg_type_error(2, "nil or table")),
    };
    if let Some(old) = st.heap.tables.get(t).meta {
        let prot = st.heap.tables.get(old).get_str(st.tm_names[TM_METATABLE]);
        if !prot.is_nil() {
            return Err(st.native_error("cannot change a protected metatable"));
        }
    }
    st.heap.tables.set_meta(t, mt);
    st.check_finalizer(Value::Table(t), mt);
    st.set_top(1);
    Ok(Action::Return(1))
}

fn getmetatable(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let Some(mt) = st.metatable(v) else { return ret1(st, Value::Nil) };
    let prot = st.heap.tables.get(mt).get_str(st.tm_names[TM_METATABLE]);
    ret1(st, if prot.is_nil() { Value::Table(mt) } else { prot })
}

fn assert(st: &mut State) -> R {
    if st.arg(1).truthy() {
        return Ok(Action::Return(st.nargs()));
    }
    assert_failed(st)
}

/// The error of a failed `assert`, out of line: inlined, its frame (the
/// message buffer, the error) made every passing `assert` save and restore
/// registers, 18 of its 48 instructions (array3d calls it 192,000 times).
#[cold]
#[inline(never)]
fn assert_failed(st: &mut State) -> R {
    st.check_any(1)?;
    let msg = if st.nargs() >= 2 { st.arg(2) } else { st.new_string(b"assertion failed!") };
    // As luaB_assert, which calls `error` with level 1: a string message
    // gets the position of assert's caller (none for a native caller).
    if let Value::Str(s) = msg {
        let mut w = Vec::new();
        st.where_into(1, &mut w);
        if !w.is_empty() {
            w.extend_from_slice(st.heap.str(s));
            return Err(st.error_string(&w));
        }
    }
    Err(Error::from_value(msg))
}

fn error(st: &mut State) -> R {
    let level = st.opt_int(2, 1)?;
    let mut v = st.arg(1);
    if let Value::Str(s) = v {
        if level > 0 {
            let mut w = Vec::new();
            st.where_into(level as usize, &mut w);
            if !w.is_empty() {
                w.extend_from_slice(st.heap.str(s));
                v = st.new_string(&w);
            }
        }
    }
    Err(Error::from_value(v))
}

fn pcall(st: &mut State) -> R {
    st.check_any(1)?;
    let base = st.arg_base();
    st.ex.stack.insert(base, Value::Bool(true));
    st.protect_frame(base + 1, false);
    let nargs = st.nargs() - 2;
    Ok(Action::Call { nargs, nresults: -1, k: Some((pcall_k, 0)) })
}

pub(crate) fn pcall_k(st: &mut State, status: Status, _ctx: i64) -> R {
    let base = st.arg_base();
    if status == Status::Error {
        st.ex.stack[base] = Value::Bool(false);
        return Ok(Action::Return(2));
    }
    Ok(Action::Return(st.nargs()))
}

fn xpcall(st: &mut State) -> R {
    if !st.arg(2).is_function() {
        return Err(st.arg_type_error(2, "function"));
    }
    let base = st.arg_base();
    // [f, h, args...] -> [h, true, f, args...]
    let f = st.arg(1);
    let h = st.arg(2);
    st.ex.stack[base] = h;
    st.ex.stack[base + 1] = Value::Bool(true);
    st.ex.stack.insert(base + 2, f);
    st.protect_frame(base + 2, true);
    let nargs = st.nargs() - 3;
    Ok(Action::Call { nargs, nresults: -1, k: Some((xpcall_k, 0)) })
}

pub(crate) fn xpcall_k(st: &mut State, status: Status, _ctx: i64) -> R {
    let base = st.arg_base();
    if status == Status::Error {
        st.ex.stack[base + 1] = Value::Bool(false);
        return Ok(Action::Return(2));
    }
    Ok(Action::Return(st.nargs() - 1))
}

fn load(st: &mut State) -> R {
    let chunk = st.arg(1);
    let mode = match st.opt_str(3)? {
        Some(m) => String::from_utf8_lossy(st.heap.str(m)).into_owned(),
        None => "bt".into(),
    };
    let env = if st.arg_is_none(4) { Value::Table(st.globals) } else { st.arg(4) };
    let (source, chunkname): (Vec<u8>, Vec<u8>) = match chunk {
        Value::Str(_) | Value::Int(_) | Value::Float(_) => {
            let s = st.check_str(1)?;
            let src = st.heap.str(s).to_vec();
            let name = match st.opt_str(2)? {
                Some(n) => st.heap.str(n).to_vec(),
                None => src.clone(),
            };
            (src, name)
        }
        _ => {
            let name = match st.opt_str(2)? {
                Some(n) => st.heap.str(n).to_vec(),
                None => b"=(load)".to_vec(),
            };
            if !chunk.is_function() {
                return Err(st.arg_type_error(1, "function"));
            }
            match read_all(st, chunk) {
                Ok(src) => (src, name),
                Err(e) => {
                    st.push(Value::Nil);
                    st.push(e.value);
                    return Ok(Action::Return(2));
                }
            }
        }
    };
    // Compiling is work in proportion to the source (`limits.rs`).
    st.charge_work((source.len() as u64).saturating_mul(crate::limits::LOAD_COST))?;
    match st.load_with_env(&source, &chunkname, &mode, env) {
        Ok(f) => ret1(st, f),
        Err(e) => {
            st.push(Value::Nil);
            st.push(e.value);
            Ok(Action::Return(2))
        }
    }
}

/// Calls a `load` reader until it returns nil or an empty string.
fn read_all(st: &mut State, reader: Value) -> Result<Vec<u8>, Error> {
    let mut src = Vec::new();
    loop {
        let r = st.pcall_value(reader, &[])?;
        match r.first().copied().unwrap_or(Value::Nil) {
            Value::Nil => return Ok(src),
            Value::Str(s) => {
                let b = st.heap.str(s);
                if b.is_empty() {
                    return Ok(src);
                }
                src.extend_from_slice(b);
                st.charge_bytes(st.heap.str(s).len())?;
            }
            // Numbers are strings to `lua_isstring`.
            v @ (Value::Int(_) | Value::Float(_)) => st.tostring_raw(v, &mut src),
            _ => return Err(st.native_error("reader function must return a string")),
        }
    }
}

const GC_OPTS: &[&str] = &[
    "stop",
    "restart",
    "collect",
    "count",
    "step",
    "setpause",
    "setstepmul",
    "isrunning",
    "generational",
    "incremental",
];

fn collectgarbage(st: &mut State) -> R {
    let opt = match st.opt_str(1)? {
        Some(s) => String::from_utf8_lossy(st.heap.str(s)).into_owned(),
        None => "collect".into(),
    };
    if !GC_OPTS.contains(&opt.as_str()) {
        return Err(st.arg_error(1, &format!("invalid option '{opt}'")));
    }
    let nint = match opt.as_str() {
        "step" | "setpause" | "setstepmul" => 1,
        "generational" => 2,
        "incremental" => 3,
        _ => 0,
    };
    let mut args = [0i64; 3];
    for (i, a) in args.iter_mut().enumerate().take(nint) {
        *a = st.opt_int(i + 2, 0)?;
    }
    if matches!(opt.as_str(), "collect" | "step") {
        // A full collection is work in proportion to the heap (`limits.rs`).
        st.charge_bytes(st.heap.bytes)?;
    }
    if st.gc.in_fin {
        // As `lua_gc` while the collector runs finalizers: every option
        // is invalid and `collectgarbage` returns fail.
        return ret1(st, Value::Nil);
    }
    let v = gc_option(st, &opt, args);
    ret1(st, v)
}

/// Carries out a `collectgarbage` option (`args`: its integer arguments,
/// 0 when absent).
fn gc_option(st: &mut State, opt: &str, args: [i64; 3]) -> Value {
    let n = args[0];
    let param = |x: i64| x.clamp(0, u32::MAX as i64) as u32;
    match opt {
        "stop" | "restart" => {
            st.gc_set_running(opt == "restart");
            Value::Int(0)
        }
        "collect" => {
            st.collect_garbage();
            Value::Int(0)
        }
        "count" => Value::Float(st.memory_in_use() as f64 / 1024.0),
        "step" => Value::Bool(st.gc_step(n.max(0) as usize)),
        "setpause" => {
            let old = st.gc.pause;
            st.gc.pause = param(n);
            Value::Int(old as i64)
        }
        "setstepmul" => {
            let old = st.gc.stepmul;
            st.gc.stepmul = param(n);
            Value::Int(old as i64)
        }
        "isrunning" => Value::Bool(st.gc_is_running()),
        "generational" => {
            let old = st.gc_generational(param(args[0]), param(args[1]));
            st.new_string(old.as_bytes())
        }
        _ => {
            let old = st.gc_incremental(param(args[0]), param(args[1]), param(args[2]));
            st.new_string(old.as_bytes())
        }
    }
}

fn warn(st: &mut State) -> R {
    let n = st.nargs();
    st.check_str(1)?;
    for i in 2..=n {
        st.check_str(i)?;
    }
    // Only a message of one piece can be a control message (lauxlib's
    // `checkcontrol` runs on the first piece only when it is also the last).
    let mut text = Vec::new();
    for i in 1..=n {
        let Value::Str(s) = st.arg(i) else { continue };
        text.extend_from_slice(st.heap.str(s));
    }
    st.charge_work(n as u64)?;
    st.charge_bytes(text.len())?;
    if n == 1 {
        st.warning(&text, false);
    } else {
        st.emit_warning(&text);
    }
    Ok(Action::Return(0))
}
