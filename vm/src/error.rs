//! Errors: a Lua error value travelling through Rust as `Err(Error)`.
//!
//! Lua errors are ordinary Rust `Result`s: an instruction or native that
//! fails returns `Err(Error)`, and `?` carries it up to the interpreter's
//! driver (`State::run`, in `call.rs`), which looks for the innermost
//! protected frame of the running thread (a `pcall`/`xpcall` frame), calls
//! the message handler there if it is an `xpcall`, unwinds to it and
//! resumes execution in its continuation. No `setjmp`, no panics, no Rust
//! unwinding.
//!
//! An [`Error`] carries the Lua error *value* (any value: `error({})` is
//! legal) and, once it leaves the VM through the public API, a rendered
//! message (`Display`) and a traceback. Runtime errors raised by the VM are
//! strings `chunkid:line: message`, built by [`State::rt_error`] with the
//! position of the running Lua function, exactly as `luaG_runerror`.
//!
//! **Rooting:** the value inside an `Error` is not a GC root while the
//! error propagates; no collection can happen during propagation (there is
//! no safe point between the raise and the handler). The API keeps the
//! value of the last error it returned alive until the next call.

use crate::state::State;
use crate::value::Value;
use std::sync::Arc;

/// What kind of failure an [`Error`] reports. Every kind also carries a Lua
/// error value (what a `pcall` in Lua would see) and a rendered message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A Lua runtime error (`error(...)`, an arithmetic on nil, ...).
    #[default]
    Runtime,
    /// A syntax error while compiling a chunk. `incomplete_input` is true
    /// when the chunk merely ended too early (the message ends in
    /// `<eof>`), so a REPL should read another line.
    Syntax {
        /// The input ended before the chunk was complete.
        incomplete_input: bool,
    },
    /// The memory limit was exceeded (`not enough memory`).
    Memory,
    /// The instruction budget ran out.
    InstructionLimit,
    /// The interrupt flag was raised from another thread.
    Interrupted,
    /// A bad argument passed to a function (`bad argument #n to 'f' (...)`).
    BadArgument {
        /// 1-based argument position.
        pos: usize,
        /// Function name, if known.
        func: Option<String>,
    },
    /// A value could not be converted between Lua and Rust.
    Conversion {
        /// Source type name.
        from: String,
        /// Target type name.
        to: String,
    },
    /// A Rust callback failed; [`Error::cause`] holds its error.
    Callback,
    /// A snapshot could not be taken, restored, written or loaded.
    Snapshot,
}

/// A Lua error.
#[derive(Clone, Debug)]
pub struct Error {
    pub(crate) value: Value,
    pub(crate) message: String,
    pub(crate) traceback: String,
    /// The message handler (or the traceback capture) already ran.
    pub(crate) handled: bool,
    /// Kind and cause, boxed to keep `Result<_, Error>` small (absent:
    /// a runtime error without a Rust cause).
    pub(crate) detail: Option<Box<Detail>>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Detail {
    kind: ErrorKind,
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl Error {
    /// An error carrying `value` (message to be rendered later).
    pub fn from_value(value: Value) -> Error {
        Error {
            value,
            message: String::new(),
            traceback: String::new(),
            handled: false,
            detail: None,
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> &ErrorKind {
        const RUNTIME: ErrorKind = ErrorKind::Runtime;
        self.detail.as_ref().map_or(&RUNTIME, |d| &d.kind)
    }

    /// The same error with kind `kind`.
    pub fn with_kind(mut self, kind: ErrorKind) -> Error {
        self.detail.get_or_insert_with(Default::default).kind = kind;
        self
    }

    /// The same error with the Rust error that caused it (kept as
    /// [`std::error::Error::source`]).
    pub fn with_cause(mut self, cause: Arc<dyn std::error::Error + Send + Sync>) -> Error {
        self.detail.get_or_insert_with(Default::default).cause = Some(cause);
        self
    }

    /// The Rust error that caused this one (a callback's error), if any.
    pub fn cause(&self) -> Option<&Arc<dyn std::error::Error + Send + Sync>> {
        self.detail.as_ref().and_then(|d| d.cause.as_ref())
    }

    /// The Lua error value.
    pub fn value(&self) -> Value {
        self.value
    }

    /// The rendered message: the error string, or `(error object is a X
    /// value)` as `lua.c` prints it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The traceback captured where an uncaught error was raised (`stack
    /// traceback:\n\t...`), empty if none was captured.
    pub fn traceback(&self) -> &str {
        &self.traceback
    }
}

/// Constructors for errors made by host code, without a Lua state at hand
/// (the embedding API's conversions and callbacks). Their Lua value is nil
/// until they enter the VM, where the message becomes the error value.
impl Error {
    /// A runtime error with message `msg`.
    pub fn runtime(msg: impl Into<String>) -> Error {
        let mut e = Error::from_value(Value::Nil);
        e.message = msg.into();
        e
    }

    /// A conversion error between Lua type `from` and Rust type `to`, with
    /// an optional detail.
    pub fn conversion(from: &str, to: &str, detail: Option<&str>) -> Error {
        let mut m = format!("error converting Lua {from} to {to}");
        if let Some(d) = detail {
            m.push_str(" (");
            m.push_str(d);
            m.push(')');
        }
        Error::runtime(m)
            .with_kind(ErrorKind::Conversion { from: from.to_string(), to: to.to_string() })
    }

    /// A bad argument error (`bad argument #pos to 'func' (msg)`).
    pub fn bad_argument(pos: usize, func: Option<String>, msg: &str) -> Error {
        let m = match &func {
            Some(f) => format!("bad argument #{pos} to '{f}' ({msg})"),
            None => format!("bad argument #{pos} ({msg})"),
        };
        Error::runtime(m).with_kind(ErrorKind::BadArgument { pos, func })
    }

    /// A callback error wrapping any Rust error (`mlua::Error::external`):
    /// kind [`ErrorKind::Callback`], the error kept as the cause, its
    /// `Display` as the message.
    pub fn external(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        let b: Box<dyn std::error::Error + Send + Sync> = cause.into();
        let msg = b.to_string();
        Error::runtime(msg).with_kind(ErrorKind::Callback).with_cause(Arc::from(b))
    }

    /// The same error with message `msg` (the Lua value is unchanged).
    pub fn with_message(mut self, msg: impl Into<String>) -> Error {
        self.message = msg.into();
        self
    }

    /// True for syntax errors caused by input that ended too early (a REPL
    /// should read another line).
    pub fn is_incomplete_input(&self) -> bool {
        matches!(self.kind(), ErrorKind::Syntax { incomplete_input: true })
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let c = self.detail.as_ref()?.cause.as_ref()?;
        Some(&**c as &(dyn std::error::Error + 'static))
    }
}

impl State {
    /// A runtime error with position information (`luaG_runerror`): the
    /// message is prefixed with `chunkid:line: ` of the running Lua
    /// function, if the running function is a Lua function.
    #[cold]
    pub fn rt_error(&mut self, msg: impl AsRef<str>) -> Error {
        self.rt_error_bytes(msg.as_ref().as_bytes())
    }

    /// [`State::rt_error`] of a message in bytes.
    #[cold]
    pub(crate) fn rt_error_bytes(&mut self, msg: &[u8]) -> Error {
        let mut text = Vec::with_capacity(96);
        self.where_into(0, &mut text);
        text.extend_from_slice(msg);
        self.error_string(&text)
    }

    /// An error whose value is the string `msg`, without position.
    #[cold]
    pub fn error_string(&mut self, msg: &[u8]) -> Error {
        let s = self.heap.intern(msg);
        let mut e = Error::from_value(Value::Str(s));
        // (`from_utf8` first: `from_utf8_lossy` walks valid text chunk by
        // chunk, a seventh of an error's cost in a `pcall` loop.)
        e.message = match std::str::from_utf8(msg) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(msg).into_owned(),
        };
        e
    }

    /// An error raised by a native with position information of its caller
    /// (`luaL_error`: `luaL_where(L, 1)`).
    #[cold]
    pub fn native_error(&mut self, msg: impl AsRef<str>) -> Error {
        let mut text = Vec::with_capacity(96);
        self.where_into(1, &mut text);
        text.extend_from_slice(msg.as_ref().as_bytes());
        self.error_string(&text)
    }

    /// Renders the message of an error value as `lua.c` does (strings and
    /// numbers as text, `__tostring` if present, else `(error object is a
    /// X value)`).
    pub(crate) fn render_error(&mut self, v: Value) -> String {
        match v {
            Value::Str(s) => String::from_utf8_lossy(self.heap.str(s)).into_owned(),
            Value::Int(_) | Value::Float(_) => {
                let mut b = Vec::new();
                crate::number::fmt_number(v, &mut b);
                String::from_utf8_lossy(&b).into_owned()
            }
            _ => {
                if self.get_metafield(v, b"__tostring").is_some() {
                    if let Ok(s) = self.tostring_bytes(v) {
                        return String::from_utf8_lossy(&s).into_owned();
                    }
                }
                format!("(error object is a {} value)", v.type_name())
            }
        }
    }
}
