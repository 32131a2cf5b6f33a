//! Loading: compiled prototypes into the heap.
//!
//! [`State::load`] compiles source text with `luprex_compiler` and converts
//! the resulting plain-data [`Proto`] tree into heap prototypes
//! ([`FnProto`]): constants become values (strings interned), nested
//! prototypes become handles. The main function gets one upvalue, `_ENV`,
//! initialised to the globals table (or to the `env` argument of `load`).
//!
//! Binary chunks (starting with `\x1bLua`) are recognised and rejected for
//! now, with the messages of `lua5.4` for mode mismatches.

use crate::error::Error;
use crate::func::{FnProto, ProtoRef, UpVal};
use crate::state::State;
use crate::value::Value;
use luprex_compiler::{Constant, Proto};

/// Signature of binary chunks.
pub const BINARY_SIGNATURE: &[u8] = b"\x1bLua";

impl State {
    /// Converts a compiled prototype tree into heap prototypes.
    pub fn load_proto(&mut self, p: &Proto) -> ProtoRef {
        let source = self.heap.intern(&p.source);
        let k: Vec<Value> = p
            .constants
            .iter()
            .map(|c| match c {
                Constant::Nil => Value::Nil,
                Constant::Bool(b) => Value::Bool(*b),
                Constant::Int(i) => Value::Int(*i),
                Constant::Float(f) => Value::Float(*f),
                Constant::Str(s) => Value::Str(self.heap.intern(s)),
            })
            .collect();
        let protos: Vec<ProtoRef> = p.protos.iter().map(|c| self.load_proto(c)).collect();
        self.heap.new_proto(FnProto {
            code: p.code.as_slice().into(),
            k: k.into(),
            protos: protos.into_boxed_slice(),
            upvals: p.upvalues.clone().into_boxed_slice(),
            num_params: p.num_params,
            is_vararg: p.is_vararg,
            max_stack: p.max_stack.max(2),
            source,
            line_defined: p.line_defined,
            last_line_defined: p.last_line_defined,
            line_info: p.line_info.clone().into_boxed_slice(),
            loc_vars: p.loc_vars.clone().into_boxed_slice(),
        })
    }

    /// Makes a closure of a main-chunk prototype whose first upvalue (if
    /// any) is `env`; other upvalues start as nil.
    pub fn closure_with_env(&mut self, p: ProtoRef, env: Value) -> Value {
        let n = self.heap.protos.get(p).upvals.len();
        let ups: Vec<_> = (0..n)
            .map(|i| self.heap.new_upval(UpVal::Closed(if i == 0 { env } else { Value::Nil })))
            .collect();
        Value::LuaFn(self.heap.new_lua_fn(p, ups.into_boxed_slice()))
    }

    /// Compiles `source` (a text chunk; `chunkname` as for `load`: `@file`,
    /// `=name`, or the text) and returns the main function, with `_ENV`
    /// set to the globals table. Syntax errors come back as an [`Error`]
    /// whose value is the message string.
    pub fn load(&mut self, source: &[u8], chunkname: &[u8]) -> Result<Value, Error> {
        let env = Value::Table(self.globals);
        self.load_with_env(source, chunkname, "bt", env)
    }

    /// `load` with a mode (`"t"`, `"b"`, `"bt"`) and an environment.
    pub fn load_with_env(
        &mut self,
        source: &[u8],
        chunkname: &[u8],
        mode: &str,
        env: Value,
    ) -> Result<Value, Error> {
        let binary = source.starts_with(BINARY_SIGNATURE);
        if binary && !mode.contains('b') {
            let m = format!("attempt to load a binary chunk (mode is '{mode}')");
            return Err(self.error_string(m.as_bytes()));
        }
        if !binary && !mode.contains('t') {
            let m = format!("attempt to load a text chunk (mode is '{mode}')");
            return Err(self.error_string(m.as_bytes()));
        }
        if binary {
            let m = format!(
                "{}: bad binary format (not supported yet)",
                luprex_compiler::chunkid(chunkname)
            );
            return Err(self.error_string(m.as_bytes()));
        }
        match luprex_compiler::compile(source, chunkname) {
            Ok(p) => {
                let ph = self.load_proto(&p);
                Ok(self.closure_with_env(ph, env))
            }
            Err(e) => Err(self.error_string(e.message.as_bytes())),
        }
    }
}
