//! The public embedding API used by the CLI, the test harnesses and the
//! engine: loading, protected calls, globals, tables, strings.
//!
//! Values returned by these functions are handles; they stay valid while
//! reachable from Lua (globals, the registry, a table that is) or pinned
//! ([`State::pin`]). None of these functions collects garbage, except
//! [`State::call`] (which runs Lua code) and [`State::collect_garbage`].

use crate::error::Error;
use crate::state::State;
use crate::value::{StrRef, TableRef, Value};

impl State {
    /// Calls `f(args)` in protected mode and returns all its results. On
    /// error the stack is unwound (to-be-closed variables closed) and the
    /// error carries the Lua value, the rendered message and, for errors no
    /// `pcall` caught, a traceback (`stack traceback:\n\t...`).
    pub fn call(&mut self, f: Value, args: &[Value]) -> Result<Vec<Value>, Error> {
        let depth = self.ex.frames.len();
        let level = self.ex.stack.len();
        self.last_error = Value::Nil;
        match self.call_value(f, args) {
            Ok(v) => Ok(v),
            Err(mut e) => {
                if !e.handled && self.running == self.main_thread {
                    e.traceback = self.traceback(None, 0, true);
                    e.handled = true;
                }
                self.ex.frames.truncate(depth);
                if let Ok(Some(v)) = self.close_level(level, Some(e.value)) {
                    e.value = v;
                }
                self.ex.stack.truncate(level);
                self.last_error = e.value;
                e.message = self.render_error(e.value);
                Err(e)
            }
        }
    }

    /// Loads and runs a chunk, returning its results (convenience for
    /// tests and the CLI).
    pub fn exec(&mut self, source: &[u8], chunkname: &[u8]) -> Result<Vec<Value>, Error> {
        let f = match self.load(source, chunkname) {
            Ok(f) => f,
            Err(mut e) => {
                e.message = self.render_error(e.value);
                return Err(e);
            }
        };
        self.call(f, &[])
    }

    /// Sets a global variable.
    pub fn set_global(&mut self, name: &str, v: Value) {
        let k = self.heap.intern(name.as_bytes());
        let g = self.globals;
        self.raw_set_str(g, k, v);
    }

    /// Reads a global variable (raw).
    pub fn get_global(&mut self, name: &str) -> Value {
        match self.heap.interner.find(&self.heap.strings, name.as_bytes()) {
            Some(k) => self.heap.tables.get(self.globals).get_str(k),
            None => Value::Nil,
        }
    }

    /// A string value.
    pub fn new_string(&mut self, bytes: &[u8]) -> Value {
        Value::Str(self.heap.intern(bytes))
    }

    /// A new empty table.
    pub fn new_table(&mut self) -> Value {
        Value::Table(self.heap.new_table(0, 0))
    }

    /// Raw `t[k] = v`; does nothing for a non-table `t` or a nil/NaN key
    /// (see [`State::try_table_set`] to get the error).
    pub fn table_set(&mut self, t: Value, k: Value, v: Value) {
        let _ = self.try_table_set(t, k, v);
    }

    /// Raw `t[k] = v`. Errors for a non-table `t`, a nil or NaN key.
    pub fn try_table_set(&mut self, t: Value, k: Value, v: Value) -> Result<(), Error> {
        match t {
            Value::Table(h) => self.raw_set_checked(h, k, v),
            _ => Err(self.error_string(b"table expected")),
        }
    }

    /// Raw `t[k]` (nil for a non-table `t`).
    pub fn table_get(&self, t: Value, k: Value) -> Value {
        match t {
            Value::Table(h) => self.heap.tables.get(h).get(k),
            _ => Value::Nil,
        }
    }

    /// Raw `t[i] = v`.
    pub fn raw_set_int(&mut self, t: TableRef, i: i64, v: Value) {
        self.heap.tables.get_mut(t).set_int(i, v);
    }

    /// Raw `t[s] = v`.
    pub fn raw_set_str(&mut self, t: TableRef, s: StrRef, v: Value) {
        self.heap.tables.get_mut(t).set_str(s, v);
    }

    /// The string form of a value, as `tostring` (with `__tostring`; if the
    /// metamethod fails, the raw form).
    pub fn tostring(&mut self, v: Value) -> Vec<u8> {
        match self.tostring_bytes(v) {
            Ok(b) => b,
            Err(_) => {
                let mut out = Vec::new();
                self.tostring_raw(v, &mut out);
                out
            }
        }
    }
}
