//! The `io` library (`liolib.c` of Lua 5.4.4), for the full set only.
//!
//! # Design
//!
//! A file handle is a full userdata whose payload is an [`LStream`] and
//! whose metatable is the registry's `FILE*` table (`__name = "FILE*"`,
//! `__index` = the method table, `__gc`, `__close`, `__tostring`), exactly
//! as `luaL_newmetatable` builds it. The default input and output files
//! live in the registry under `_IO_input` and `_IO_output`.
//!
//! An [`LStream`] is either closed or holds a [`Handle`]:
//! * a [`Stream`] (`io/stream.rs`): a buffered regular file, or the
//!   process's standard input, with C `FILE*` semantics (look-ahead for
//!   `read("n")`, `setvbuf` modes, `ferror` + `errno`);
//! * standard output, written through the `State`'s stdout writer
//!   ([`State::write_stdout`]) so `print` and `io.write` share one buffer
//!   and interleave in order;
//! * standard error, written through [`State::write_stderr`] unbuffered.
//!
//! The three standard files cannot be closed (`cannot close standard
//! file`), like `io_noclose`.
//!
//! Natives follow the C functions one for one (`g_read`, `g_write`,
//! `aux_lines`, `io_readline`, ...), with the same argument checks in the
//! same order, so messages match. The payload is borrowed only for one
//! primitive operation at a time, never across a call into Lua.
//!
//! `io.popen` raises `'popen' not supported` (after checking its mode), as
//! a build of Lua without `popen` does.

pub mod stream;

use crate::io::stream::{BufMode, OsError, Source, Stream, Whence};
use luprex_vm::raw::TableRef;
use luprex_vm::raw::{Action, Error, State, Value};
use std::path::PathBuf;

type R = Result<Action, Error>;

/// Registry key of the file-handle metatable.
const FILEHANDLE: &str = "FILE*";
/// Registry key of the default input file.
const IO_INPUT: &str = "_IO_input";
/// Registry key of the default output file.
const IO_OUTPUT: &str = "_IO_output";
/// Maximum number of formats of `lines` (`MAXARGLINE`).
const MAXARGLINE: usize = 250;
/// `LUAL_BUFFERSIZE`: the default size of `setvbuf`.
const LUAL_BUFFERSIZE: i64 = 1024;

/// An open file's handle.
#[derive(Debug)]
pub enum Handle {
    /// A buffered file or the standard input.
    Stream(Stream),
    /// The standard output (the state's stdout writer) and its mode.
    Stdout(BufMode),
    /// The standard error.
    Stderr,
}

impl Handle {
    /// Whether this is one of the three standard files.
    fn is_standard(&self) -> bool {
        match self {
            Handle::Stream(s) => s.is_stdin(),
            Handle::Stdout(_) | Handle::Stderr => true,
        }
    }
}

/// The payload of a file-handle userdata (`luaL_Stream`).
#[derive(Debug)]
pub struct LStream {
    /// The open handle; `None` once closed.
    pub handle: Option<Handle>,
}

/// Opens the library: the `io` table, the `FILE*` metatable, the standard
/// files.
pub fn open(st: &mut State) -> Result<(), Error> {
    let io = st.new_table_sized(0, 16);
    let fns: &[(&str, &'static str, luprex_vm::raw::NativeFn)] = &[
        ("close", "io.close", io_close),
        ("flush", "io.flush", io_flush),
        ("input", "io.input", io_input),
        ("lines", "io.lines", io_lines),
        ("open", "io.open", io_open),
        ("output", "io.output", io_output),
        ("popen", "io.popen", io_popen),
        ("tmpfile", "io.tmpfile", io_tmpfile),
        ("type", "io.type", io_type),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(io, field, name, f);
    }
    // `io.read` and `io.write` keep their registry key as an upvalue (see
    // `get_io_file_keyed`).
    let keyed: &[(&str, &'static str, luprex_vm::raw::NativeFn, &str)] =
        &[("read", "io.read", io_read, IO_INPUT), ("write", "io.write", io_write, IO_OUTPUT)];
    for &(field, name, f, key) in keyed {
        let id = st.native_id(name, f);
        let key = st.new_string(key.as_bytes());
        let v = st.new_rust_closure(id, vec![key]);
        set_field(st, io, field, v);
    }
    st.native_id("io.readline", io_readline);
    create_meta(st);
    let stdin = new_file(st, Handle::Stream(Stream::stdin()));
    let stdout = new_file(st, Handle::Stdout(BufMode::Full));
    let stderr = new_file(st, Handle::Stderr);
    registry_set(st, IO_INPUT, stdin);
    registry_set(st, IO_OUTPUT, stdout);
    set_field(st, io, "stdin", stdin);
    set_field(st, io, "stdout", stdout);
    set_field(st, io, "stderr", stderr);
    let loaded = st.loaded_table();
    set_field(st, loaded, "io", Value::Table(io));
    st.set_global("io", Value::Table(io));
    Ok(())
}

/// Builds the `FILE*` metatable (`createmeta`).
fn create_meta(st: &mut State) {
    let mt = st.new_table_sized(0, 8);
    let name = st.new_string(FILEHANDLE.as_bytes());
    set_field(st, mt, "__name", name);
    st.set_native_field(mt, "__gc", "io.file:__gc", f_gc);
    st.set_native_field(mt, "__close", "io.file:__close", f_gc);
    st.set_native_field(mt, "__tostring", "io.file:__tostring", f_tostring);
    let meth = st.new_table_sized(0, 8);
    let methods: &[(&str, &'static str, luprex_vm::raw::NativeFn)] = &[
        ("read", "io.file:read", f_read),
        ("write", "io.file:write", f_write),
        ("lines", "io.file:lines", f_lines),
        ("flush", "io.file:flush", f_flush),
        ("seek", "io.file:seek", f_seek),
        ("close", "io.file:close", f_close),
        ("setvbuf", "io.file:setvbuf", f_setvbuf),
    ];
    for &(field, name, f) in methods {
        st.set_native_field(meth, field, name, f);
    }
    set_field(st, mt, "__index", Value::Table(meth));
    registry_set(st, FILEHANDLE, Value::Table(mt));
}

// ----- small helpers --------------------------------------------------------

fn set_field(st: &mut State, t: TableRef, key: &str, v: Value) {
    let k = st.intern(key.as_bytes());
    st.raw_set_str(t, k, v);
}

fn registry_set(st: &mut State, key: &str, v: Value) {
    let r = st.registry();
    set_field(st, r, key, v);
}

fn registry_get(st: &mut State, key: &str) -> Value {
    let k = st.new_string(key.as_bytes());
    st.table_get(Value::Table(st.registry()), k)
}

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

/// A new file-handle userdata with the `FILE*` metatable.
pub fn new_file(st: &mut State, h: Handle) -> Value {
    let mt = match registry_get(st, FILEHANDLE) {
        Value::Table(t) => Some(t),
        _ => None,
    };
    st.new_userdata_opaque(LStream { handle: Some(h) }, mt)
}

/// A file name as C sees it: the bytes up to the first NUL.
pub fn c_bytes(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    &b[..end]
}

/// The path of a file name given as Lua bytes (cut at the first NUL).
pub fn c_path(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(c_bytes(b)))
}

/// `luaL_fileresult`: `true`, or `fail, "[fname: ]strerror", errno`.
pub fn file_result(st: &mut State, r: Result<(), OsError>, fname: Option<&[u8]>) -> R {
    match r {
        Ok(()) => ret1(st, Value::Bool(true)),
        Err(e) => push_os_error(st, &e, fname),
    }
}

/// Pushes `fail, "[fname: ]strerror", errno` and returns 3 results.
pub fn push_os_error(st: &mut State, e: &OsError, fname: Option<&[u8]>) -> R {
    let mut msg = Vec::new();
    if let Some(f) = fname {
        msg.extend_from_slice(c_bytes(f));
        msg.extend_from_slice(b": ");
    }
    msg.extend_from_slice(e.message.as_bytes());
    let m = st.new_string(&msg);
    st.push(Value::Nil);
    st.push(m);
    st.push(Value::Int(i64::from(e.errno)));
    Ok(Action::Return(3))
}

/// `luaL_checkoption`: the index of argument `i` in `names`.
fn check_option(
    st: &mut State,
    i: usize,
    def: Option<&str>,
    names: &[&str],
) -> Result<usize, Error> {
    let name: Vec<u8> = match (def, st.arg(i).is_nil()) {
        (Some(d), true) => d.as_bytes().to_vec(),
        _ => {
            let s = st.check_str(i)?;
            st.str_bytes(s).to_vec()
        }
    };
    if let Some(k) = names.iter().position(|n| n.as_bytes() == name.as_slice()) {
        return Ok(k);
    }
    let msg = format!("invalid option '{}'", String::from_utf8_lossy(c_bytes(&name)));
    Err(st.arg_error(i, &msg))
}

/// Runs `f` on the payload of file value `v` (which must be a file).
fn with_lstream<T>(st: &mut State, v: Value, f: impl FnOnce(&mut LStream) -> T) -> Option<T> {
    st.userdata_mut::<LStream>(v).map(f)
}

/// Whether `v` is a file handle (open or closed).
fn is_file(st: &State, v: Value) -> bool {
    st.userdata_ref::<LStream>(v).is_some()
}

/// Whether file value `v` is closed.
fn is_closed(st: &State, v: Value) -> bool {
    st.userdata_ref::<LStream>(v).is_none_or(|p| p.handle.is_none())
}

/// `tolstream`: argument 1 must be a file handle.
fn to_lstream(st: &mut State) -> Result<Value, Error> {
    let v = st.arg(1);
    if is_file(st, v) {
        Ok(v)
    } else {
        Err(st.arg_type_error(1, FILEHANDLE))
    }
}

/// `tofile`: argument 1 must be an open file handle.
fn to_file(st: &mut State) -> Result<Value, Error> {
    let v = to_lstream(st)?;
    if is_closed(st, v) {
        return Err(st.native_error("attempt to use a closed file"));
    }
    Ok(v)
}

/// `getiofile`: the default input or output file, which must be open.
fn get_io_file(st: &mut State, key: &str) -> Result<Value, Error> {
    let k = st.new_string(key.as_bytes());
    io_file_at(st, k, key)
}

/// [`get_io_file`] for `io.read` and `io.write`, whose first upvalue is
/// the key, interned once by [`open`] instead of per call.
fn get_io_file_keyed(st: &mut State, key: &str) -> Result<Value, Error> {
    let k = io_key(st, key);
    io_file_at(st, k, key)
}

/// The registry key `key` of a default file: the first upvalue of
/// `io.read` and `io.write`, interned once by [`open`].
fn io_key(st: &mut State, key: &str) -> Value {
    match st.native_upvalue(0) {
        k @ Value::Str(_) => k,
        _ => st.new_string(key.as_bytes()),
    }
}

/// The registry's file at `k`, the string `key`, which must be open.
fn io_file_at(st: &mut State, k: Value, key: &str) -> Result<Value, Error> {
    let v = st.table_get(Value::Table(st.registry()), k);
    if is_closed(st, v) {
        return Err(closed_default(st, key));
    }
    Ok(v)
}

/// The error of a closed default file (`key` its registry key).
fn closed_default(st: &mut State, key: &str) -> Error {
    let which = &key["_IO_".len()..];
    st.native_error(format!("default {which} file is closed"))
}

// ----- opening and closing --------------------------------------------------

/// `l_checkmode`: `[rwa]%+?b*`.
pub fn check_mode(mode: &[u8]) -> bool {
    let Some((&first, rest)) = mode.split_first() else { return false };
    if !b"rwa".contains(&first) {
        return false;
    }
    let rest = rest.strip_prefix(b"+").unwrap_or(rest);
    rest.iter().all(|&c| c == b'b')
}

/// `fopen`: opens `name` with a mode accepted by [`check_mode`].
pub fn fopen(name: &[u8], mode: &[u8]) -> Result<Stream, OsError> {
    let plus = mode.contains(&b'+');
    let mut o = std::fs::OpenOptions::new();
    let (readable, writable) = match mode.first() {
        Some(b'w') => {
            o.write(true).create(true).truncate(true).read(plus);
            (plus, true)
        }
        Some(b'a') => {
            o.append(true).create(true).read(plus);
            (plus, true)
        }
        _ => {
            o.read(true).write(plus);
            (true, plus)
        }
    };
    let f = o.open(c_path(name))?;
    Ok(Stream::new(Source::File(f), readable, writable))
}

/// `opencheck`: opens a file or raises `cannot open file 'name' (reason)`.
fn open_check(st: &mut State, name: &[u8], mode: &[u8]) -> Result<Value, Error> {
    match fopen(name, mode) {
        Ok(s) => Ok(new_file(st, Handle::Stream(s))),
        Err(e) => {
            let n = String::from_utf8_lossy(c_bytes(name)).into_owned();
            Err(st.native_error(format!("cannot open file '{n}' ({})", e.message)))
        }
    }
}

/// What `aux_close` found in the handle.
enum Closing {
    /// A standard file: stays open (`io_noclose`).
    Standard,
    /// The handle taken out of the userdata (`None` if already closed).
    Taken(Option<Handle>),
}

/// `aux_close`: closes file value `v` and returns the `close` results.
fn aux_close(st: &mut State, v: Value) -> R {
    let c = with_lstream(st, v, |p| {
        if p.handle.as_ref().is_some_and(Handle::is_standard) {
            Closing::Standard
        } else {
            Closing::Taken(p.handle.take())
        }
    });
    match c {
        Some(Closing::Standard) => {
            st.push(Value::Nil);
            let m = st.new_string(b"cannot close standard file");
            st.push(m);
            Ok(Action::Return(2))
        }
        Some(Closing::Taken(Some(Handle::Stream(s)))) => file_result(st, s.close(), None),
        _ => ret1(st, Value::Bool(true)),
    }
}

fn f_close(st: &mut State) -> R {
    let v = to_file(st)?;
    aux_close(st, v)
}

fn io_close(st: &mut State) -> R {
    if st.arg_is_none(1) {
        let out = registry_get(st, IO_OUTPUT);
        st.push(out);
    }
    f_close(st)
}

fn f_gc(st: &mut State) -> R {
    let v = to_lstream(st)?;
    if !is_closed(st, v) {
        aux_close(st, v)?;
    }
    Ok(Action::Return(0))
}

fn f_tostring(st: &mut State) -> R {
    let v = to_lstream(st)?;
    let text = if is_closed(st, v) {
        "file (closed)".to_owned()
    } else {
        format!("file (0x{:012x})", luprex_vm::raw::object_id(v))
    };
    let s = st.new_string(text.as_bytes());
    ret1(st, s)
}

fn io_type(st: &mut State) -> R {
    let v = st.check_any(1)?;
    let r = if !is_file(st, v) {
        Value::Nil
    } else if is_closed(st, v) {
        st.new_string(b"closed file")
    } else {
        st.new_string(b"file")
    };
    ret1(st, r)
}

fn io_open(st: &mut State) -> R {
    let name = st.check_str(1)?;
    let mode = match st.opt_str(2)? {
        Some(m) => st.str_bytes(m).to_vec(),
        None => b"r".to_vec(),
    };
    if !check_mode(c_bytes(&mode)) {
        return Err(st.arg_error(2, "invalid mode"));
    }
    let name = st.str_bytes(name).to_vec();
    match fopen(&name, c_bytes(&mode)) {
        Ok(s) => {
            let f = new_file(st, Handle::Stream(s));
            ret1(st, f)
        }
        Err(e) => push_os_error(st, &e, Some(&name)),
    }
}

fn io_popen(st: &mut State) -> R {
    st.check_str(1)?;
    let mode = match st.opt_str(2)? {
        Some(m) => st.str_bytes(m).to_vec(),
        None => b"r".to_vec(),
    };
    if !matches!(c_bytes(&mode), b"r" | b"w") {
        return Err(st.arg_error(2, "invalid mode"));
    }
    Err(st.native_error("'popen' not supported"))
}

fn io_tmpfile(st: &mut State) -> R {
    match tmpfile() {
        Ok(s) => {
            let f = new_file(st, Handle::Stream(s));
            ret1(st, f)
        }
        Err(e) => push_os_error(st, &e, None),
    }
}

/// `tmpfile`: a new file in the temporary directory, opened for update
/// and already unlinked.
fn tmpfile() -> Result<Stream, OsError> {
    let dir = std::env::temp_dir();
    let mut last = OsError::new(17, "File exists");
    for attempt in 0..100u32 {
        let name = dir.join(format!("lua_tmp_{}", unique_suffix(attempt)));
        let r = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&name);
        match r {
            Ok(f) => {
                let _ = std::fs::remove_file(&name);
                return Ok(Stream::new(Source::File(f), true, true));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = e.into(),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last)
}

/// Six characters from `[A-Za-z0-9]` that differ between calls, processes
/// and attempts (the `XXXXXX` of `mkstemp`).
pub fn unique_suffix(attempt: u32) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 32) ^ u64::from(attempt);
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    (0..6)
        .map(|i| {
            let c = CHARS[((x >> (i * 6)) % CHARS.len() as u64) as usize];
            c as char
        })
        .collect()
}

/// `g_iofile`: sets (by name or handle) and returns a default file.
fn g_iofile(st: &mut State, key: &str, mode: &[u8]) -> R {
    let a = st.arg(1);
    if !a.is_nil() {
        let f = match a {
            Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                let s = st.check_str(1)?;
                let name = st.str_bytes(s).to_vec();
                open_check(st, &name, mode)?
            }
            _ => to_file(st)?,
        };
        registry_set(st, key, f);
    }
    let cur = registry_get(st, key);
    ret1(st, cur)
}

fn io_input(st: &mut State) -> R {
    g_iofile(st, IO_INPUT, b"r")
}

fn io_output(st: &mut State) -> R {
    g_iofile(st, IO_OUTPUT, b"w")
}

// ----- lines ----------------------------------------------------------------

/// `aux_lines`: the iterator closure over the file (argument 1), the
/// number of formats, the `toclose` flag and the formats.
fn aux_lines(st: &mut State, toclose: bool) -> Result<Value, Error> {
    let n = st.nargs() - 1;
    if n > MAXARGLINE {
        return Err(st.arg_error(MAXARGLINE + 2, "too many arguments"));
    }
    let mut ups = vec![st.arg(1), Value::Int(n as i64), Value::Bool(toclose)];
    ups.extend((2..=n + 1).map(|i| st.arg(i)));
    let id = st.native_id("io.readline", io_readline);
    Ok(st.new_rust_closure(id, ups))
}

fn f_lines(st: &mut State) -> R {
    to_file(st)?;
    let it = aux_lines(st, false)?;
    ret1(st, it)
}

fn io_lines(st: &mut State) -> R {
    if st.arg_is_none(1) {
        st.push(Value::Nil);
    }
    let toclose = if st.arg(1).is_nil() {
        let input = registry_get(st, IO_INPUT);
        replace_arg1(st, input);
        to_file(st)?;
        false
    } else {
        let s = st.check_str(1)?;
        let name = st.str_bytes(s).to_vec();
        let f = open_check(st, &name, b"r")?;
        replace_arg1(st, f);
        true
    };
    let it = aux_lines(st, toclose)?;
    if toclose {
        let f = st.arg(1);
        st.push(it);
        st.push(Value::Nil);
        st.push(Value::Nil);
        st.push(f);
        return Ok(Action::Return(4));
    }
    ret1(st, it)
}

/// Replaces argument 1 of the running native (`lua_replace(L, 1)`).
fn replace_arg1(st: &mut State, v: Value) {
    let n = st.nargs();
    let rest: Vec<Value> = (2..=n).map(|i| st.arg(i)).collect();
    st.set_top(0);
    st.push(v);
    for r in rest {
        st.push(r);
    }
}

/// The iterator of `lines` (`io_readline`).
fn io_readline(st: &mut State) -> R {
    let file = st.native_upvalue(0);
    let n = match st.native_upvalue(1) {
        Value::Int(n) => n.max(0) as usize,
        _ => 0,
    };
    if is_closed(st, file) {
        return Err(st.native_error("file is already closed"));
    }
    st.set_top(1);
    st.check_stack(n, "too many arguments")?;
    for i in 0..n {
        let f = st.native_upvalue(3 + i);
        st.push(f);
    }
    let base = st.nargs();
    let k = g_read(st, file, 2)?;
    if st.arg(base + 1).truthy() {
        return Ok(Action::Return(k));
    }
    if k > 1 {
        let msg = st.arg(base + 2);
        let text = st.tostring(msg);
        return Err(st.native_error(String::from_utf8_lossy(&text)));
    }
    if st.native_upvalue(2).truthy() {
        st.set_top(0);
        aux_close(st, file)?;
    }
    Ok(Action::Return(0))
}

// ----- reading ----------------------------------------------------------------

/// One read format of `g_read`.
enum Format {
    Count(u64),
    Number,
    Line { keep_nl: bool },
    All,
}

/// Parses argument `i` as a read format (`g_read`'s switch).
fn read_format(st: &mut State, i: usize) -> Result<Format, Error> {
    if matches!(st.arg(i), Value::Int(_) | Value::Float(_)) {
        let n = st.check_int(i)?;
        return Ok(Format::Count(n as u64));
    }
    let s = st.check_str(i)?;
    let b = st.str_bytes(s);
    let p = b.strip_prefix(b"*").unwrap_or(b);
    match p.first() {
        Some(b'n') => Ok(Format::Number),
        Some(b'l') => Ok(Format::Line { keep_nl: false }),
        Some(b'L') => Ok(Format::Line { keep_nl: true }),
        Some(b'a') => Ok(Format::All),
        _ => Err(st.arg_error(i, "invalid format")),
    }
}

/// What one format read: bytes, in the caller's buffer, or a number.
enum Piece {
    Bytes,
    Number(Value),
}

/// Performs one read on the file's stream, its bytes into `buf` (cleared
/// first): the piece and success.
fn read_one(st: &mut State, file: Value, fmt: &Format, buf: &mut Vec<u8>) -> (Piece, bool) {
    buf.clear();
    let r = with_lstream(st, file, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => Some(match fmt {
            Format::Count(0) => s.test_eof(),
            Format::Count(n) => {
                let (b, ok) = s.read_chars(*n);
                *buf = b;
                ok
            }
            Format::Line { keep_nl } => s.read_line(*keep_nl, buf),
            Format::All => {
                *buf = s.read_all();
                true
            }
            Format::Number => {
                *buf = s.read_numeral();
                true
            }
        }),
        _ => None,
    });
    match r.flatten() {
        Some(true) if matches!(fmt, Format::Number) => {
            match luprex_vm::raw::number::str_to_number(buf) {
                Some(n) => (Piece::Number(n.into()), true),
                None => (Piece::Number(Value::Nil), false),
            }
        }
        Some(ok) => (Piece::Bytes, ok),
        None => (Piece::Bytes, false),
    }
}

/// The error of the file's stream (`ferror` + `errno`); the standard
/// output and error fail every read with `EBADF`.
fn stream_error(st: &mut State, file: Value) -> Option<OsError> {
    with_lstream(st, file, |p| match &p.handle {
        Some(Handle::Stream(s)) => s.error().cloned(),
        _ => Some(OsError::bad_fd()),
    })
    .flatten()
}

/// Resets the file's error flags (`clearerr`); flushes the standard
/// output before a read of the standard input that must go to the
/// source (an empty buffer), as C's stdio flushes its line-buffered
/// output, so that a prompt shows before the program waits; a read the
/// buffer serves does not flush.
fn clear_error(st: &mut State, file: Value) {
    let stdin = with_lstream(st, file, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => {
            s.clear_error();
            s.is_stdin() && !s.has_buffered()
        }
        _ => false,
    });
    if stdin == Some(true) {
        st.flush_stdout();
    }
}

/// `g_read`: reads with the formats in arguments `first..`, pushing what
/// each read (nil for a failed one, and nothing after it), or, on a
/// stream error, the error triple instead; returns how many values it
/// pushed. The bytes pass through the state's scratch buffer.
fn g_read(st: &mut State, file: Value, first: usize) -> Result<usize, Error> {
    let mut buf = st.take_buf();
    let r = g_read_with(st, file, first, &mut buf);
    st.put_buf(buf);
    r
}

/// [`g_read`] with its buffer.
fn g_read_with(
    st: &mut State,
    file: Value,
    first: usize,
    buf: &mut Vec<u8>,
) -> Result<usize, Error> {
    let last = st.nargs();
    clear_error(st, file);
    let mut n = 0;
    let mut success = true;
    if last < first {
        let (p, ok) = read_one(st, file, &Format::Line { keep_nl: false }, buf);
        push_piece(st, p, buf);
        n = 1;
        success = ok;
    } else {
        st.check_stack(last + 20, "too many arguments")?;
        let mut i = first;
        while i <= last && success {
            let fmt = read_format(st, i)?;
            let (p, ok) = read_one(st, file, &fmt, buf);
            push_piece(st, p, buf);
            n += 1;
            success = ok;
            i += 1;
        }
    }
    if let Some(e) = stream_error(st, file) {
        st.set_top(last);
        st.push(Value::Nil);
        let m = st.new_string(e.message.as_bytes());
        st.push(m);
        st.push(Value::Int(i64::from(e.errno)));
        return Ok(3);
    }
    if !success {
        st.set_top(last + n - 1);
        st.push(Value::Nil);
    }
    Ok(n)
}

/// Pushes what [`read_one`] read.
fn push_piece(st: &mut State, p: Piece, buf: &[u8]) {
    let v = match p {
        Piece::Bytes => st.new_loose_string(buf),
        Piece::Number(v) => v,
    };
    st.push(v);
}

fn io_read(st: &mut State) -> R {
    let f = get_io_file_keyed(st, IO_INPUT)?;
    let n = g_read(st, f, 1)?;
    Ok(Action::Return(n))
}

fn f_read(st: &mut State) -> R {
    let f = to_file(st)?;
    let n = g_read(st, f, 2)?;
    Ok(Action::Return(n))
}

// ----- writing ----------------------------------------------------------------

/// The bytes `g_write` writes for argument `i`, into `b` (cleared first):
/// integers with `%d`, floats with `%.14g`, strings as they are.
fn write_bytes(st: &mut State, i: usize, b: &mut Vec<u8>) -> Result<(), Error> {
    b.clear();
    match st.arg(i) {
        Value::Int(n) => luprex_vm::raw::number::fmt_int(n, b),
        Value::Float(x) => {
            luprex_vm::raw::format::format_float(b, &luprex_vm::raw::number::FLOAT_FORMAT, x);
        }
        _ => {
            let s = st.check_str(i)?;
            b.extend_from_slice(st.str_bytes(s));
        }
    }
    Ok(())
}

/// Writes bytes to a file; false on failure.
fn write_to(st: &mut State, file: Value, data: &[u8]) -> bool {
    enum Target {
        Done(bool),
        Stdout(BufMode),
        Stderr,
    }
    let t = with_lstream(st, file, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => Target::Done(s.write(data)),
        Some(Handle::Stdout(m)) => Target::Stdout(*m),
        Some(Handle::Stderr) => Target::Stderr,
        None => Target::Done(false),
    });
    match t {
        Some(Target::Done(ok)) => ok,
        Some(Target::Stdout(m)) => {
            st.write_stdout(data);
            if m == BufMode::No || (m == BufMode::Line && memchr::memchr(b'\n', data).is_some()) {
                st.flush_stdout();
            }
            true
        }
        Some(Target::Stderr) => {
            st.write_stderr(data);
            true
        }
        None => false,
    }
}

/// `g_write`: writes arguments `first..=last`; returns the file or the
/// error triple.
fn g_write(st: &mut State, file: Value, first: usize, last: usize) -> R {
    let stdout = with_lstream(st, file, |p| match p.handle {
        Some(Handle::Stdout(m)) => Some(m),
        _ => None,
    });
    g_write_to(st, file, first, last, stdout.flatten())
}

/// [`g_write`] with the file's kind already read: `Some(mode)` for the
/// standard output.
fn g_write_to(
    st: &mut State,
    file: Value,
    first: usize,
    last: usize,
    stdout: Option<BufMode>,
) -> R {
    let mut buf = st.take_buf();
    let r = match stdout {
        Some(m) => write_stdout_args(st, first, last, m, &mut buf).map(|()| true),
        None => write_args(st, file, first, last, &mut buf),
    };
    st.put_buf(buf);
    if r? {
        return ret1(st, file);
    }
    let e = stream_error(st, file).unwrap_or_else(OsError::bad_fd);
    push_os_error(st, &e, None)
}

/// Writes arguments `first..=last` through `buf`: whether every write
/// succeeded.
fn write_args(
    st: &mut State,
    file: Value,
    first: usize,
    last: usize,
    buf: &mut Vec<u8>,
) -> Result<bool, Error> {
    let mut status = true;
    for i in first..=last {
        let number = matches!(st.arg(i), Value::Int(_) | Value::Float(_));
        write_bytes(st, i, buf)?;
        // As in C, a number is always printed; a string only while no
        // write has failed.
        if number {
            status = write_to(st, file, buf) && status;
        } else if status {
            status = write_to(st, file, buf);
        }
    }
    Ok(status)
}

/// [`write_args`] to the standard output, whose buffering mode is `m`:
/// the handle is looked up once, not per argument, and strings go from
/// the heap straight into the output's buffer. A write there does not
/// fail (as in `write_to`). What was written is flushed as the mode asks,
/// at the end, or before an argument's error.
fn write_stdout_args(
    st: &mut State,
    first: usize,
    last: usize,
    m: BufMode,
    buf: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut newline = false;
    let mut r = Ok(());
    for i in first..=last {
        match st.arg(i) {
            Value::Int(_) | Value::Float(_) => {
                r = write_bytes(st, i, buf);
                st.write_stdout(buf);
            }
            _ => match st.check_str(i) {
                Ok(s) => {
                    newline = newline
                        || (m == BufMode::Line && memchr::memchr(b'\n', st.str_bytes(s)).is_some());
                    st.write_stdout_str(s);
                }
                Err(e) => r = Err(e),
            },
        }
        if r.is_err() {
            break;
        }
    }
    if m == BufMode::No || newline {
        st.flush_stdout();
    }
    r
}

fn io_write(st: &mut State) -> R {
    let last = st.nargs();
    let k = io_key(st, IO_OUTPUT);
    let f = st.table_get(Value::Table(st.registry()), k);
    // One look at the stream for both questions: is it open, and is it
    // the standard output (`io_file_at`'s check and `g_write`'s, which
    // cost a downcast each).
    let kind = with_lstream(st, f, |p| match p.handle {
        None => None,
        Some(Handle::Stdout(m)) => Some(Some(m)),
        Some(_) => Some(None),
    });
    match kind.flatten() {
        Some(stdout) => g_write_to(st, f, 1, last, stdout),
        None => Err(closed_default(st, IO_OUTPUT)),
    }
}

fn f_write(st: &mut State) -> R {
    let f = to_file(st)?;
    let last = st.nargs();
    g_write(st, f, 2, last)
}

// ----- seek, setvbuf, flush -----------------------------------------------------

fn f_seek(st: &mut State) -> R {
    let f = to_file(st)?;
    let op = check_option(st, 2, Some("cur"), &["set", "cur", "end"])?;
    let offset = st.opt_int(3, 0)?;
    let whence = [Whence::Set, Whence::Cur, Whence::End][op];
    let r = with_lstream(st, f, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => Some(s.seek(whence, offset)),
        _ => None,
    })
    .flatten();
    let r = match r {
        Some(r) => r,
        None => seek_standard(st, f, whence, offset),
    };
    match r {
        Ok(pos) => ret1(st, Value::Int(pos as i64)),
        Err(e) => push_os_error(st, &e, None),
    }
}

/// `seek` on the standard output or error: flushes, then seeks a
/// duplicate of the descriptor (which shares the offset); fails with
/// `ESPIPE` on pipes and terminals, as `fseek` does.
fn seek_standard(st: &mut State, f: Value, whence: Whence, offset: i64) -> Result<u64, OsError> {
    use std::os::fd::AsFd;
    let is_out = with_lstream(st, f, |p| matches!(p.handle, Some(Handle::Stdout(_))));
    st.flush_stdout();
    let fd = if is_out == Some(true) {
        std::io::stdout().as_fd().try_clone_to_owned()
    } else {
        std::io::stderr().as_fd().try_clone_to_owned()
    };
    let file = std::fs::File::from(fd.map_err(OsError::from)?);
    let mut s = Stream::new(Source::File(file), false, false);
    s.seek(whence, offset)
}

fn f_setvbuf(st: &mut State) -> R {
    let f = to_file(st)?;
    let op = check_option(st, 2, None, &["no", "full", "line"])?;
    let size = st.opt_int(3, LUAL_BUFFERSIZE)?;
    let mode = [BufMode::No, BufMode::Full, BufMode::Line][op];
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let r = with_lstream(st, f, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => s.set_buffering(mode, size),
        Some(Handle::Stdout(m)) => {
            *m = mode;
            Ok(())
        }
        _ => Ok(()),
    });
    if mode != BufMode::Full {
        st.flush_stdout();
    }
    file_result(st, r.unwrap_or(Ok(())), None)
}

/// `fflush` of a file value.
fn flush_file(st: &mut State, f: Value) -> Result<(), OsError> {
    let r = with_lstream(st, f, |p| match &mut p.handle {
        Some(Handle::Stream(s)) => Some(s.flush()),
        _ => None,
    })
    .flatten();
    match r {
        Some(r) => r,
        None => {
            st.flush_stdout();
            Ok(())
        }
    }
}

fn io_flush(st: &mut State) -> R {
    let f = get_io_file(st, IO_OUTPUT)?;
    let r = flush_file(st, f);
    file_result(st, r, None)
}

fn f_flush(st: &mut State) -> R {
    let f = to_file(st)?;
    let r = flush_file(st, f);
    file_result(st, r, None)
}

/// Flushes every open file of the state and its stdout (what C's `exit`
/// does to all `FILE*` streams); used by `os.exit`.
pub fn flush_all(st: &mut State) {
    let handles = st.userdata_of_type::<LStream>();
    for h in handles {
        let _ = flush_file(st, Value::UserData(h));
    }
    st.flush_stdout();
}
