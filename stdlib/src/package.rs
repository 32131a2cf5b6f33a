//! The `package` library (`loadlib.c` of Lua 5.4.4) and the two base
//! functions that read files, `loadfile` and `dofile` (`lbaselib.c`), for
//! the full set only.
//!
//! # Design
//!
//! `require` follows `ll_require`: it looks in `package.loaded` (the
//! registry's `_LOADED`), then asks each function of `package.searchers`
//! in turn (nested calls, as C's `lua_call`) and collects their messages
//! into `module 'x' not found:` followed by one `\n\t`-separated line per
//! failed attempt. The loader itself is called through [`Action::Call`]
//! with a continuation, so a module body runs as an ordinary frame of the
//! interpreter (no Rust recursion per nested `require`).
//!
//! The four searchers are those of the reference: `package.preload`, Lua
//! files along `package.path`, C libraries along `package.cpath`, and
//! C root libraries. Luprex loads no C code, so the C searchers behave
//! like a Lua built without dynamic-library support: when no file matches
//! they list the paths tried (`no file '...'`), and when a file does match
//! they fail with `dynamic libraries not enabled; check your Lua
//! installation`. `package.loadlib` returns `nil, <that message>,
//! "absent"`.
//!
//! All searchers and `require` carry the `package` table as upvalue 0, so
//! replacing the global `package` does not break them (as in C).
//!
//! `package.path` / `package.cpath` come from `LUA_PATH_5_4` / `LUA_PATH`
//! (`LUA_CPATH_5_4` / `LUA_CPATH`), a `;;` standing for the default path,
//! unless the registry has `LUA_NOENV` set.
//!
//! `loadfile` / `dofile` implement `luaL_loadfilex`: `@name` chunk names,
//! `=stdin` for standard input, a UTF-8 BOM and a first line starting with
//! `#` skipped (the line's newline kept for line numbers, except before a
//! binary chunk), `cannot open/read <name>: <strerror>` messages. `dofile`
//! calls the chunk with [`Action::Call`] as a tail call, so a coroutine can
//! yield inside it.

use crate::io::c_bytes;
use crate::io::stream::OsError;
use luprex_vm::raw::TableRef;
use luprex_vm::raw::{Action, Error, State, Status, Value};
use std::io::Read;

type R = Result<Action, Error>;

/// `LUA_PATH_DEFAULT` of a POSIX build.
pub const PATH_DEFAULT: &str =
    "/usr/local/share/lua/5.4/?.lua;/usr/local/share/lua/5.4/?/init.lua;\
/usr/local/lib/lua/5.4/?.lua;/usr/local/lib/lua/5.4/?/init.lua;./?.lua;./?/init.lua";
/// `LUA_CPATH_DEFAULT` of a POSIX build.
pub const CPATH_DEFAULT: &str =
    "/usr/local/lib/lua/5.4/?.so;/usr/local/lib/lua/5.4/loadall.so;./?.so";
/// `package.config`: directory separator, path separator, mark, exec-dir
/// mark, ignore mark.
pub const CONFIG: &str = "/\n;\n?\n!\n-\n";
/// The message of a build without dynamic libraries (`DLMSG`).
pub const DLMSG: &str = "dynamic libraries not enabled; check your Lua installation";

/// Opens the library: `package`, `require`, and the globals `loadfile`
/// and `dofile`.
pub fn open(st: &mut State) -> Result<(), Error> {
    let reg = st.registry();
    let clibs = sub_table(st, reg, "_CLIBS");
    let _ = clibs;
    let pkg = st.new_table_sized(0, 8);
    st.set_native_field(pkg, "loadlib", "package.loadlib", ll_loadlib);
    st.set_native_field(pkg, "searchpath", "package.searchpath", ll_searchpath);
    create_searchers(st, pkg);
    set_path(st, pkg, "path", "LUA_PATH", PATH_DEFAULT);
    set_path(st, pkg, "cpath", "LUA_CPATH", CPATH_DEFAULT);
    let config = st.new_string(CONFIG.as_bytes());
    set_field(st, pkg, "config", config);
    let loaded = st.loaded_table();
    set_field(st, pkg, "loaded", Value::Table(loaded));
    let preload = sub_table(st, reg, "_PRELOAD");
    set_field(st, pkg, "preload", Value::Table(preload));
    let id = st.native_id("require", ll_require);
    st.register_continuation("require_k", require_k);
    let require = st.new_rust_closure(id, vec![Value::Table(pkg)]);
    st.set_global("require", require);
    set_field(st, loaded, "package", Value::Table(pkg));
    st.set_global("package", Value::Table(pkg));
    let g = st.globals();
    st.set_native_field(g, "loadfile", "loadfile", luab_loadfile);
    st.set_native_field(g, "dofile", "dofile", luab_dofile);
    Ok(())
}

// ----- helpers --------------------------------------------------------------

fn set_field(st: &mut State, t: TableRef, key: &str, v: Value) {
    let k = st.intern(key.as_bytes());
    st.raw_set_str(t, k, v);
}

fn get_field(st: &mut State, t: TableRef, key: &[u8]) -> Value {
    let k = st.new_string(key);
    st.table_get(Value::Table(t), k)
}

/// `luaL_getsubtable`: `t[key]`, created if it is not a table.
fn sub_table(st: &mut State, t: TableRef, key: &str) -> TableRef {
    if let Value::Table(s) = get_field(st, t, key.as_bytes()) {
        return s;
    }
    let s = st.new_table_sized(0, 4);
    set_field(st, t, key, Value::Table(s));
    s
}

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

/// `lua_tostring` for messages: strings and numbers.
fn to_bytes(st: &mut State, v: Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(s) => Some(st.str_bytes(s).to_vec()),
        Value::Int(_) | Value::Float(_) => {
            let mut b = Vec::new();
            luprex_vm::raw::number::fmt_number(v, &mut b);
            Some(b)
        }
        _ => None,
    }
}

/// Replaces every occurrence of `pat` in `s` by `rep` (`luaL_gsub`).
pub fn gsub(s: &[u8], pat: &[u8], rep: &[u8]) -> Vec<u8> {
    if pat.is_empty() {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(pat) {
            out.extend_from_slice(rep);
            i += pat.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

// ----- paths ------------------------------------------------------------------

/// The value of a path variable (`setpath`): the versioned variable, else
/// the plain one, with `;;` replaced by the default; the default without
/// either (or with `LUA_NOENV`).
pub fn path_value(versioned: Option<Vec<u8>>, plain: Option<Vec<u8>>, dft: &str) -> Vec<u8> {
    let Some(path) = versioned.or(plain) else { return dft.as_bytes().to_vec() };
    let Some(mark) = path.windows(2).position(|w| w == b";;") else { return path };
    let mut out = Vec::new();
    if mark > 0 {
        out.extend_from_slice(&path[..mark]);
        out.push(b';');
    }
    out.extend_from_slice(dft.as_bytes());
    if mark + 2 < path.len() {
        out.push(b';');
        out.extend_from_slice(&path[mark + 2..]);
    }
    out
}

fn env_bytes(name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    std::env::var_os(name).map(OsStringExt::into_vec)
}

fn set_path(st: &mut State, pkg: TableRef, field: &str, env: &str, dft: &str) {
    let reg = st.registry();
    let noenv = get_field(st, reg, b"LUA_NOENV").truthy();
    let v = if noenv {
        dft.as_bytes().to_vec()
    } else {
        path_value(env_bytes(&format!("{env}_5_4")), env_bytes(env), dft)
    };
    let s = st.new_string(c_bytes(&v));
    set_field(st, pkg, field, s);
}

/// Whether `fopen(name, "r")` succeeds.
fn readable(name: &[u8]) -> bool {
    std::fs::File::open(crate::io::c_path(name)).is_ok()
}

/// `searchpath`: the first readable file of `path` with `?` replaced by
/// `name` (in which `sep` is first replaced by `dirsep`), or the
/// `no file '...'` message listing every candidate.
pub fn search_path(
    name: &[u8],
    path: &[u8],
    sep: &[u8],
    dirsep: &[u8],
) -> Result<Vec<u8>, Vec<u8>> {
    let name = c_bytes(name);
    let (path, sep, dirsep) = (c_bytes(path), c_bytes(sep), c_bytes(dirsep));
    let name = match sep.first() {
        Some(c) if name.contains(c) => gsub(name, sep, dirsep),
        _ => name.to_vec(),
    };
    let full = gsub(path, b"?", &name);
    if !full.is_empty() {
        for candidate in full.split(|&c| c == b';') {
            if readable(candidate) {
                return Ok(candidate.to_vec());
            }
        }
    }
    let mut msg = b"no file '".to_vec();
    msg.extend_from_slice(&gsub(&full, b";", b"'\n\tno file '"));
    msg.push(b'\'');
    Err(msg)
}

fn ll_searchpath(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let path = st.check_str(2)?;
    let sep = st.opt_str(3)?.map_or(b".".to_vec(), |s| st.str_bytes(s).to_vec());
    let rep = st.opt_str(4)?.map_or(b"/".to_vec(), |s| st.str_bytes(s).to_vec());
    let (name, path) = (st.str_bytes(name).to_vec(), st.str_bytes(path).to_vec());
    match search_path(&name, &path, &sep, &rep) {
        Ok(f) => {
            let v = st.new_string(&f);
            ret1(st, v)
        }
        Err(msg) => {
            st.push(Value::Nil);
            let m = st.new_string(&msg);
            st.push(m);
            Ok(Action::Return(2))
        }
    }
}

fn ll_loadlib(st: &mut State) -> R {
    st.check_str(1)?;
    st.check_str(2)?;
    st.push(Value::Nil);
    let m = st.new_string(DLMSG.as_bytes());
    st.push(m);
    let w = st.new_string(b"absent");
    st.push(w);
    Ok(Action::Return(3))
}

// ----- searchers ----------------------------------------------------------------

fn create_searchers(st: &mut State, pkg: TableRef) {
    let list: [(&'static str, luprex_vm::raw::NativeFn); 4] = [
        ("package.searchers.preload", searcher_preload),
        ("package.searchers.Lua", searcher_lua),
        ("package.searchers.C", searcher_c),
        ("package.searchers.Croot", searcher_croot),
    ];
    let t = st.new_table_sized(4, 0);
    for (i, (name, f)) in list.into_iter().enumerate() {
        let id = st.native_id(name, f);
        let c = st.new_rust_closure(id, vec![Value::Table(pkg)]);
        st.raw_set_int(t, i as i64 + 1, c);
    }
    set_field(st, pkg, "searchers", Value::Table(t));
}

/// `findfile`: searches `package[pname]` (which must be a string) for
/// `name`.
fn find_file(st: &mut State, name: &[u8], pname: &str) -> Result<Result<Vec<u8>, Vec<u8>>, Error> {
    let pkg = st.native_upvalue(0);
    let k = st.new_string(pname.as_bytes());
    let path = st.index_value(pkg, k)?;
    let Some(path) = to_bytes(st, path) else {
        return Err(st.native_error(format!("'package.{pname}' must be a string")));
    };
    Ok(search_path(name, &path, b".", b"/"))
}

/// `checkload`: the loader and its data, or `error loading module`.
fn check_load(st: &mut State, name: &[u8], loaded: Result<Value, Vec<u8>>, file: &[u8]) -> R {
    match loaded {
        Ok(f) => {
            st.push(f);
            let s = st.new_string(file);
            st.push(s);
            Ok(Action::Return(2))
        }
        Err(msg) => {
            let text = format!(
                "error loading module '{}' from file '{}':\n\t{}",
                String::from_utf8_lossy(c_bytes(name)),
                String::from_utf8_lossy(c_bytes(file)),
                String::from_utf8_lossy(&msg)
            );
            Err(st.native_error(text))
        }
    }
}

fn searcher_preload(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let name = st.str_bytes(name).to_vec();
    let reg = st.registry();
    let preload = get_field(st, reg, b"_PRELOAD");
    let k = st.new_string(&name);
    let loader = st.index_value(preload, k)?;
    if loader.is_nil() {
        let msg =
            format!("no field package.preload['{}']", String::from_utf8_lossy(c_bytes(&name)));
        let m = st.new_string(msg.as_bytes());
        return ret1(st, m);
    }
    st.push(loader);
    let d = st.new_string(b":preload:");
    st.push(d);
    Ok(Action::Return(2))
}

fn searcher_lua(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let name = st.str_bytes(name).to_vec();
    let file = match find_file(st, &name, "path")? {
        Ok(f) => f,
        Err(msg) => {
            let m = st.new_string(&msg);
            return ret1(st, m);
        }
    };
    let env = Value::Table(st.globals());
    let loaded = load_file(st, Some(&file), "bt", env).map_err(|e| error_bytes(st, &e));
    check_load(st, &name, loaded, &file)
}

/// The message bytes of an error value.
fn error_bytes(st: &mut State, e: &Error) -> Vec<u8> {
    to_bytes(st, e.value()).unwrap_or_else(|| e.message().as_bytes().to_vec())
}

fn searcher_c(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let name = st.str_bytes(name).to_vec();
    match find_file(st, &name, "cpath")? {
        Ok(file) => check_load(st, &name, Err(DLMSG.as_bytes().to_vec()), &file),
        Err(msg) => {
            let m = st.new_string(&msg);
            ret1(st, m)
        }
    }
}

fn searcher_croot(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let name = st.str_bytes(name).to_vec();
    let Some(dot) = c_bytes(&name).iter().position(|&c| c == b'.') else {
        return Ok(Action::Return(0));
    };
    match find_file(st, &name[..dot], "cpath")? {
        Ok(file) => check_load(st, &name, Err(DLMSG.as_bytes().to_vec()), &file),
        Err(msg) => {
            let m = st.new_string(&msg);
            ret1(st, m)
        }
    }
}

// ----- require ----------------------------------------------------------------

/// `findloader`: asks each searcher; returns the loader and its data, or
/// raises `module 'name' not found:...`.
fn find_loader(st: &mut State, name: Value) -> Result<(Value, Value), Error> {
    let pkg = st.native_upvalue(0);
    let k = st.new_string(b"searchers");
    let searchers = st.index_value(pkg, k)?;
    let Value::Table(searchers) = searchers else {
        return Err(st.native_error("'package.searchers' must be a table"));
    };
    let mut msg = Vec::new();
    for i in 1.. {
        let searcher = st.table(searchers).get_int(i);
        if searcher.is_nil() {
            let n = to_bytes(st, name).unwrap_or_default();
            let text = format!(
                "module '{}' not found:{}",
                String::from_utf8_lossy(c_bytes(&n)),
                String::from_utf8_lossy(&msg)
            );
            return Err(st.native_error(text));
        }
        let r = st.call_value(searcher, &[name])?;
        let loader = r.first().copied().unwrap_or(Value::Nil);
        let data = r.get(1).copied().unwrap_or(Value::Nil);
        if loader.is_function() {
            return Ok((loader, data));
        }
        if let Some(b) = to_bytes(st, loader) {
            msg.extend_from_slice(b"\n\t");
            msg.extend_from_slice(&b);
        }
    }
    Err(st.native_error("unreachable"))
}

fn ll_require(st: &mut State) -> R {
    let name = st.check_str(1)?;
    st.set_top(1);
    let loaded = Value::Table(st.loaded_table());
    let m = st.index_value(loaded, Value::Str(name))?;
    if m.truthy() {
        return ret1(st, m);
    }
    let (loader, data) = find_loader(st, Value::Str(name))?;
    st.push(data);
    st.push(loader);
    st.push(Value::Str(name));
    st.push(data);
    Ok(Action::Call { nargs: 2, nresults: 1, k: Some((require_k, 0)) })
}

/// After the loader returned: stack is `name, data, result`.
fn require_k(st: &mut State, _status: Status, _ctx: i64) -> R {
    let (name, data, result) = (st.arg(1), st.arg(2), st.arg(3));
    let loaded = Value::Table(st.loaded_table());
    if !result.is_nil() {
        st.set_index_value(loaded, name, result)?;
    }
    let mut m = st.index_value(loaded, name)?;
    if m.is_nil() {
        m = Value::Bool(true);
        st.set_index_value(loaded, name, m)?;
    }
    st.push(m);
    st.push(data);
    Ok(Action::Return(2))
}

// ----- loadfile and dofile --------------------------------------------------------

/// `errfile`: `cannot <what> <name>: <strerror>`.
fn file_error(st: &mut State, what: &str, name: Option<&[u8]>, e: &OsError) -> Error {
    let n = name.map_or("stdin".into(), |n| String::from_utf8_lossy(c_bytes(n)).into_owned());
    st.error_string(format!("cannot {what} {n}: {}", e.message).as_bytes())
}

/// Reads a whole file (or standard input for `None`).
fn read_source(name: Option<&[u8]>) -> Result<Vec<u8>, (&'static str, OsError)> {
    let mut data = Vec::new();
    match name {
        None => {
            std::io::stdin().read_to_end(&mut data).map_err(|e| ("read", e.into()))?;
        }
        Some(n) => {
            let mut f =
                std::fs::File::open(crate::io::c_path(n)).map_err(|e| ("open", e.into()))?;
            f.read_to_end(&mut data).map_err(|e| ("read", e.into()))?;
        }
    }
    Ok(data)
}

/// `skipcomment` over an in-memory chunk: drops a complete UTF-8 BOM and
/// a first line starting with `#`. Returns the rest and whether a comment
/// line was skipped.
fn skip_comment(data: &[u8]) -> (&[u8], bool) {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    if data.first() != Some(&b'#') {
        return (data, false);
    }
    match data.iter().position(|&c| c == b'\n') {
        Some(i) => (&data[i + 1..], true),
        None => (&[], true),
    }
}

/// The chunk text `luaL_loadfilex` hands to the parser.
pub fn chunk_text(data: &[u8], from_file: bool) -> Vec<u8> {
    let (rest, comment) = skip_comment(data);
    let binary = rest.first() == Some(&0x1b) && from_file;
    let mut out = Vec::with_capacity(rest.len() + 1);
    if comment && !binary {
        out.push(b'\n');
    }
    out.extend_from_slice(rest);
    out
}

/// `luaL_loadfilex`: loads file `name` (standard input for `None`) with
/// `mode` and `env` as first upvalue. Errors carry the message value.
pub fn load_file(
    st: &mut State,
    name: Option<&[u8]>,
    mode: &str,
    env: Value,
) -> Result<Value, Error> {
    let data = match read_source(name) {
        Ok(d) => d,
        Err((what, e)) => return Err(file_error(st, what, name, &e)),
    };
    let text = chunk_text(&data, name.is_some());
    let chunkname = match name {
        Some(n) => [b"@", c_bytes(n)].concat(),
        None => b"=stdin".to_vec(),
    };
    if text.first() == Some(&0x1b) && !mode.contains('b') {
        // `lua_load` decides on the first byte alone.
        let m = format!("attempt to load a binary chunk (mode is '{mode}')");
        return Err(st.error_string(m.as_bytes()));
    }
    // Compiling is work in proportion to the source, as in `load`.
    st.charge_work((text.len() as u64).saturating_mul(luprex_vm::raw::LOAD_COST))?;
    st.load_with_env(&text, &chunkname, mode, env)
}

fn luab_loadfile(st: &mut State) -> R {
    let fname = st.opt_str(1)?.map(|s| st.str_bytes(s).to_vec());
    let mode = st.opt_str(2)?.map_or("bt".to_owned(), |m| {
        String::from_utf8_lossy(c_bytes(st.str_bytes(m))).into_owned()
    });
    let env = if st.arg_is_none(3) { Value::Table(st.globals()) } else { st.arg(3) };
    match load_file(st, fname.as_deref(), &mode, env) {
        Ok(f) => ret1(st, f),
        Err(e) => {
            st.push(Value::Nil);
            st.push(e.value());
            Ok(Action::Return(2))
        }
    }
}

fn luab_dofile(st: &mut State) -> R {
    let fname = st.opt_str(1)?.map(|s| st.str_bytes(s).to_vec());
    st.set_top(0);
    let env = Value::Table(st.globals());
    let f = load_file(st, fname.as_deref(), "bt", env)?;
    st.push(f);
    Ok(Action::Call { nargs: 0, nresults: -1, k: None })
}
