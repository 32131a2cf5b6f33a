//! The `utf8` library, the glue of Lua 5.4.4's `lutf8lib.c` over
//! [`crate::utf8_core`].
//!
//! # Design
//!
//! Each native converts its arguments exactly as C does and in the same
//! order (`luaL_checklstring`, then the optional integers, then the `lax`
//! flag by truthiness), calls the core, and maps [`Utf8Error`]s: argument
//! errors become `bad argument #n to 'fname' (msg)` (`luaL_argerror`),
//! the others plain `luaL_error`s with the caller's position.
//!
//! `utf8.codes` returns one of two stateless iterator natives (strict or
//! lax, created once and kept as its upvalues), the subject and `0`, as C
//! does; the iterator's whole state is the
//! control variable, so it survives snapshots trivially.
//!
//! # Invariants
//!
//! * No input panics: positions are validated by the core before use, and
//!   the number of results of `utf8.codepoint` is checked against the
//!   stack limit before decoding (`string slice too long`).

use crate::utf8_core::{self, Utf8Error, CHARPATTERN};
use luprex_vm::raw::{Action, Error, NativeFn, State, Value};

type R = Result<Action, Error>;

/// Bytes decoded per charged instruction (`luprex_vm::raw::WORK_BYTES` is
/// for copies; decoding costs more per byte).
const DECODE_BYTES: usize = 8;

/// Opens the library: the `utf8` global and `package.loaded.utf8`.
pub fn open(st: &mut State) -> Result<(), Error> {
    let t = st.new_table_sized(0, 8);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("offset", "utf8.offset", offset),
        ("codepoint", "utf8.codepoint", codepoint),
        ("char", "utf8.char", char_),
        ("len", "utf8.len", len),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    let strict = st.register_native("utf8.codes_iterator", codes_strict);
    let lax = st.register_native("utf8.codes_iterator_lax", codes_lax);
    let id = st.native_id("utf8.codes", codes);
    let codes_fn = st.new_rust_closure(id, vec![strict, lax]);
    let k = st.intern(b"codes");
    st.raw_set_str(t, k, codes_fn);
    let pat = st.new_string(CHARPATTERN);
    let k = st.intern(b"charpattern");
    st.raw_set_str(t, k, pat);
    st.set_global("utf8", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"utf8");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

/// Raises a core error as C would.
fn raise(st: &mut State, e: Utf8Error) -> Error {
    match e {
        Utf8Error::Arg(n, msg) => st.arg_error(n, msg),
        Utf8Error::Msg(msg) => st.native_error(msg),
    }
}

fn len(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let i = st.opt_int(2, 1)?;
    let j = st.opt_int(3, -1)?;
    let lax = st.arg(4).truthy();
    // Decoding is charged one instruction per `DECODE_BYTES` bytes of the
    // string (an upper bound of the range decoded).
    st.charge_work((st.str_bytes(s).len() / DECODE_BYTES) as u64)?;
    match utf8_core::len(st.str_bytes(s), i, j, lax) {
        Ok(Ok(n)) => {
            st.push(Value::Int(n));
            Ok(Action::Return(1))
        }
        Ok(Err(pos)) => {
            st.push(Value::Nil);
            st.push(Value::Int(pos));
            Ok(Action::Return(2))
        }
        Err(e) => Err(raise(st, e)),
    }
}

fn codepoint(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let l = st.str_bytes(s).len();
    let i = st.opt_int(2, 1)?;
    // The default of `j` is the translated `i` (the core computes it).
    let j = if st.arg(3).is_nil() { None } else { Some(st.check_int(3)?) };
    let lax = st.arg(4).truthy();
    let range = utf8_core::codepoint_range(l, i, j).map_err(|e| raise(st, e))?;
    let Some((start, end)) = range else { return Ok(Action::Return(0)) };
    st.check_stack(end - start, "string slice too long")?;
    // One instruction per value pushed (at most one per byte).
    st.charge_work((end - start) as u64)?;
    let codes = utf8_core::codepoints(st.str_bytes(s), start, end, lax);
    let codes = codes.map_err(|e| raise(st, e))?;
    for &c in &codes {
        st.push(Value::Int(i64::from(c)));
    }
    Ok(Action::Return(codes.len()))
}

fn char_(st: &mut State) -> R {
    let n = st.nargs();
    st.charge_work(n as u64)?;
    let mut out = Vec::with_capacity(n);
    for i in 1..=n {
        let code = st.check_int(i)?;
        utf8_core::push_char(code, i, &mut out).map_err(|e| raise(st, e))?;
    }
    let v = st.new_string(&out);
    st.push(v);
    Ok(Action::Return(1))
}

fn offset(st: &mut State) -> R {
    let s = st.check_str(1)?;
    let n = st.check_int(2)?;
    let i = if st.arg(3).is_nil() { None } else { Some(st.check_int(3)?) };
    // The scan is bounded by the string: charged for the whole of it.
    st.charge_work((st.str_bytes(s).len() / DECODE_BYTES) as u64)?;
    let r = utf8_core::offset(st.str_bytes(s), n, i).map_err(|e| raise(st, e))?;
    st.push(r.map_or(Value::Nil, Value::Int));
    Ok(Action::Return(1))
}

fn codes(st: &mut State) -> R {
    let lax = st.arg(2).truthy();
    let s = st.check_str(1)?;
    let iter = st.native_upvalue(usize::from(lax));
    st.push(iter);
    st.push(Value::Str(s));
    st.push(Value::Int(0));
    Ok(Action::Return(3))
}

/// `iter_aux`: the next position and code after control value `arg 2`.
fn codes_step(st: &mut State, lax: bool) -> R {
    let s = st.check_str(1)?;
    let control = st.to_integer(st.arg(2)).unwrap_or(0);
    match utf8_core::codes_next(st.str_bytes(s), control, lax) {
        Ok(None) => {
            let skipped = (st.str_bytes(s).len() as i64).saturating_sub(control).max(0) as u64;
            st.charge_work(skipped / DECODE_BYTES as u64)?;
            Ok(Action::Return(0))
        }
        Ok(Some((pos, code))) => {
            // The continuation bytes skipped (from a control value given
            // by the caller, any number of them).
            let skipped = pos.saturating_sub(control).max(0) as u64;
            st.charge_work(skipped / DECODE_BYTES as u64)?;
            st.push(Value::Int(pos));
            st.push(Value::Int(i64::from(code)));
            Ok(Action::Return(2))
        }
        Err(e) => Err(raise(st, e)),
    }
}

fn codes_strict(st: &mut State) -> R {
    codes_step(st, false)
}

fn codes_lax(st: &mut State) -> R {
    codes_step(st, true)
}
