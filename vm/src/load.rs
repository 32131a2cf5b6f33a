//! Loading: compiled prototypes into the heap (`lua_load`).
//!
//! [`State::load_with_env`] takes a chunk, text or binary, and returns its
//! main function. Text is compiled with `luprex_compiler`; a chunk whose
//! first byte is `LUA_SIGNATURE[0]` (`\x1b`, which no Lua source can start
//! with) is binary, a dump written by `string.dump` (see
//! `luprex_compiler::dump`), read back with `undump`, which verifies the
//! code before it returns it, so a corrupted or hostile chunk is an error
//! and never reaches the interpreter. Both paths give a plain-data
//! [`Proto`] tree, converted by [`State::load_proto`] into heap prototypes
//! ([`FnProto`]): constants become values (strings interned), nested
//! prototypes become handles. The main function's first upvalue, if it has
//! any, is set to the environment (the globals table, or `load`'s `env`
//! argument); the others start as fresh nil upvalues (a dumped closure does
//! not carry its upvalues' values, as in PUC Lua).
//!
//! The `mode` argument refuses binary (`"t"`) or text (`"b"`) chunks with
//! the reference's messages, and a state may refuse binary chunks
//! altogether ([`State::set_allow_binary_chunks`], done by the sandbox
//! library set). Every failure is an [`Error`] of kind
//! [`ErrorKind::Syntax`], as `lua_load` reports them all as
//! `LUA_ERRSYNTAX`; for text, `incomplete_input` tells a REPL that more
//! input could complete the chunk.

use crate::error::{Error, ErrorKind};
use crate::func::{FnProto, ProtoRef, UpVal};
use crate::state::State;
use crate::value::Value;
use luprex_compiler::{Constant, Proto};

/// Signature of binary chunks.
pub const BINARY_SIGNATURE: &[u8] = b"\x1bLua";

impl State {
    /// Converts a compiled prototype tree into heap prototypes. The tree is
    /// consumed: its vectors become the heap prototype's (no copies of a big
    /// chunk's code and line table), and each part is freed as soon as it has
    /// been converted.
    pub fn load_proto(&mut self, p: Proto) -> ProtoRef {
        let source = self.heap.intern(&p.source);
        let mut k = Vec::with_capacity(p.constants.len());
        for c in p.constants {
            k.push(match c {
                Constant::Nil => Value::Nil,
                Constant::Bool(b) => Value::Bool(b),
                Constant::Int(i) => Value::Int(i),
                Constant::Float(f) => Value::Float(f),
                Constant::Str(s) => Value::Str(self.heap.intern(&s)),
            });
        }
        let protos: Vec<ProtoRef> = p.protos.into_iter().map(|c| self.load_proto(c)).collect();
        self.heap.new_proto(FnProto {
            code: crate::func::Code::new(&p.code),
            k: k.into(),
            protos: protos.into_boxed_slice(),
            upvals: p.upvalues.into_boxed_slice(),
            num_params: p.num_params,
            is_vararg: p.is_vararg,
            max_stack: p.max_stack.max(2),
            source,
            line_defined: p.line_defined,
            last_line_defined: p.last_line_defined,
            line_info: p.line_info.into_boxed_slice(),
            loc_vars: p.loc_vars.into_boxed_slice(),
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

    /// Allows or refuses binary chunks in [`State::load_with_env`] (the
    /// sandbox refuses them: verified bytecode is safe for the VM, but the
    /// sandbox accepts only source).
    pub fn set_allow_binary_chunks(&mut self, allow: bool) {
        self.allow_binary_chunks = allow;
    }

    /// Compiles `source` (a text chunk; `chunkname` as for `load`: `@file`,
    /// `=name`, or the text) and returns the main function, with `_ENV`
    /// set to the globals table. Syntax errors come back as an [`Error`]
    /// whose value is the message string.
    pub fn load(&mut self, source: &[u8], chunkname: &[u8]) -> Result<Value, Error> {
        let env = Value::Table(self.globals);
        self.load_with_env(source, chunkname, "bt", env)
    }

    /// `load` with a mode (`"t"`, `"b"`, `"bt"`) and an environment: text
    /// or binary chunk (by its first byte) to main function.
    pub fn load_with_env(
        &mut self,
        source: &[u8],
        chunkname: &[u8],
        mode: &str,
        env: Value,
    ) -> Result<Value, Error> {
        let binary = source.first() == BINARY_SIGNATURE.first();
        let (kind, letter) = if binary { ("binary", 'b') } else { ("text", 't') };
        if !mode.contains(letter) {
            let m = format!("attempt to load a {kind} chunk (mode is '{mode}')");
            return Err(self.syntax_error(m.as_bytes(), false));
        }
        let proto = if binary {
            if !self.allow_binary_chunks {
                let m = b"attempt to load a binary chunk (binary chunks are disabled)";
                return Err(self.syntax_error(m, false));
            }
            luprex_compiler::dump::undump(source, chunkname)
                .map_err(|e| self.syntax_error(e.message.as_bytes(), false))?
        } else {
            luprex_compiler::compile(source, chunkname)
                .map_err(|e| self.syntax_error(e.message.as_bytes(), e.incomplete))?
        };
        let ph = self.load_proto(proto);
        Ok(self.closure_with_env(ph, env))
    }

    /// An error of kind [`ErrorKind::Syntax`] whose value is `msg`.
    fn syntax_error(&mut self, msg: &[u8], incomplete_input: bool) -> Error {
        self.error_string(msg).with_kind(ErrorKind::Syntax { incomplete_input })
    }
}
