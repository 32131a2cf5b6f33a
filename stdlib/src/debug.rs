//! The `debug` library, a port of Lua 5.4.4's `ldblib.c`.
//!
//! # Design
//!
//! The library is glue: every introspection it offers is a public method of
//! the VM's `debug` module (`State::frame_by_level` for `lua_getstack`,
//! `frame_info`/`function_info` for `lua_getinfo`, `frame_local`,
//! `upvalue`, `set_hook`, ...), and each native here converts its
//! arguments in the order C does (so the same argument is blamed in
//! `bad argument` messages) and builds the results as C does (the fields of
//! `getinfo`'s table are inserted in `db_getinfo`'s order, so `pairs` over
//! it is the reference's order too).
//!
//! Functions taking an optional thread first (`getinfo`, `getlocal`,
//! `setlocal`, `sethook`, `gethook`, `traceback`) shift their other
//! arguments by one when it is given (`getthread`).
//!
//! **Hooks** are the VM's per-thread hooks with one Rust hook, `hookf`,
//! which looks the Lua hook function up in `registry._HOOKKEY[thread]`, a
//! table with weak keys created by the first `sethook` (as C does: the
//! suite checks its `__mode`), and calls it with the event name and the
//! line. The hook functions are thus reachable from the registry while
//! their thread lives, and need no other root.
//!
//! # Deviations
//!
//! * `upvalueid` returns an integer (luprex has no light userdata); equal
//!   ids still mean a shared variable.
//! * Full userdata have no user values: `getuservalue` returns `nil` and
//!   `setuservalue` fails, as for a userdata created with none.
//! * `setcstacklimit` does nothing and returns 200, as 5.4.4 does.

use luprex_vm::raw::debug::{hookmask, DebugInfo, FrameId, HookEvent};
use luprex_vm::raw::{Action, Error, NativeFn, State, Value};
use std::io::BufRead;

type R = Result<Action, Error>;

/// Opens the library: the `debug` global and `package.loaded.debug`.
pub fn open(st: &mut State) -> Result<(), Error> {
    let t = st.new_table_sized(0, 20);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("debug", "debug.debug", debug),
        ("getuservalue", "debug.getuservalue", getuservalue),
        ("gethook", "debug.gethook", gethook),
        ("getinfo", "debug.getinfo", getinfo),
        ("getlocal", "debug.getlocal", getlocal),
        ("getregistry", "debug.getregistry", getregistry),
        ("getmetatable", "debug.getmetatable", getmetatable),
        ("getupvalue", "debug.getupvalue", getupvalue),
        ("upvaluejoin", "debug.upvaluejoin", upvaluejoin),
        ("upvalueid", "debug.upvalueid", upvalueid),
        ("setuservalue", "debug.setuservalue", setuservalue),
        ("sethook", "debug.sethook", sethook),
        ("setlocal", "debug.setlocal", setlocal),
        ("setmetatable", "debug.setmetatable", setmetatable),
        ("setupvalue", "debug.setupvalue", setupvalue),
        ("traceback", "debug.traceback", traceback),
        ("setcstacklimit", "debug.setcstacklimit", setcstacklimit),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    st.set_global("debug", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"debug");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

fn push_str(st: &mut State, s: &str) {
    let v = st.new_string(s.as_bytes());
    st.push(v);
}

/// The thread argument, if any, and the index of the argument before the
/// others (`getthread`).
fn getthread(st: &State) -> (luprex_vm::raw::ThreadRef, usize) {
    match st.arg(1) {
        Value::Thread(t) => (t, 1),
        _ => (st.running_thread(), 0),
    }
}

/// `luaL_checktype(L, i, LUA_TFUNCTION)`.
fn check_function(st: &mut State, i: usize) -> Result<Value, Error> {
    let v = st.arg(i);
    if v.is_function() {
        Ok(v)
    } else {
        Err(st.arg_type_error(i, "function"))
    }
}

/// The frame at the level in argument `i` of thread `th`, or `level out of
/// range`.
fn check_level(st: &mut State, th: luprex_vm::raw::ThreadRef, i: usize) -> Result<FrameId, Error> {
    let level = st.check_int(i)?;
    match st.frame_by_level(th, level) {
        Some(f) => Ok(f),
        None => Err(st.arg_error(i, "level out of range")),
    }
}

// ----- getinfo ---------------------------------------------------------

fn set_field(st: &mut State, t: Value, k: &str, v: Value) {
    let k = st.new_string(k.as_bytes());
    st.table_set(t, k, v);
}

fn set_str(st: &mut State, t: Value, k: &str, s: &[u8]) {
    let v = st.new_string(s);
    set_field(st, t, k, v);
}

/// Builds `getinfo`'s table for the options in `opts` (`db_getinfo`).
fn info_table(st: &mut State, info: &DebugInfo, opts: &[u8]) -> Value {
    let t = st.new_table();
    let has = |c: u8| opts.contains(&c);
    if has(b'S') {
        set_str(st, t, "source", &info.source);
        set_str(st, t, "short_src", info.short_src.as_bytes());
        set_field(st, t, "linedefined", Value::Int(info.line_defined));
        set_field(st, t, "lastlinedefined", Value::Int(info.last_line_defined));
        set_str(st, t, "what", info.what.as_bytes());
    }
    if has(b'l') {
        set_field(st, t, "currentline", Value::Int(info.current_line));
    }
    if has(b'u') {
        set_field(st, t, "nups", Value::Int(info.nups as i64));
        set_field(st, t, "nparams", Value::Int(info.nparams as i64));
        set_field(st, t, "isvararg", Value::Bool(info.is_vararg));
    }
    if has(b'n') {
        if let Some(n) = &info.name {
            set_str(st, t, "name", n.as_bytes());
        }
        set_str(st, t, "namewhat", info.namewhat.as_bytes());
    }
    if has(b'r') {
        set_field(st, t, "ftransfer", Value::Int(i64::from(info.ftransfer)));
        set_field(st, t, "ntransfer", Value::Int(i64::from(info.ntransfer)));
    }
    if has(b't') {
        set_field(st, t, "istailcall", Value::Bool(info.is_tail_call));
    }
    if has(b'L') {
        if let Some(lines) = &info.active_lines {
            let lt = st.new_table();
            for &l in lines {
                st.table_set(lt, Value::Int(i64::from(l)), Value::Bool(true));
            }
            set_field(st, t, "activelines", lt);
        }
    }
    if has(b'f') {
        set_field(st, t, "func", info.func);
    }
    t
}

fn getinfo(st: &mut State) -> R {
    let (th, arg) = getthread(st);
    let opts: Vec<u8> = match st.opt_str(arg + 2)? {
        Some(s) => st.str_bytes(s).to_vec(),
        None => b"flnSrtu".to_vec(),
    };
    if opts.first() == Some(&b'>') {
        return Err(st.arg_error(arg + 2, "invalid option '>'"));
    }
    let fv = st.arg(arg + 1);
    let info = if fv.is_function() {
        st.function_info(fv)
    } else {
        let level = st.check_int(arg + 1)?;
        match st.frame_by_level(th, level) {
            Some(f) => st.frame_info(f),
            None => return ret1(st, Value::Nil),
        }
    };
    if opts.iter().any(|c| !b"SlnrutfL".contains(c)) {
        return Err(st.arg_error(arg + 2, "invalid option"));
    }
    let t = info_table(st, &info, &opts);
    ret1(st, t)
}

// ----- locals, upvalues, user values ---------------------------------------

fn getlocal(st: &mut State) -> R {
    let (th, arg) = getthread(st);
    let nvar = st.check_int(arg + 2)?;
    let fv = st.arg(arg + 1);
    if fv.is_function() {
        return match st.param_name(fv, nvar) {
            Some(n) => {
                push_str(st, &n);
                Ok(Action::Return(1))
            }
            None => ret1(st, Value::Nil),
        };
    }
    let f = check_level(st, th, arg + 1)?;
    match st.frame_local(f, nvar) {
        Some((name, v)) => {
            push_str(st, &name);
            st.push(v);
            Ok(Action::Return(2))
        }
        None => ret1(st, Value::Nil),
    }
}

fn setlocal(st: &mut State) -> R {
    let (th, arg) = getthread(st);
    let level = st.check_int(arg + 1)?;
    let nvar = st.check_int(arg + 2)?;
    let Some(f) = st.frame_by_level(th, level) else {
        return Err(st.arg_error(arg + 1, "level out of range"));
    };
    let v = st.check_any(arg + 3)?;
    match st.set_frame_local(f, nvar, v) {
        Some(name) => {
            push_str(st, &name);
            Ok(Action::Return(1))
        }
        None => ret1(st, Value::Nil),
    }
}

fn getupvalue(st: &mut State) -> R {
    let n = st.check_int(2)?;
    let f = check_function(st, 1)?;
    match st.upvalue(f, n) {
        Some((name, v)) => {
            push_str(st, &name);
            st.push(v);
            Ok(Action::Return(2))
        }
        None => Ok(Action::Return(0)),
    }
}

fn setupvalue(st: &mut State) -> R {
    let v = st.check_any(3)?;
    let n = st.check_int(2)?;
    let f = check_function(st, 1)?;
    match st.set_upvalue(f, n, v) {
        Some(name) => {
            push_str(st, &name);
            Ok(Action::Return(1))
        }
        None => Ok(Action::Return(0)),
    }
}

/// `checkupval`: the function in `argf` and the upvalue index in `argnup`.
fn checkupval(st: &mut State, argf: usize, argnup: usize) -> Result<(Value, i64), Error> {
    let n = st.check_int(argnup)?;
    let f = check_function(st, argf)?;
    Ok((f, n))
}

fn upvalueid(st: &mut State) -> R {
    let (f, n) = checkupval(st, 1, 2)?;
    let id = st.upvalue_id(f, n).map_or(Value::Nil, Value::Int);
    ret1(st, id)
}

fn upvaluejoin(st: &mut State) -> R {
    let (f1, n1) = checkupval(st, 1, 2)?;
    if st.upvalue_id(f1, n1).is_none() {
        return Err(st.arg_error(2, "invalid upvalue index"));
    }
    let (f2, n2) = checkupval(st, 3, 4)?;
    if st.upvalue_id(f2, n2).is_none() {
        return Err(st.arg_error(4, "invalid upvalue index"));
    }
    if !matches!(f1, Value::LuaFn(_)) {
        return Err(st.arg_error(1, "Lua function expected"));
    }
    if !matches!(f2, Value::LuaFn(_)) {
        return Err(st.arg_error(3, "Lua function expected"));
    }
    st.upvalue_join(f1, n1, f2, n2);
    Ok(Action::Return(0))
}

fn getuservalue(st: &mut State) -> R {
    st.opt_int(2, 1)?;
    // No user values: nil (fail for a non-userdata too).
    ret1(st, Value::Nil)
}

fn setuservalue(st: &mut State) -> R {
    st.opt_int(3, 1)?;
    if !matches!(st.arg(1), Value::UserData(_)) {
        return Err(st.arg_type_error(1, "userdata"));
    }
    st.check_any(2)?;
    ret1(st, Value::Nil)
}

// ----- metatables, registry ------------------------------------------------

fn getregistry(st: &mut State) -> R {
    let r = st.registry();
    ret1(st, Value::Table(r))
}

fn getmetatable(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let mt = st.metatable(v).map_or(Value::Nil, Value::Table);
    ret1(st, mt)
}

fn setmetatable(st: &mut State) -> R {
    let mt = match st.arg(2) {
        Value::Nil if !st.arg_is_none(2) => None,
        Value::Table(t) => Some(t),
        _ => return Err(st.arg_type_error(2, "nil or table")),
    };
    let v = st.arg(1);
    st.set_any_metatable(v, mt);
    ret1(st, v)
}

fn setcstacklimit(st: &mut State) -> R {
    st.check_int(1)?;
    ret1(st, Value::Int(200))
}

// ----- traceback, debug.debug ----------------------------------------------

fn traceback(st: &mut State) -> R {
    let (th, arg) = getthread(st);
    let m = st.arg(arg + 1);
    let msg = match m {
        Value::Str(s) => Some(String::from_utf8_lossy(st.str_bytes(s)).into_owned()),
        Value::Int(_) | Value::Float(_) => {
            Some(String::from_utf8_lossy(&st.tostring_bytes(m)?).into_owned())
        }
        Value::Nil => None,
        _ => return ret1(st, m),
    };
    let dflt = if th == st.running_thread() { 1 } else { 0 };
    let level = st.opt_int(arg + 2, dflt)?;
    let level = usize::try_from(level).unwrap_or(usize::MAX);
    let host = th == st.main_thread();
    let tb = st.traceback_of(th, msg.as_deref(), level, host);
    let v = st.new_string(tb.as_bytes());
    ret1(st, v)
}

/// `debug.debug`: runs each line read from stdin until `cont` or the end
/// of input, reporting errors on stderr.
fn debug(st: &mut State) -> R {
    let stdin = std::io::stdin();
    loop {
        st.write_stderr(b"lua_debug> ");
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return Ok(Action::Return(0)),
            Ok(_) => {}
        }
        if line == "cont\n" || line == "cont" {
            return Ok(Action::Return(0));
        }
        let r = match st.load(line.as_bytes(), b"=(debug command)") {
            Ok(f) => st.pcall_value(f, &[]).map(|_| ()),
            Err(e) => Err(e),
        };
        if let Err(e) = r {
            let mut msg = st.tostring_bytes(e.value())?;
            msg.push(b'\n');
            st.write_stderr(&msg);
        }
    }
}

// ----- hooks -------------------------------------------------------------

const HOOKKEY: &[u8] = b"_HOOKKEY";

/// The hook table `registry._HOOKKEY` (weak keys: thread -> hook
/// function), created on first use.
fn hook_table(st: &mut State) -> Value {
    let reg = Value::Table(st.registry());
    let k = st.new_string(HOOKKEY);
    let t = st.table_get(reg, k);
    if matches!(t, Value::Table(_)) {
        return t;
    }
    let t = st.new_table();
    let mode = st.new_string(b"k");
    set_field(st, t, "__mode", mode);
    if let Value::Table(h) = t {
        st.set_any_metatable(t, Some(h));
    }
    st.table_set(reg, k, t);
    t
}

/// The VM hook of every thread hooked by `debug.sethook` (`hookf`): calls
/// `registry._HOOKKEY[thread]` with the event name and the line.
fn hookf(st: &mut State, ev: HookEvent, line: Option<u32>) -> Result<(), Error> {
    let reg = Value::Table(st.registry());
    let k = st.new_string(HOOKKEY);
    let t = st.table_get(reg, k);
    let th = Value::Thread(st.running_thread());
    let f = st.table_get(t, th);
    if !f.is_function() {
        return Ok(());
    }
    let name = st.new_string(ev.name().as_bytes());
    let l = line.map_or(Value::Nil, |l| Value::Int(i64::from(l)));
    st.call_value(f, &[name, l])?;
    Ok(())
}

fn sethook(st: &mut State) -> R {
    let (th, arg) = getthread(st);
    let (f, mask, count) = if st.arg(arg + 1).is_nil() {
        (Value::Nil, 0u8, 0i64)
    } else {
        let smask = st.check_str(arg + 2)?;
        let f = check_function(st, arg + 1)?;
        let count = st.opt_int(arg + 3, 0)?;
        let mut mask = 0u8;
        for &c in st.str_bytes(smask) {
            mask |= match c {
                b'c' => hookmask::CALL,
                b'r' => hookmask::RET,
                b'l' => hookmask::LINE,
                _ => 0,
            };
        }
        if count > 0 {
            mask |= hookmask::COUNT;
        }
        (f, mask, count.clamp(0, i64::from(i32::MAX)))
    };
    let t = hook_table(st);
    st.table_set(t, Value::Thread(th), f);
    st.set_hook(th, (mask != 0).then_some(hookf as luprex_vm::raw::debug::HookFn), mask, count);
    Ok(Action::Return(0))
}

fn gethook(st: &mut State) -> R {
    let (th, _) = getthread(st);
    let Some((_, mask, count)) = st.hook(th) else { return ret1(st, Value::Nil) };
    let t = hook_table(st);
    let f = st.table_get(t, Value::Thread(th));
    st.push(f);
    let mut m = String::new();
    for (bit, c) in [(hookmask::CALL, 'c'), (hookmask::RET, 'r'), (hookmask::LINE, 'l')] {
        if mask & bit != 0 {
            m.push(c);
        }
    }
    push_str(st, &m);
    st.push(Value::Int(count));
    Ok(Action::Return(3))
}
