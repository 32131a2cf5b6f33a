//! Helpers for natives: argument access and checking, error messages in
//! the style of `lauxlib.c` (`bad argument #1 to 'insert' (table expected,
//! got nil)`), string conversion with `__tostring`.
//!
//! Arguments are 1-based, as in the C API: `arg(1)` is the first argument
//! of the running native; absent arguments read as nil (and are "no value"
//! in messages).

use crate::error::{Error, ErrorKind};
use crate::heap::Heap;
use crate::meta::{TM_NAME, TM_TOSTRING};
use crate::number;
use crate::state::State;
use crate::thread::u;
use crate::value::{StrRef, TableRef, Value};

/// Capacity up to which [`State::put_buf`] keeps a scratch buffer.
const SCRATCH_KEEP: usize = 1 << 16;

impl State {
    /// Stack index of the running native's first argument.
    #[inline]
    pub fn arg_base(&self) -> usize {
        // (Not `last().map_or`: that tests the length and then the
        // reference it made.)
        let frames = &self.ex.frames;
        if frames.is_empty() {
            return 0;
        }
        u(frames[frames.len() - 1].base)
    }

    /// Number of arguments (and values pushed since) of the running native.
    #[inline]
    pub fn nargs(&self) -> usize {
        self.ex.stack.len() - self.arg_base()
    }

    /// The running native's arguments (and values pushed since), as one
    /// slice: a native that takes several reads the frame's base once, as
    /// `string.sub` does for its common call (each `arg` finds the frame
    /// again).
    #[inline]
    pub fn args(&self) -> &[Value] {
        self.ex.stack.get(self.arg_base()..).unwrap_or(&[])
    }

    /// Argument `i` (1-based), nil if absent.
    #[inline]
    pub fn arg(&self, i: usize) -> Value {
        match self.ex.stack.get(self.arg_base() + i - 1) {
            Some(&v) => v,
            None => Value::Nil,
        }
    }

    /// Whether argument `i` is absent (`lua_isnone`).
    #[inline]
    pub fn arg_is_none(&self, i: usize) -> bool {
        i > self.nargs()
    }

    /// Pushes a value on the stack (results of a native).
    #[inline]
    pub fn push(&mut self, v: Value) {
        self.ex.stack.push(v);
    }

    /// Keeps only the first `n` arguments/values of the running native
    /// (`lua_settop`), padding with nil.
    pub fn set_top(&mut self, n: usize) {
        let b = self.arg_base();
        self.ex.stack.resize(b + n, Value::Nil);
    }

    /// Replaces argument/slot `i` (1-based) of the running native's stack
    /// window (`lua_replace`); does nothing if the slot does not exist.
    /// Written word by word ([`crate::execute::store`]): a native's value
    /// is often a spill written in pieces, which a 16-byte copy waits on
    /// (`table.sort` rooting its pivot before each Lua comparison).
    #[inline]
    pub fn set_arg(&mut self, i: usize, v: Value) {
        let Some(slot) = (self.arg_base() + i).checked_sub(1) else { return };
        if let Some(x) = self.ex.stack.get_mut(slot) {
            crate::execute::store(x, v);
        }
    }

    /// Sets upvalue `i` (0-based) of the running Rust closure (ignored if
    /// it has no such upvalue).
    pub fn set_native_upvalue(&mut self, i: usize, v: Value) {
        if let Some(crate::thread::Callee::Rust(h)) = self.ex.frames.last().map(|c| c.callee) {
            // A number stored (gmatch's offsets) needs no barrier.
            let obj = crate::schema::ObjRef::of(v).is_some();
            if let Some(x) = self.heap.rust_fns.get_mut_storing(h, obj).upvalues.get_mut(i) {
                *x = v;
            }
        }
    }

    /// The upvalues of the running Rust closure (empty outside one): one
    /// lookup of the closure for a native that reads several.
    pub fn native_upvalues(&self) -> &[Value] {
        match self.ex.frames.last().map(|c| c.callee) {
            Some(crate::thread::Callee::Rust(h)) => &self.heap.rust_fns.get(h).upvalues,
            _ => &[],
        }
    }

    /// Upvalue `i` (0-based) of the running Rust closure.
    pub fn native_upvalue(&self, i: usize) -> Value {
        self.native_upvalues().get(i).copied().unwrap_or(Value::Nil)
    }

    /// Ensures room for `n` more values (`luaL_checkstack`).
    /// A message handler may use the error reserve (see
    /// `State::check_stack_reserve`).
    pub fn check_stack(&mut self, n: usize, msg: &str) -> Result<(), Error> {
        let mut limit = crate::state::MAX_STACK;
        if self.in_msgh > 0 {
            limit += crate::state::ERROR_STACK_RESERVE;
        }
        if self.ex.stack.len() + n >= limit {
            return Err(self.native_error(format!("stack overflow ({msg})")));
        }
        Ok(())
    }

    /// `bad argument #i to 'f' (msg)` (`luaL_argerror`), of kind
    /// [`ErrorKind::BadArgument`]
    /// (the position as in the message; 0 for a bad `self`).
    #[cold]
    pub fn arg_error(&mut self, i: usize, extramsg: &str) -> Error {
        let (name, method) = self.running_native_name();
        let mut i = i;
        if method {
            i = i.saturating_sub(1);
            if i == 0 {
                let n = name.clone().unwrap_or_else(|| "?".into());
                let e = self.native_error(format!("calling '{n}' on bad self ({extramsg})"));
                return e.with_kind(ErrorKind::BadArgument { pos: 0, func: name });
            }
        }
        let n = name.clone().unwrap_or_else(|| "?".into());
        let e = self.native_error(format!("bad argument #{i} to '{n}' ({extramsg})"));
        e.with_kind(ErrorKind::BadArgument { pos: i, func: name })
    }

    /// Type name of argument `i` for messages (`luaL_typename` / `__name`).
    fn arg_typename(&mut self, i: usize) -> String {
        if self.arg_is_none(i) {
            return "no value".into();
        }
        let v = self.arg(i);
        if let Some(mt) = self.heap.own_meta(v) {
            if let Value::Str(s) = self.heap.tables.get(mt).get_str(self.tm_names[TM_NAME]) {
                return String::from_utf8_lossy(self.heap.str(s)).into_owned();
            }
        }
        v.type_name().into()
    }

    /// `bad argument #i to 'f' (T expected, got U)` (`luaL_typeerror`).
    #[cold]
    pub fn arg_type_error(&mut self, i: usize, expected: &str) -> Error {
        let got = self.arg_typename(i);
        self.arg_error(i, &format!("{expected} expected, got {got}"))
    }

    /// `luaL_checkany`.
    pub fn check_any(&mut self, i: usize) -> Result<Value, Error> {
        if self.arg_is_none(i) {
            return Err(self.arg_error(i, "value expected"));
        }
        Ok(self.arg(i))
    }

    /// `luaL_checktype(L, i, LUA_TTABLE)`.
    pub fn check_table(&mut self, i: usize) -> Result<TableRef, Error> {
        match self.arg(i) {
            Value::Table(t) => Ok(t),
            _ => Err(self.arg_type_error(i, "table")),
        }
    }

    /// Converts a value to a number (strings coerce), as `lua_tonumber`.
    pub fn to_number(&self, v: Value) -> Option<Value> {
        match v {
            Value::Int(_) | Value::Float(_) => Some(v),
            Value::Str(s) => number::str_to_number(self.heap.str(s)).map(Value::from),
            _ => None,
        }
    }

    /// Converts a value to an integer (strings coerce, floats must be
    /// integral), as `lua_tointegerx`.
    pub fn to_integer(&self, v: Value) -> Option<i64> {
        match self.to_number(v)? {
            Value::Int(i) => Some(i),
            Value::Float(f) => number::float_to_int(f, number::F2I::Exact),
            _ => None,
        }
    }

    /// `luaL_checkinteger`. (The common case, an integer, inline; the
    /// others in [`State::check_int_slow`], out of line, as for the other
    /// checks: a native's call of a helper whose slow path formats errors
    /// cost it the helper's whole frame setup.)
    #[inline]
    pub fn check_int(&mut self, i: usize) -> Result<i64, Error> {
        match self.arg(i) {
            Value::Int(n) => Ok(n),
            _ => self.check_int_slow(i),
        }
    }

    /// [`State::check_int`] of a value that is not an integer.
    #[inline(never)]
    fn check_int_slow(&mut self, i: usize) -> Result<i64, Error> {
        let v = self.arg(i);
        match self.to_integer(v) {
            Some(n) => Ok(n),
            None => {
                if self.to_number(v).is_some() {
                    Err(self.arg_error(i, "number has no integer representation"))
                } else {
                    Err(self.arg_type_error(i, "number"))
                }
            }
        }
    }

    /// `luaL_optinteger`.
    #[inline]
    pub fn opt_int(&mut self, i: usize, default: i64) -> Result<i64, Error> {
        if self.arg(i).is_nil() {
            Ok(default)
        } else {
            self.check_int(i)
        }
    }

    /// `luaL_checknumber`.
    #[inline]
    pub fn check_number(&mut self, i: usize) -> Result<Value, Error> {
        match self.arg(i) {
            v @ (Value::Int(_) | Value::Float(_)) => Ok(v),
            _ => self.check_number_slow(i),
        }
    }

    /// [`State::check_number`] of a value that is not a number.
    #[inline(never)]
    fn check_number_slow(&mut self, i: usize) -> Result<Value, Error> {
        match self.to_number(self.arg(i)) {
            Some(v) => Ok(v),
            None => Err(self.arg_type_error(i, "number")),
        }
    }

    /// `luaL_checklstring`: a string, or a number converted to one.
    #[inline]
    pub fn check_str(&mut self, i: usize) -> Result<StrRef, Error> {
        match self.arg(i) {
            Value::Str(s) => Ok(s),
            _ => self.check_str_slow(i),
        }
    }

    /// [`State::check_str`] of a value that is not a string.
    #[inline(never)]
    fn check_str_slow(&mut self, i: usize) -> Result<StrRef, Error> {
        match self.arg(i) {
            Value::Str(s) => Ok(s),
            v @ (Value::Int(_) | Value::Float(_)) => {
                let mut b = Vec::new();
                number::fmt_number(v, &mut b);
                let s = self.heap.intern(&b);
                let slot = self.arg_base() + i - 1;
                self.ex.stack[slot] = Value::Str(s);
                Ok(s)
            }
            _ => Err(self.arg_type_error(i, "string")),
        }
    }

    /// `luaL_optstring`-like: `None` when absent or nil.
    pub fn opt_str(&mut self, i: usize) -> Result<Option<StrRef>, Error> {
        if self.arg(i).is_nil() {
            Ok(None)
        } else {
            self.check_str(i).map(Some)
        }
    }

    /// The string form of a value without metamethods: numbers, strings,
    /// booleans, nil, and `type: 0x...` identities (with `__name`).
    pub fn tostring_raw(&self, v: Value, out: &mut Vec<u8>) {
        match v {
            Value::Nil => out.extend_from_slice(b"nil"),
            Value::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            Value::Int(_) | Value::Float(_) => number::fmt_number(v, out),
            Value::Str(s) => out.extend_from_slice(self.heap.str(s)),
            _ => {
                let mut kind = v.type_name().as_bytes().to_vec();
                if let Some(mt) = self.heap.own_meta(v) {
                    if let Value::Str(s) = self.heap.tables.get(mt).get_str(self.tm_names[TM_NAME])
                    {
                        kind = self.heap.str(s).to_vec();
                    }
                }
                out.extend_from_slice(&kind);
                out.extend_from_slice(format!(": 0x{:012x}", Heap::object_id(v)).as_bytes());
            }
        }
    }

    /// `luaL_tolstring`: the string form of a value, calling `__tostring`
    /// (nested call) if present.
    pub fn tostring_bytes(&mut self, v: Value) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.tostring_append(v, &mut out)?;
        Ok(out)
    }

    /// [`State::tostring_bytes`] appended to `out` (no buffer of its own).
    pub fn tostring_append(&mut self, v: Value, out: &mut Vec<u8>) -> Result<(), Error> {
        let tm = self.tm_of(v, TM_TOSTRING);
        if !tm.is_nil() {
            let r = self.call_value1(tm, &[v])?;
            match r {
                Value::Str(_) | Value::Int(_) | Value::Float(_) => self.tostring_raw(r, out),
                _ => return Err(self.native_error("'__tostring' must return a string")),
            }
            return Ok(());
        }
        self.tostring_raw(v, out);
        Ok(())
    }

    /// The state's scratch byte buffer, empty, with the capacity its
    /// earlier uses left: for a native's temporary bytes (a line being
    /// read, a number being formatted), so that a call allocates nothing.
    /// Give it back with [`State::put_buf`]. Meanwhile the state's own
    /// uses (concatenation) take a new buffer. Scratch: never snapshot,
    /// saved or hashed.
    pub fn take_buf(&mut self) -> Vec<u8> {
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        b
    }

    /// Returns a buffer taken with [`State::take_buf`]. A buffer grown past
    /// 64 KiB is dropped, so that one huge string does not
    /// keep its size for the life of the state.
    pub fn put_buf(&mut self, b: Vec<u8>) {
        if b.capacity() <= SCRATCH_KEEP && b.capacity() >= self.buf.capacity() {
            self.buf = b;
        }
    }

    /// The bytes of a string value.
    pub fn to_str(&self, v: Value) -> Option<&[u8]> {
        match v {
            Value::Str(s) => Some(self.heap.str(s)),
            _ => None,
        }
    }
}
