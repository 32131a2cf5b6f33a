//! Chunks: [`Lua::load`]'s builder.
//!
//! A [`Chunk`] holds the source, a name and an environment; it is compiled
//! only when run ([`Chunk::exec`], [`Chunk::eval`], [`Chunk::call`]) or
//! turned into a function ([`Chunk::into_function`]). Compilation goes
//! through `luprex_compiler::compile` directly so that a syntax error keeps
//! the compiler's `incomplete` flag
//! ([`ErrorKind::Syntax`]`{ incomplete_input }`), which a REPL uses to ask
//! for another line. Binary chunks go through [`State::load_with_env`].
//!
//! The default chunk name is the source text itself, as for Lua's `load`
//! (messages then say `[string "..."]`); [`Chunk::set_name`] takes a name
//! as `load` does (`=name`, `@file`), and prefixes a bare name with `=`.

use super::{FromLuaMulti, Function, IntoLuaMulti, Lua, Result, Table, Value};
use crate::error::{Error, ErrorKind};
use crate::state::State;
use crate::value::Value as Raw;

/// A chunk of Lua code to run (see [`Lua::load`]).
pub struct Chunk<'a> {
    lua: &'a Lua,
    source: Vec<u8>,
    name: Option<Vec<u8>>,
    env: Option<Table>,
}

impl<'a> Chunk<'a> {
    pub(crate) fn new(lua: &'a Lua, source: Vec<u8>) -> Chunk<'a> {
        Chunk { lua, source, name: None, env: None }
    }

    /// The chunk's name, for messages and tracebacks: `=name` or `@file` as
    /// in `load`; any other name gets a `=` prefix.
    pub fn set_name(mut self, name: impl AsRef<str>) -> Chunk<'a> {
        let n = name.as_ref();
        let full =
            if n.starts_with('=') || n.starts_with('@') { n.to_string() } else { format!("={n}") };
        self.name = Some(full.into_bytes());
        self
    }

    /// The chunk's `_ENV` (default: the globals table).
    pub fn set_environment(mut self, env: Table) -> Chunk<'a> {
        self.env = Some(env);
        self
    }

    /// Compiles the chunk into a function.
    pub fn into_function(self) -> Result<Function> {
        let lua = self.lua;
        let v = lua.with_state(|st| {
            let f = self.compile(st, &self.source)?;
            Ok::<_, Error>(lua.wrap(st, f))
        })??;
        match v {
            Value::Function(f) => Ok(f),
            _ => Err(Error::runtime("chunk did not compile to a function")),
        }
    }

    /// Runs the chunk, discarding its results.
    pub fn exec(self) -> Result<()> {
        self.call(())
    }

    /// Runs the chunk with `args` (its `...`) and converts its results.
    pub fn call<R: FromLuaMulti>(self, args: impl IntoLuaMulti) -> Result<R> {
        self.into_function()?.call(args)
    }

    /// Evaluates the chunk as an expression (`return <source>`) if it is
    /// one, else runs it as statements, and converts its results.
    pub fn eval<R: FromLuaMulti>(self) -> Result<R> {
        let mut expr = b"return ".to_vec();
        expr.extend_from_slice(&self.source);
        let lua = self.lua;
        let as_expr = lua.with_state(|st| {
            let f = self.compile(st, &expr).ok()?;
            Some(lua.wrap(st, f))
        })?;
        match as_expr {
            Some(Value::Function(f)) => f.call(()),
            _ => self.call(()),
        }
    }

    /// Compiles `source` with this chunk's name and environment.
    fn compile(&self, st: &mut State, source: &[u8]) -> Result<Raw> {
        let name = self.name.as_deref().unwrap_or(&self.source);
        let env = match &self.env {
            Some(t) => t.0.raw(st),
            None => Raw::Table(st.globals()),
        };
        if source.starts_with(crate::load::BINARY_SIGNATURE) {
            return st.load_with_env(source, name, "bt", env).map_err(|mut e| {
                e.message = st.render_error(e.value);
                e
            });
        }
        match luprex_compiler::compile(source, name) {
            Ok(p) => {
                let ph = st.load_proto(p);
                Ok(st.closure_with_env(ph, env))
            }
            Err(e) => Err(st
                .error_string(e.message.as_bytes())
                .with_kind(ErrorKind::Syntax { incomplete_input: e.incomplete })),
        }
    }
}
