//! The `os` library (`loslib.c` of Lua 5.4.4), for the full set only.
//!
//! # Design
//!
//! Each function follows its C counterpart's argument checks and results;
//! the system calls are replaced by std:
//!
//! * `os.date` / `os.time`: formatting, `gmtime` and the UTC `mktime` come
//!   from [`crate::strftime`]; local time from [`localtime`] (the `TZ`
//!   variable or `/etc/localtime`, TZif files and POSIX TZ strings read
//!   without libc). The C locale is the only locale.
//! * `os.clock`: the process's CPU time, `clock_gettime` with
//!   `CLOCK_PROCESS_CPUTIME_ID` (the `cpu-time` crate), what glibc's
//!   `clock()` reads: nanosecond resolution, no file read per call.
//! * `os.execute`: `/bin/sh -c command` through `std::process::Command`,
//!   with `luaL_execresult`'s triple (`true|nil, "exit"|"signal", code`).
//!   The state's stdout is flushed first so output stays in order.
//! * `os.exit`: flushes every open file (as C's `exit` flushes every
//!   `FILE*`), closes the state first when asked (`lua_close`), then exits
//!   the process.
//! * `os.tmpname`: creates an empty `/tmp/lua_XXXXXX` as `mkstemp` does.
//! * `os.setlocale`: only the C locale exists: queries answer `"C"`;
//!   `"C"`, `"POSIX"` and `""` select it; any other name fails (`nil`).

pub mod localtime;

use crate::io::stream::OsError;
use crate::io::{c_bytes, c_path, file_result, push_os_error};
use crate::strftime::{self, DateError, FieldValue, Tm, DATE_FIELDS};
use localtime::Zone;
use luprex_vm::raw::TableRef;
use luprex_vm::raw::{Action, Error, State, Value};

type R = Result<Action, Error>;

/// Opens the library.
pub fn open(st: &mut State) -> Result<(), Error> {
    let os = st.new_table_sized(0, 12);
    let fns: &[(&str, &'static str, luprex_vm::raw::NativeFn)] = &[
        ("clock", "os.clock", os_clock),
        ("date", "os.date", os_date),
        ("difftime", "os.difftime", os_difftime),
        ("execute", "os.execute", os_execute),
        ("exit", "os.exit", os_exit),
        ("getenv", "os.getenv", os_getenv),
        ("remove", "os.remove", os_remove),
        ("rename", "os.rename", os_rename),
        ("setlocale", "os.setlocale", os_setlocale),
        ("time", "os.time", os_time),
        ("tmpname", "os.tmpname", os_tmpname),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(os, field, name, f);
    }
    let loaded = st.loaded_table();
    let k = st.intern(b"os");
    st.raw_set_str(loaded, k, Value::Table(os));
    st.set_global("os", Value::Table(os));
    Ok(())
}

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

fn arg_bytes(st: &mut State, i: usize) -> Result<Vec<u8>, Error> {
    let s = st.check_str(i)?;
    Ok(st.str_bytes(s).to_vec())
}

// ----- processes and files ----------------------------------------------------

/// `os.execute([command])`.
fn os_execute(st: &mut State) -> R {
    let Some(cmd) = st.opt_str(1)? else {
        let has_shell = std::path::Path::new("/bin/sh").exists();
        return ret1(st, Value::Bool(has_shell));
    };
    let cmd = c_bytes(st.str_bytes(cmd)).to_vec();
    st.flush_stdout();
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    // As C's `system`: `/bin/sh` named `sh`, which the shell's own
    // messages quote ("sh: 1: cmd: not found").
    let status = std::process::Command::new("/bin/sh")
        .arg0("sh")
        .arg("-c")
        .arg(std::ffi::OsStr::from_bytes(&cmd))
        .status();
    match status {
        Ok(s) => exec_result(st, s),
        Err(e) => push_os_error(st, &OsError::from(e), None),
    }
}

/// `luaL_execresult` for a finished process.
fn exec_result(st: &mut State, s: std::process::ExitStatus) -> R {
    use std::os::unix::process::ExitStatusExt;
    let (what, code) = match (s.code(), s.signal()) {
        (Some(c), _) => ("exit", c),
        (None, Some(sig)) => ("signal", sig),
        (None, None) => ("exit", -1),
    };
    let ok = what == "exit" && code == 0;
    st.push(if ok { Value::Bool(true) } else { Value::Nil });
    let w = st.new_string(what.as_bytes());
    st.push(w);
    st.push(Value::Int(i64::from(code)));
    Ok(Action::Return(3))
}

/// `os.exit([code [, close]])`.
fn os_exit(st: &mut State) -> R {
    let status = match st.arg(1) {
        Value::Bool(b) => i32::from(!b),
        _ => st.opt_int(1, 0)? as i32,
    };
    if st.arg(2).truthy() {
        st.close();
    }
    crate::io::flush_all(st);
    std::process::exit(status)
}

fn os_getenv(st: &mut State) -> R {
    let name = arg_bytes(st, 1)?;
    let name = c_bytes(&name);
    let v = if name.is_empty() || name.contains(&b'=') {
        None
    } else {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        std::env::var_os(std::ffi::OsStr::from_bytes(name)).map(OsStringExt::into_vec)
    };
    let r = match v {
        Some(b) => st.new_string(c_bytes(&b)),
        None => Value::Nil,
    };
    ret1(st, r)
}

/// `remove`: unlinks a file, or removes an empty directory.
fn remove_path(name: &[u8]) -> Result<(), OsError> {
    let p = c_path(name);
    match std::fs::remove_file(&p) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(21) => std::fs::remove_dir(&p).map_err(OsError::from),
        Err(e) => Err(e.into()),
    }
}

fn os_remove(st: &mut State) -> R {
    let name = arg_bytes(st, 1)?;
    let r = remove_path(&name);
    file_result(st, r, Some(&name))
}

fn os_rename(st: &mut State) -> R {
    let from = arg_bytes(st, 1)?;
    let to = arg_bytes(st, 2)?;
    let r = std::fs::rename(c_path(&from), c_path(&to)).map_err(OsError::from);
    file_result(st, r, None)
}

fn os_tmpname(st: &mut State) -> R {
    for attempt in 0..100 {
        let name = format!("/tmp/lua_{}", crate::io::unique_suffix(attempt));
        let r = std::fs::OpenOptions::new().write(true).create_new(true).open(&name);
        match r {
            Ok(_) => {
                let s = st.new_string(name.as_bytes());
                return ret1(st, s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => break,
        }
    }
    Err(st.native_error("unable to generate a unique filename"))
}

// ----- clock ----------------------------------------------------------------

/// CPU time of the process in seconds (see the module docs), as
/// `os.clock` gives it: `clock() / CLOCKS_PER_SEC`, where glibc's `clock`
/// reads `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)` and truncates it to
/// whole microseconds (`CLOCKS_PER_SEC` is 1,000,000), so that printed
/// values have the reference's digits (`0.10376`, not `0.103761532`).
pub fn cpu_time() -> f64 {
    cpu_time::ProcessTime::try_now().map_or(0.0, |t| clock_seconds(t.as_duration()))
}

/// `clock()`'s ticks for a CPU time `d`, over `CLOCKS_PER_SEC`.
fn clock_seconds(d: std::time::Duration) -> f64 {
    let ticks = d.as_secs() as i64 * 1_000_000 + i64::from(d.subsec_micros());
    ticks as f64 / 1e6
}

fn os_clock(st: &mut State) -> R {
    ret1(st, Value::Float(cpu_time()))
}

// ----- date and time ----------------------------------------------------------

/// The current time in whole seconds (`time(NULL)`).
pub fn now() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs_f64().ceil() as i64),
    }
}

/// Raises a [`DateError`] as `os.date`/`os.time` do.
fn date_error(st: &mut State, e: &DateError) -> Error {
    let msg = String::from_utf8_lossy(&e.message()).into_owned();
    match e.arg() {
        Some(i) => st.arg_error(i, &msg),
        None => st.native_error(msg),
    }
}

fn set_int_field(st: &mut State, t: Value, key: &str, v: i64) -> Result<(), Error> {
    let k = st.new_string(key.as_bytes());
    st.set_index_value(t, k, Value::Int(v))
}

/// `setallfields`: writes the fields of `tm` into table `t`.
fn set_all_fields(st: &mut State, t: Value, tm: &Tm) -> Result<(), Error> {
    for (key, v) in tm.table_fields() {
        set_int_field(st, t, key, v)?;
    }
    if let Some(d) = tm.isdst_field() {
        let k = st.new_string(b"isdst");
        st.set_index_value(t, k, Value::Bool(d))?;
    }
    Ok(())
}

fn os_date(st: &mut State) -> R {
    let format = match st.opt_str(1)? {
        Some(s) => st.str_bytes(s).to_vec(),
        None => b"%c".to_vec(),
    };
    let t = if st.arg(2).is_nil() { now() } else { st.check_int(2)? };
    let (utc, fmt) = strftime::split_date_format(&format);
    let fields = if utc {
        strftime::gmtime(t).map(|tm| (tm, strftime::UTC_ZONE.to_vec()))
    } else {
        Zone::from_env().localtime(t)
    };
    let Some((tm, zone)) = fields else {
        return Err(date_error(st, &DateError::DateNotRepresentable));
    };
    if strftime::is_table_format(fmt) {
        let table = Value::Table(st.new_table_sized(0, 9));
        set_all_fields(st, table, &tm)?;
        return ret1(st, table);
    }
    match strftime::strftime(fmt, &tm, &zone) {
        Ok(b) => {
            let s = st.new_string(&b);
            ret1(st, s)
        }
        Err(e) => Err(date_error(st, &e)),
    }
}

/// Reads a field of the `os.time` table as `getfield` sees it.
fn field_value(st: &mut State, t: TableRef, key: &str) -> Result<FieldValue, Error> {
    let k = st.new_string(key.as_bytes());
    let v = st.index_value(Value::Table(t), k)?;
    Ok(match (v, st.to_integer(v)) {
        (_, Some(i)) => FieldValue::Int(i),
        (Value::Nil, None) => FieldValue::Nil,
        _ => FieldValue::NotInteger,
    })
}

/// The `struct tm` of an `os.time` table, fields read and checked in C's
/// order.
fn tm_from_table(st: &mut State, t: TableRef) -> Result<Tm, Error> {
    let mut f = [0i32; 6];
    for (slot, (key, default, delta)) in f.iter_mut().zip(DATE_FIELDS) {
        let v = field_value(st, t, key)?;
        *slot = strftime::get_field(key, v, default, delta).map_err(|e| date_error(st, &e))?;
    }
    let k = st.new_string(b"isdst");
    let d = st.index_value(Value::Table(t), k)?;
    let isdst = if d.is_nil() { -1 } else { i32::from(d.truthy()) };
    let [year, mon, mday, hour, min, sec] = f;
    Ok(Tm { sec, min, hour, mday, mon, year, isdst, ..Tm::default() })
}

fn os_time(st: &mut State) -> R {
    if st.arg(1).is_nil() {
        return ret1(st, Value::Int(now()));
    }
    let t = st.check_table(1)?;
    st.set_top(1);
    let tm = tm_from_table(st, t)?;
    match Zone::from_env().mktime(&tm) {
        Some((time, norm)) => {
            set_all_fields(st, Value::Table(t), &norm)?;
            if time == -1 {
                return Err(date_error(st, &DateError::TimeNotRepresentable));
            }
            ret1(st, Value::Int(time))
        }
        None => {
            set_all_fields(st, Value::Table(t), &tm)?;
            Err(date_error(st, &DateError::TimeNotRepresentable))
        }
    }
}

fn os_difftime(st: &mut State) -> R {
    let t1 = st.check_int(1)?;
    let t2 = st.check_int(2)?;
    let d = (i128::from(t1) - i128::from(t2)) as f64;
    ret1(st, Value::Float(d))
}

fn os_setlocale(st: &mut State) -> R {
    let locale = st.opt_str(1)?.map(|s| st.str_bytes(s).to_vec());
    let names = ["all", "collate", "ctype", "monetary", "numeric", "time"];
    let cat = match st.arg(2) {
        Value::Nil => 0,
        _ => {
            let s = arg_bytes(st, 2)?;
            match names.iter().position(|n| n.as_bytes() == s.as_slice()) {
                Some(i) => i,
                None => {
                    let msg = format!("invalid option '{}'", String::from_utf8_lossy(c_bytes(&s)));
                    return Err(st.arg_error(2, &msg));
                }
            }
        }
    };
    let _ = cat;
    let ok = match &locale {
        None => true,
        Some(l) => matches!(c_bytes(l), b"" | b"C" | b"POSIX"),
    };
    let r = if ok { st.new_string(b"C") } else { Value::Nil };
    ret1(st, r)
}

#[cfg(test)]
mod tests {
    use super::clock_seconds;
    use std::time::Duration;

    /// `os.clock` counts whole microseconds, as `clock() / CLOCKS_PER_SEC`:
    /// what it prints has at most six decimals.
    #[test]
    fn clock_truncates_to_microseconds() {
        let v = clock_seconds(Duration::new(0, 103_761_532));
        assert_eq!(v, 0.103761);
        assert_eq!(format!("{v}"), "0.103761");
        assert_eq!(clock_seconds(Duration::new(12, 999)), 12.0);
        assert_eq!(clock_seconds(Duration::new(3, 1_000)), 3.000001);
    }
}
