//! Handles on Lua objects: the API's [`Value`] and the reference types.
//!
//! A handle ([`Table`], [`Function`], [`LuaString`], [`Thread`],
//! [`AnyUserData`]) is an `Rc` of a `RefInner`: the owning [`Lua`] (strong)
//! and a *slot*, either a [`Pin`] of the state (a GC root, released when the
//! last clone is dropped) or a fixed raw value for objects that are always
//! reachable (the globals table). Reading a handle's raw value is
//! `State::pinned`, an index.
//!
//! [`RegistryKey`] is the same thing with a weak reference to the state, so
//! that it can be stored inside values the state owns without a cycle.
//!
//! **Invariant:** a handle's `Drop` never needs the state (it may be moved
//! out while Lua runs): `Inner::release` unpins now or queues the pin.

use super::{AnyUserData, FromLua, FromLuaMulti, Inner, IntoLua, IntoLuaMulti, Lua, Result};
use crate::error::Error;
use crate::state::{Pin, State};
use crate::thread::CoStatus;
use crate::value::Value as Raw;
use std::rc::{Rc, Weak};

/// Where a handle's value is kept.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    /// A pinned value.
    Pin(Pin),
    /// A value reachable for the state's whole life.
    Fixed(Raw),
}

pub(crate) struct RefInner {
    lua: Lua,
    slot: Slot,
}

impl Drop for RefInner {
    fn drop(&mut self) {
        if let Slot::Pin(p) = self.slot {
            self.lua.inner.release(p);
        }
    }
}

/// A rooted reference (see the module docs).
#[derive(Clone)]
pub(crate) struct LuaRef(Rc<RefInner>);

impl LuaRef {
    pub(crate) fn new(lua: Lua, slot: Slot) -> LuaRef {
        LuaRef(Rc::new(RefInner { lua, slot }))
    }

    /// The raw value.
    pub(crate) fn raw(&self, st: &State) -> Raw {
        match self.0.slot {
            Slot::Pin(p) => st.pinned(p),
            Slot::Fixed(v) => v,
        }
    }

    /// The owning state.
    pub(crate) fn lua(&self) -> &Lua {
        &self.0.lua
    }
}

impl std::fmt::Debug for LuaRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.slot {
            Slot::Pin(p) => write!(f, "pin {}", p.0),
            Slot::Fixed(v) => write!(f, "{v:?}"),
        }
    }
}

/// A Lua value held by the host: immediates by value, objects by rooted
/// handle. (The low-level, unrooted value type is [`crate::raw::Value`].)
///
/// As mlua's, the enum is open to more variants: a `match` outside this
/// crate ends with a `_` arm. (mlua's `LightUserData` and `Error`
/// variants have no counterpart: the VM has no light userdata, and an
/// error value is an ordinary Lua value.)
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum Value {
    /// `nil`.
    #[default]
    Nil,
    /// A boolean.
    Boolean(bool),
    /// An integer.
    Integer(i64),
    /// A float.
    Number(f64),
    /// A string.
    String(LuaString),
    /// A table.
    Table(Table),
    /// A function (Lua or Rust).
    Function(Function),
    /// A coroutine.
    Thread(Thread),
    /// A full userdata.
    UserData(AnyUserData),
}

impl Value {
    /// The name `type()` returns for this value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Boolean(_) => "boolean",
            Value::Integer(_) | Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Table(_) => "table",
            Value::Function(_) => "function",
            Value::Thread(_) => "thread",
            Value::UserData(_) => "userdata",
        }
    }

    /// True for `nil`.
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// The integer, for an integer value (no conversion).
    pub fn as_integer(&self) -> Option<i64> {
        match *self {
            Value::Integer(i) => Some(i),
            _ => None,
        }
    }

    /// The number as a float, for an integer or float value.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            Value::Number(n) => Some(n),
            Value::Integer(i) => Some(i as f64),
            _ => None,
        }
    }

    /// The boolean, for a boolean value.
    pub fn as_boolean(&self) -> Option<bool> {
        match *self {
            Value::Boolean(b) => Some(b),
            _ => None,
        }
    }

    /// The string's text, for a string value that is valid UTF-8.
    pub fn as_str(&self) -> Option<String> {
        self.as_string().and_then(|s| s.to_str().ok())
    }

    /// The string, for a string value.
    pub fn as_string(&self) -> Option<&LuaString> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The table, for a table value.
    pub fn as_table(&self) -> Option<&Table> {
        match self {
            Value::Table(t) => Some(t),
            _ => None,
        }
    }

    /// The function, for a function value.
    pub fn as_function(&self) -> Option<&Function> {
        match self {
            Value::Function(f) => Some(f),
            _ => None,
        }
    }

    /// The coroutine, for a thread value.
    pub fn as_thread(&self) -> Option<&Thread> {
        match self {
            Value::Thread(t) => Some(t),
            _ => None,
        }
    }

    /// The userdata, for a userdata value.
    pub fn as_userdata(&self) -> Option<&AnyUserData> {
        match self {
            Value::UserData(u) => Some(u),
            _ => None,
        }
    }

    /// True for a boolean.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Boolean(_))
    }

    /// True for an integer.
    pub fn is_integer(&self) -> bool {
        matches!(self, Value::Integer(_))
    }

    /// True for an integer or a float.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Integer(_) | Value::Number(_))
    }

    /// True for a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// True for a table.
    pub fn is_table(&self) -> bool {
        matches!(self, Value::Table(_))
    }

    /// True for a function.
    pub fn is_function(&self) -> bool {
        matches!(self, Value::Function(_))
    }

    /// True for a coroutine.
    pub fn is_thread(&self) -> bool {
        matches!(self, Value::Thread(_))
    }

    /// True for a userdata.
    pub fn is_userdata(&self) -> bool {
        matches!(self, Value::UserData(_))
    }

    /// The raw value (valid while this value lives).
    pub(crate) fn to_raw(&self, st: &State) -> Raw {
        match self {
            Value::Nil => Raw::Nil,
            Value::Boolean(b) => Raw::Bool(*b),
            Value::Integer(i) => Raw::Int(*i),
            Value::Number(n) => Raw::Float(*n),
            Value::String(LuaString(r))
            | Value::Table(Table(r))
            | Value::Function(Function(r))
            | Value::Thread(Thread(r))
            | Value::UserData(AnyUserData(r)) => r.raw(st),
        }
    }

    fn handle(&self) -> Option<&LuaRef> {
        match self {
            Value::String(LuaString(r))
            | Value::Table(Table(r))
            | Value::Function(Function(r))
            | Value::Thread(Thread(r))
            | Value::UserData(AnyUserData(r)) => Some(r),
            _ => None,
        }
    }

    /// Primitive equality (`rawequal`): numbers by value, strings by
    /// content, objects by identity.
    pub fn raw_equals(&self, other: &Value) -> bool {
        let lua = self.handle().or(other.handle()).map(|r| r.lua().clone());
        match lua {
            None => match (self, other) {
                (Value::Nil, Value::Nil) => true,
                (Value::Boolean(a), Value::Boolean(b)) => a == b,
                _ => {
                    let conv = |v: &Value| match v {
                        Value::Integer(i) => Raw::Int(*i),
                        Value::Number(n) => Raw::Float(*n),
                        _ => Raw::Nil,
                    };
                    !matches!(self, Value::Nil | Value::Boolean(_))
                        && conv(self).raw_eq_interned(conv(other))
                }
            },
            Some(lua) => lua
                .with_state(|st| st.heap.raw_eq(self.to_raw(st), other.to_raw(st)))
                .unwrap_or(false),
        }
    }
}

impl PartialEq for Value {
    /// [`Value::raw_equals`].
    fn eq(&self, other: &Value) -> bool {
        self.raw_equals(other)
    }
}

macro_rules! handle_eq {
    ($t:ident) => {
        impl PartialEq for $t {
            /// Identity of the referenced objects.
            fn eq(&self, other: &$t) -> bool {
                self.0
                    .lua()
                    .with_state(|st| st.heap.raw_eq(self.0.raw(st), other.0.raw(st)))
                    .unwrap_or(false)
            }
        }
    };
}

/// A Lua string (any bytes).
#[derive(Clone, Debug)]
pub struct LuaString(pub(crate) LuaRef);
handle_eq!(LuaString);

impl LuaString {
    /// The bytes.
    pub fn as_bytes(&self) -> Vec<u8> {
        self.0
            .lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::Str(s) => st.heap.str(s).to_vec(),
                _ => Vec::new(),
            })
            .unwrap_or_default()
    }

    /// The content as UTF-8 (a conversion error if it is not).
    pub fn to_str(&self) -> Result<String> {
        String::from_utf8(self.as_bytes())
            .map_err(|_| Error::conversion("string", "String", Some("invalid utf-8")))
    }

    /// The content, invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.as_bytes()).into_owned()
    }
}

/// A Lua table.
#[derive(Clone, Debug)]
pub struct Table(pub(crate) LuaRef);
handle_eq!(Table);

impl Table {
    fn lua(&self) -> &Lua {
        self.0.lua()
    }

    /// `t[key]`, with metamethods (`__index`).
    pub fn get<V: FromLua>(&self, key: impl IntoLua) -> Result<V> {
        let lua = self.lua();
        let k = key.into_lua(lua)?;
        let v = lua.run(|st| {
            let raw = st.index_value(self.0.raw(st), k.to_raw(st))?;
            Ok(lua.wrap(st, raw))
        })?;
        V::from_lua(v, lua)
    }

    /// `t[key] = value`, with metamethods (`__newindex`).
    pub fn set(&self, key: impl IntoLua, value: impl IntoLua) -> Result<()> {
        let lua = self.lua();
        let k = key.into_lua(lua)?;
        let v = value.into_lua(lua)?;
        lua.run(|st| st.set_index_value(self.0.raw(st), k.to_raw(st), v.to_raw(st)))
    }

    /// `rawget(t, key)`.
    pub fn raw_get<V: FromLua>(&self, key: impl IntoLua) -> Result<V> {
        let lua = self.lua();
        let k = key.into_lua(lua)?;
        let v = lua.with_state(|st| {
            let raw = st.table_get(self.0.raw(st), k.to_raw(st));
            lua.wrap(st, raw)
        })?;
        V::from_lua(v, lua)
    }

    /// `rawset(t, key, value)` (an error for a nil or NaN key).
    pub fn raw_set(&self, key: impl IntoLua, value: impl IntoLua) -> Result<()> {
        let lua = self.lua();
        let k = key.into_lua(lua)?;
        let v = value.into_lua(lua)?;
        lua.with_state(|st| st.try_table_set(self.0.raw(st), k.to_raw(st), v.to_raw(st)))?
    }

    /// Whether `t[key]` (raw) is not nil.
    pub fn contains_key(&self, key: impl IntoLua) -> Result<bool> {
        Ok(!self.raw_get::<Value>(key)?.is_nil())
    }

    /// `#t`, with the `__len` metamethod.
    pub fn len(&self) -> Result<i64> {
        let lua = self.lua();
        let v = lua.run(|st| {
            let raw = st.len_value(self.0.raw(st))?;
            Ok(lua.wrap(st, raw))
        })?;
        i64::from_lua(v, lua)
    }

    /// `rawlen(t)`.
    pub fn raw_len(&self) -> usize {
        self.lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::Table(h) => st.table(h).len().max(0) as usize,
                _ => 0,
            })
            .unwrap_or(0)
    }

    /// The metatable.
    pub fn metatable(&self) -> Option<Table> {
        let lua = self.lua();
        lua.with_state(|st| {
            let mt = st.metatable(self.0.raw(st))?;
            match lua.wrap(st, Raw::Table(mt)) {
                Value::Table(t) => Some(t),
                _ => None,
            }
        })
        .ok()
        .flatten()
    }

    /// Sets (or with `None` removes) the metatable.
    pub fn set_metatable(&self, mt: Option<Table>) -> Result<()> {
        self.lua().with_state(|st| {
            let m = match &mt {
                Some(t) => match t.0.raw(st) {
                    Raw::Table(h) => Some(h),
                    _ => None,
                },
                None => None,
            };
            if let Raw::Table(h) = self.0.raw(st) {
                st.set_table_metatable(h, m);
            }
        })
    }

    /// The key-value pairs (raw, in traversal order), converted to `K` and
    /// `V`. The iteration keeps its current key rooted; assigning to
    /// existing fields during the traversal is allowed, adding fields is not
    /// (as `next`).
    pub fn pairs<K: FromLua, V: FromLua>(&self) -> TablePairs<K, V> {
        TablePairs { table: self.clone(), key: Some(Value::Nil), _m: std::marker::PhantomData }
    }

    /// The values `t[1]`, `t[2]`, ... up to the first nil (raw).
    pub fn sequence_values<V: FromLua>(&self) -> TableSequence<V> {
        TableSequence { table: self.clone(), index: 1, done: false, _m: std::marker::PhantomData }
    }

    /// Appends `value` at `#t + 1` (raw).
    pub fn push(&self, value: impl IntoLua) -> Result<()> {
        let n = self.raw_len() as i64;
        self.raw_set(n + 1, value)
    }

    /// Removes and returns the last element `t[#t]` (raw; nil when empty).
    pub fn pop<V: FromLua>(&self) -> Result<V> {
        let n = self.raw_len() as i64;
        if n == 0 {
            return V::from_lua(Value::Nil, self.lua());
        }
        let v = self.raw_get::<Value>(n)?;
        self.raw_set(n, Value::Nil)?;
        V::from_lua(v, self.lua())
    }

    /// `t[key] = nil`, with metamethods (`__newindex`).
    pub fn remove(&self, key: impl IntoLua) -> Result<()> {
        self.set(key, Value::Nil)
    }

    /// `rawset(t, key, nil)`.
    pub fn raw_remove(&self, key: impl IntoLua) -> Result<()> {
        self.raw_set(key, Value::Nil)
    }

    /// Removes every key (raw); the metatable stays.
    pub fn clear(&self) -> Result<()> {
        self.lua().with_state(|st| {
            if let Raw::Table(h) = self.0.raw(st) {
                st.table_clear(h);
            }
        })
    }
    /// Whether the table has no key at all (raw).
    pub fn is_empty(&self) -> bool {
        self.lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::Table(h) => st.table(h).is_empty(),
                _ => true,
            })
            .unwrap_or(true)
    }

    /// Whether the table has a metatable.
    pub fn has_metatable(&self) -> bool {
        self.metatable().is_some()
    }

    /// `self == other` with the `__eq` metamethod.
    pub fn equals(&self, other: &Table) -> Result<bool> {
        let lua = self.lua();
        lua.run(|st| {
            let (a, b) = (self.0.raw(st), other.0.raw(st));
            st.equal_value(a, b)
        })
    }

    /// Calls `f` with each key-value pair (raw, in traversal order),
    /// stopping at the first error.
    pub fn for_each<K: FromLua, V: FromLua>(
        &self,
        mut f: impl FnMut(K, V) -> Result<()>,
    ) -> Result<()> {
        for kv in self.pairs::<K, V>() {
            let (k, v) = kv?;
            f(k, v)?;
        }
        Ok(())
    }

    /// Calls `f` with `t[1]`, `t[2]`, ... up to the first nil (raw).
    pub fn for_each_value<V: FromLua>(&self, mut f: impl FnMut(V) -> Result<()>) -> Result<()> {
        for v in self.sequence_values::<V>() {
            f(v?)?;
        }
        Ok(())
    }
}

/// Iterator of [`Table::pairs`].
pub struct TablePairs<K, V> {
    table: Table,
    key: Option<Value>,
    _m: std::marker::PhantomData<fn() -> (K, V)>,
}

impl<K: FromLua, V: FromLua> Iterator for TablePairs<K, V> {
    type Item = Result<(K, V)>;

    fn next(&mut self) -> Option<Self::Item> {
        let key = self.key.take()?;
        let lua = self.table.lua().clone();
        let step = lua.with_state(|st| {
            let Raw::Table(h) = self.table.0.raw(st) else { return Ok(None) };
            match st.table(h).next(key.to_raw(st)) {
                Ok(Some((k, v))) => Ok(Some((lua.wrap(st, k), lua.wrap(st, v)))),
                Ok(None) => Ok(None),
                Err(_) => Err(Error::runtime("invalid key to 'next'")),
            }
        });
        match step.and_then(|r| r) {
            Ok(Some((k, v))) => {
                self.key = Some(k.clone());
                let kv = K::from_lua(k, &lua).and_then(|k| Ok((k, V::from_lua(v, &lua)?)));
                Some(kv)
            }
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// Iterator of [`Table::sequence_values`].
pub struct TableSequence<V> {
    table: Table,
    index: i64,
    done: bool,
    _m: std::marker::PhantomData<fn() -> V>,
}

impl<V: FromLua> Iterator for TableSequence<V> {
    type Item = Result<V>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.table.raw_get::<Value>(self.index) {
            Ok(Value::Nil) => {
                self.done = true;
                None
            }
            Ok(v) => {
                self.index += 1;
                Some(V::from_lua(v, self.table.lua()))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// A Lua function (Lua closure or Rust function).
#[derive(Clone, Debug)]
pub struct Function(pub(crate) LuaRef);
handle_eq!(Function);

impl Function {
    /// Calls the function (protected: an error comes back as `Err`, with a
    /// traceback if no `pcall` in Lua caught it).
    pub fn call<R: FromLuaMulti>(&self, args: impl IntoLuaMulti) -> Result<R> {
        // The function and its arguments are pushed on the state's stack,
        // which keeps them alive; the results are converted from there.
        let lua = self.0.lua();
        let func = lua.with_state(|st| {
            let f = self.0.raw(st);
            let func = st.ex.stack.len();
            st.push(f);
            func
        })?;
        let r = args
            .push_into_stack_multi(lua)
            .and_then(|_| lua.run(|st| st.call_pushed_protected(func)))
            .and_then(|()| lua.with_stack_copy(func, |vals| R::from_raw_multi(vals, lua)));
        let _ = lua.with_state(|st| st.ex.stack.truncate(func));
        r
    }
}

/// A coroutine.
#[derive(Clone, Debug)]
pub struct Thread(pub(crate) LuaRef);
handle_eq!(Thread);

impl Thread {
    /// Resumes the coroutine with `args` (`coroutine.resume`): its yielded
    /// or returned values, or its error (the coroutine is then dead).
    pub fn resume<R: FromLuaMulti>(&self, args: impl IntoLuaMulti) -> Result<R> {
        let lua = self.0.lua();
        let args = args.into_lua_multi(lua)?;
        let results = lua.run(|st| {
            let Raw::Thread(co) = self.0.raw(st) else {
                return Err(Error::runtime("not a coroutine"));
            };
            st.check_stack(args.len() + 1, "too many arguments to resume")?;
            let base = st.ex.stack.len();
            for v in args.iter() {
                let raw = v.to_raw(st);
                st.push(raw);
            }
            match st.resume(co, args.len())? {
                Ok(n) => {
                    let first = st.ex.stack.len().saturating_sub(n).max(base);
                    let out: Vec<Raw> = st.ex.stack[first..].to_vec();
                    st.ex.stack.truncate(base);
                    Ok(lua.wrap_all(st, &out))
                }
                Err(v) => {
                    st.ex.stack.truncate(base);
                    st.last_error = v;
                    let msg = st.render_error(v);
                    Err(Error::from_value(v).with_message(msg))
                }
            }
        })?;
        R::from_lua_multi(results, lua)
    }

    /// The coroutine's status, as mlua reports it.
    pub fn status(&self) -> ThreadStatus {
        self.0
            .lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::Thread(co) => match st.thread_status(co) {
                    CoStatus::Suspended => ThreadStatus::Resumable,
                    CoStatus::Running => ThreadStatus::Running,
                    CoStatus::Normal => ThreadStatus::Normal,
                    CoStatus::Dead if st.thread_failed(co) => ThreadStatus::Error,
                    CoStatus::Dead => ThreadStatus::Finished,
                },
                _ => ThreadStatus::Error,
            })
            .unwrap_or(ThreadStatus::Error)
    }

    /// The coroutine's status as `coroutine.status` names it.
    pub fn co_status(&self) -> CoStatus {
        self.0
            .lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::Thread(co) => st.thread_status(co),
                _ => CoStatus::Dead,
            })
            .unwrap_or(CoStatus::Dead)
    }

    /// Whether [`Thread::resume`] can be called.
    pub fn is_resumable(&self) -> bool {
        self.status() == ThreadStatus::Resumable
    }

    /// Whether the coroutine returned (without an error).
    pub fn is_finished(&self) -> bool {
        self.status() == ThreadStatus::Finished
    }

    /// Whether the coroutine died with an error.
    pub fn is_error(&self) -> bool {
        self.status() == ThreadStatus::Error
    }
}

/// The status of a [`Thread`] (mlua's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// Not started yet, or suspended in a yield: it can be resumed.
    Resumable,
    /// Running (it is the caller).
    Running,
    /// Active but not running: it resumed another coroutine.
    Normal,
    /// Returned.
    Finished,
    /// Died with an error.
    Error,
}

/// A value kept in the state for the host, alive until the key is dropped
/// (see [`Lua::create_registry_value`]). The key refers to its state
/// weakly.
pub struct RegistryKey {
    inner: Weak<Inner>,
    pin: Pin,
}

impl RegistryKey {
    pub(crate) fn new(inner: &Rc<Inner>, pin: Pin) -> RegistryKey {
        RegistryKey { inner: Rc::downgrade(inner), pin }
    }

    pub(crate) fn raw(&self, st: &State) -> Raw {
        st.pinned(self.pin)
    }
}

impl std::fmt::Debug for RegistryKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RegistryKey({})", self.pin.0)
    }
}

impl Drop for RegistryKey {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.release(self.pin);
        }
    }
}
