//! Dumping: heap prototypes back into binary chunks (`lua_dump`).
//!
//! `string.dump` serializes a Lua function. The heap form of a prototype
//! (`FnProto`) holds values and handles, so [`State::dump_function`]
//! first converts it back into the compiler's plain-data [`Proto`]
//! (constants from values, with interned strings copied out; nested
//! prototypes from their handles, recursively) and then writes it with
//! `luprex_compiler::dump::dump`. Only the prototype is dumped: the
//! closure's upvalues are not (loading gives fresh ones, the first set to
//! the environment), as in PUC Lua. A Rust function has no prototype and
//! cannot be dumped.
//!
//! **Invariant:** every prototype in the heap came from the compiler or from
//! a verified binary chunk, so its constants are nil, booleans, numbers or
//! strings and its nesting is bounded; the conversion is total on them.

use crate::error::Error;
use crate::func::ProtoRef;
use crate::state::State;
use crate::value::Value;
use luprex_compiler::{Constant, Proto};

impl State {
    /// The binary chunk of Lua function `f` (`lua_dump`); with `strip`,
    /// without debug information. A Rust function (or any other value) is
    /// an error, `unable to dump given function`.
    pub fn dump_function(&mut self, f: Value, strip: bool) -> Result<Vec<u8>, Error> {
        let Value::LuaFn(cl) = f else {
            return Err(self.error_string(b"unable to dump given function"));
        };
        let p = self.heap.lua_fns.get(cl).proto;
        let proto = self.proto_of(p);
        Ok(luprex_compiler::dump::dump(&proto, strip))
    }

    /// Converts a heap prototype back into the compiler's form.
    pub fn proto_of(&self, ph: ProtoRef) -> Proto {
        let p = self.heap.protos.get(ph);
        let constants =
            p.k.iter()
                .map(|v| match *v {
                    Value::Bool(b) => Constant::Bool(b),
                    Value::Int(i) => Constant::Int(i),
                    Value::Float(f) => Constant::Float(f),
                    Value::Str(s) => Constant::Str(self.heap.str(s).to_vec()),
                    // Invariant: constants are never other values (see above).
                    _ => Constant::Nil,
                })
                .collect();
        Proto {
            source: self.heap.str(p.source).to_vec(),
            line_defined: p.line_defined,
            last_line_defined: p.last_line_defined,
            num_params: p.num_params,
            is_vararg: p.is_vararg,
            max_stack: p.max_stack,
            code: p.code.to_vec(),
            constants,
            upvalues: p.upvals.to_vec(),
            protos: p.protos.iter().map(|&c| self.proto_of(c)).collect(),
            line_info: p.line_info.to_vec(),
            loc_vars: p.loc_vars.to_vec(),
        }
    }
}
