//! Userdata: Rust values with methods, fields and metamethods.
//!
//! A type implementing [`UserData`] declares its fields and methods once;
//! the first [`Lua::create_userdata`] of that type builds a metatable from
//! them, pinned for the state's life and shared by every value of the type:
//!
//! * methods go in a methods table; getters and setters of fields in two
//!   more tables;
//! * `__index` is the methods table if there are no field getters and no
//!   user `__index`; otherwise a native (`"lua.ud_index"`) with the three
//!   tables and the user's `__index` as upvalues, which calls a getter, or
//!   returns a method, or calls the user's `__index` (tail call, so
//!   nothing nests on the Rust stack); `__newindex` likewise with setters;
//! * other metamethods are set as given; `__name` is the Rust type name.
//!
//! **Payload and borrowing.** The value lives in the userdata's payload as
//! `UdCell<T>`, an `Option<Rc<T>>`. A shared borrow (a method taking
//! `&T`, a field getter, a metamethod, [`AnyUserData::borrow`]) clones the
//! `Rc`: shared borrows coexist, so a method may call Lua code that reads
//! the same object (`a + a` with both operands borrowed). A mutable borrow
//! (`add_method_mut`, a field setter, [`AnyUserData::borrow_mut`]) moves
//! the `Rc` out of the cell, only if no shared borrow holds a clone, and
//! puts it back when done; meanwhile any other borrow of the value fails
//! with "userdata already borrowed" (an error, not a panic). Either way,
//! no borrow of the state is held while Rust code runs, so methods use
//! `&Lua` freely, and every mutation of the payload goes through the
//! userdata arena's `get_mut` (the snapshot dirty tracking sees it; the
//! `Rc` is not shared with anything outside the borrow guards).
//! [`AnyUserData::take`] moves the value out for good ("userdata has been
//! destructed" afterwards). The value is dropped when Lua collects the
//! userdata.

use super::{FromLua, FromLuaMulti, Function, IntoLua, IntoLuaMulti, Lua, Result, Value};
use crate::error::Error;
use crate::state::{Action, State};
use crate::userdata::Payload;
use crate::value::Value as Raw;
use std::any::{Any, TypeId};
use std::rc::Rc;

use super::handles::LuaRef;
use super::Callback;

/// A Rust type usable as a Lua userdata (see the module docs).
pub trait UserData: Sized + 'static {
    /// Declares the fields (`obj.x`, `obj.x = v`).
    fn add_fields<F: UserDataFields<Self>>(_fields: &mut F) {}
    /// Declares the methods (`obj:m(...)`) and metamethods.
    fn add_methods<M: UserDataMethods<Self>>(_methods: &mut M) {}
}

/// The field declarations of a [`UserData`] type.
pub trait UserDataFields<T> {
    /// A field read by `get`.
    fn add_field_method_get<R, F>(&mut self, name: impl Into<String>, get: F)
    where
        R: IntoLua,
        F: Fn(&Lua, &T) -> Result<R> + 'static;

    /// A field written by `set`.
    fn add_field_method_set<A, F>(&mut self, name: impl Into<String>, set: F)
    where
        A: FromLua,
        F: FnMut(&Lua, &mut T, A) -> Result<()> + 'static;
}

/// The method declarations of a [`UserData`] type.
pub trait UserDataMethods<T> {
    /// A method `obj:name(args)` reading the value.
    fn add_method<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &T, A) -> Result<R> + 'static;

    /// A method `obj:name(args)` mutating the value.
    fn add_method_mut<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: FnMut(&Lua, &mut T, A) -> Result<R> + 'static;

    /// A function `obj.name(args)` (no receiver conversion).
    fn add_function<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static;

    /// A metamethod whose first operand is the value (`__tostring`,
    /// `__len`, `__call`, `__index`, ...).
    fn add_meta_method<A, R, F>(&mut self, meta: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &T, A) -> Result<R> + 'static;

    /// A metamethod receiving all operands as arguments (binary operators,
    /// where the value may be either operand).
    fn add_meta_function<A, R, F>(&mut self, meta: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static;
}

/// The metamethods a [`UserData`] type may define.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaMethod {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `^`
    Pow,
    /// unary `-`
    Unm,
    /// `//`
    IDiv,
    /// `&`
    BAnd,
    /// `|`
    BOr,
    /// `~`
    BXor,
    /// unary `~`
    BNot,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `..`
    Concat,
    /// `#`
    Len,
    /// `==`
    Eq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// indexing with a key not found among the fields and methods
    Index,
    /// assigning to a key that is not a field
    NewIndex,
    /// calling the value
    Call,
    /// `tostring`
    ToString,
    /// to-be-closed variable closing
    Close,
}

impl From<MetaMethod> for String {
    fn from(m: MetaMethod) -> String {
        m.name().to_string()
    }
}

impl MetaMethod {
    /// The metatable key (`__add`, ...).
    pub fn name(self) -> &'static str {
        use MetaMethod::*;
        match self {
            Add => "__add",
            Sub => "__sub",
            Mul => "__mul",
            Div => "__div",
            Mod => "__mod",
            Pow => "__pow",
            Unm => "__unm",
            IDiv => "__idiv",
            BAnd => "__band",
            BOr => "__bor",
            BXor => "__bxor",
            BNot => "__bnot",
            Shl => "__shl",
            Shr => "__shr",
            Concat => "__concat",
            Len => "__len",
            Eq => "__eq",
            Lt => "__lt",
            Le => "__le",
            Index => "__index",
            NewIndex => "__newindex",
            Call => "__call",
            ToString => "__tostring",
            Close => "__close",
        }
    }
}

/// The payload of an API userdata (see the module docs).
struct UdCell<T> {
    /// The value; absent while mutably borrowed or after `take`.
    value: Option<Rc<T>>,
    destructed: bool,
}

impl<T: 'static> Payload for UdCell<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

/// The declarations collected from a [`UserData`] impl.
struct Registry<T> {
    methods: Vec<(String, Callback)>,
    getters: Vec<(String, Callback)>,
    setters: Vec<(String, Callback)>,
    metas: Vec<(String, Callback)>,
    _t: std::marker::PhantomData<fn(T)>,
}

/// The receiver of a method call (argument 1) as a userdata.
fn receiver<T>(lua: &Lua, args: &[Raw]) -> Result<AnyUserData> {
    match lua.wrap_raw(args.first().copied().unwrap_or(Raw::Nil))? {
        Value::UserData(u) => Ok(u),
        v => {
            let msg = format!("{} expected, got {}", short_name::<T>(), v.type_name());
            Err(Error::bad_argument(1, None, &msg))
        }
    }
}

/// A callback whose first argument is a `T` userdata, borrowed shared for
/// the call.
fn method_ref_cb<T, A, R>(f: impl Fn(&Lua, &T, A) -> Result<R> + 'static) -> Callback
where
    T: 'static,
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    Rc::new(move |lua, args| {
        let this = receiver::<T>(lua, args)?;
        let a = A::from_raw_args(args.get(1..).unwrap_or(&[]), 2, lua)?;
        let guard = this.borrow::<T>()?;
        f(lua, &guard, a)?.push_into_stack_multi(lua)
    })
}

/// A callback whose first argument is a `T` userdata, borrowed mutably
/// (exclusively) for the call.
fn method_mut_cb<T, A, R>(f: impl FnMut(&Lua, &mut T, A) -> Result<R> + 'static) -> Callback
where
    T: 'static,
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    let f = std::cell::RefCell::new(f);
    Rc::new(move |lua, args| {
        let this = receiver::<T>(lua, args)?;
        let a = A::from_raw_args(args.get(1..).unwrap_or(&[]), 2, lua)?;
        let mut guard = this.borrow_mut::<T>()?;
        let mut f = f.try_borrow_mut().map_err(|_| Error::runtime("userdata already borrowed"))?;
        f(lua, &mut guard, a)?.push_into_stack_multi(lua)
    })
}

fn function_cb<A, R>(f: impl Fn(&Lua, A) -> Result<R> + 'static) -> Callback
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    Rc::new(move |lua, args| f(lua, A::from_raw_args(args, 1, lua)?)?.push_into_stack_multi(lua))
}

impl<T: 'static> UserDataFields<T> for Registry<T> {
    fn add_field_method_get<R, F>(&mut self, name: impl Into<String>, get: F)
    where
        R: IntoLua,
        F: Fn(&Lua, &T) -> Result<R> + 'static,
    {
        let cb = method_ref_cb(move |lua, this: &T, (): ()| get(lua, this));
        self.getters.push((name.into(), cb));
    }

    fn add_field_method_set<A, F>(&mut self, name: impl Into<String>, mut set: F)
    where
        A: FromLua,
        F: FnMut(&Lua, &mut T, A) -> Result<()> + 'static,
    {
        let cb = method_mut_cb(move |lua, this: &mut T, a: A| set(lua, this, a));
        self.setters.push((name.into(), cb));
    }
}

impl<T: 'static> UserDataMethods<T> for Registry<T> {
    fn add_method<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &T, A) -> Result<R> + 'static,
    {
        self.methods.push((name.into(), method_ref_cb(f)));
    }

    fn add_method_mut<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: FnMut(&Lua, &mut T, A) -> Result<R> + 'static,
    {
        self.methods.push((name.into(), method_mut_cb(f)));
    }

    fn add_function<A, R, F>(&mut self, name: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static,
    {
        self.methods.push((name.into(), function_cb(f)));
    }

    fn add_meta_method<A, R, F>(&mut self, meta: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &T, A) -> Result<R> + 'static,
    {
        self.metas.push((meta.into(), method_ref_cb(f)));
    }

    fn add_meta_function<A, R, F>(&mut self, meta: impl Into<String>, f: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, A) -> Result<R> + 'static,
    {
        self.metas.push((meta.into(), function_cb(f)));
    }
}

/// The last path segment of `T`'s name.
fn short_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base)
}

/// The metatable of `T`, built on first use.
fn metatable_for<T: UserData>(lua: &Lua) -> Result<Raw> {
    let tid = TypeId::of::<T>();
    let known = lua.inner.ud_metas.borrow().iter().find(|(t, _)| *t == tid).map(|(_, p)| *p);
    if let Some(p) = known {
        return lua.with_state(|st| st.pinned(p));
    }
    let mut reg = Registry::<T> {
        methods: Vec::new(),
        getters: Vec::new(),
        setters: Vec::new(),
        metas: Vec::new(),
        _t: std::marker::PhantomData,
    };
    T::add_fields(&mut reg);
    T::add_methods(&mut reg);
    let fns = |list: Vec<(String, Callback)>| -> Result<Vec<(String, Function)>> {
        list.into_iter().map(|(n, cb)| Ok((n, lua.create_callback(cb)?))).collect()
    };
    let methods = fns(reg.methods)?;
    let getters = fns(reg.getters)?;
    let setters = fns(reg.setters)?;
    let metas = fns(reg.metas)?;
    let mt = lua.with_state(|st| {
        let mk = |st: &mut State, list: &[(String, Function)]| -> Raw {
            let t = st.new_table();
            for (n, f) in list {
                let k = st.new_string(n.as_bytes());
                st.table_set(t, k, f.0.raw(st));
            }
            t
        };
        let (m, g, s) = (mk(st, &methods), mk(st, &getters), mk(st, &setters));
        let mt = st.new_table();
        let mut user_index = Raw::Nil;
        let mut user_newindex = Raw::Nil;
        for (n, f) in &metas {
            let raw = f.0.raw(st);
            match n.as_str() {
                "__index" => user_index = raw,
                "__newindex" => user_newindex = raw,
                _ => {
                    let k = st.new_string(n.as_bytes());
                    st.table_set(mt, k, raw);
                }
            }
        }
        let index = if getters.is_empty() && user_index.is_nil() {
            m
        } else {
            let id = st.native_id("lua.ud_index", ud_index);
            st.new_rust_closure(id, vec![m, g, user_index])
        };
        let newindex = if setters.is_empty() {
            user_newindex
        } else {
            let id = st.native_id("lua.ud_newindex", ud_newindex);
            st.new_rust_closure(id, vec![s, user_newindex])
        };
        for (k, v) in [("__index", index), ("__newindex", newindex)] {
            let k = st.new_string(k.as_bytes());
            st.table_set(mt, k, v);
        }
        let k = st.new_string(b"__name");
        let name = st.new_string(short_name::<T>().as_bytes());
        st.table_set(mt, k, name);
        let p = st.pin(mt);
        (mt, p)
    })?;
    lua.inner.ud_metas.borrow_mut().push((tid, mt.1));
    Ok(mt.0)
}

/// [`Lua::create_userdata`].
pub(crate) fn create<T: UserData>(lua: &Lua, data: T) -> Result<AnyUserData> {
    let mt = metatable_for::<T>(lua)?;
    lua.with_state(|st| {
        let meta = match mt {
            Raw::Table(h) => Some(h),
            _ => None,
        };
        let cell = UdCell { value: Some(Rc::new(data)), destructed: false };
        let v = st.new_userdata(Box::new(cell), meta);
        match lua.wrap(st, v) {
            Value::UserData(u) => Ok(u),
            _ => Err(Error::runtime("userdata creation failed")),
        }
    })?
}

/// `__index` of userdata with field getters (upvalues: methods, getters,
/// user `__index`).
pub(crate) fn ud_index(st: &mut State) -> std::result::Result<Action, Error> {
    let (this, key) = (st.arg(1), st.heap.key(st.arg(2)));
    st.set_top(2);
    if let Raw::Table(g) = st.native_upvalue(1) {
        let f = st.heap.tables.get(g).get(key);
        if !f.is_nil() {
            st.push(f);
            st.push(this);
            return Ok(Action::Call { nargs: 1, nresults: 1, k: None });
        }
    }
    if let Raw::Table(m) = st.native_upvalue(0) {
        let f = st.heap.tables.get(m).get(key);
        if !f.is_nil() {
            st.push(f);
            return Ok(Action::Return(1));
        }
    }
    let user = st.native_upvalue(2);
    if user.is_nil() {
        st.push(Raw::Nil);
        return Ok(Action::Return(1));
    }
    st.push(user);
    st.push(this);
    st.push(key);
    Ok(Action::Call { nargs: 2, nresults: 1, k: None })
}

/// `__newindex` of userdata with field setters (upvalues: setters, user
/// `__newindex`).
pub(crate) fn ud_newindex(st: &mut State) -> std::result::Result<Action, Error> {
    let (this, key, val) = (st.arg(1), st.heap.key(st.arg(2)), st.arg(3));
    st.set_top(3);
    if let Raw::Table(s) = st.native_upvalue(0) {
        let f = st.heap.tables.get(s).get(key);
        if !f.is_nil() {
            st.push(f);
            st.push(this);
            st.push(val);
            return Ok(Action::Call { nargs: 2, nresults: 0, k: None });
        }
    }
    let user = st.native_upvalue(1);
    if user.is_nil() {
        let name = st.obj_typename(this);
        let k = String::from_utf8_lossy(&st.tostring(key)).into_owned();
        return Err(st.native_error(format!("attempt to set unknown field '{k}' of {name}")));
    }
    st.push(user);
    st.push(this);
    st.push(key);
    st.push(val);
    Ok(Action::Call { nargs: 3, nresults: 0, k: None })
}

/// A full userdata.
#[derive(Clone, Debug)]
pub struct AnyUserData(pub(crate) LuaRef);

impl PartialEq for AnyUserData {
    /// Identity.
    fn eq(&self, other: &AnyUserData) -> bool {
        self.0
            .lua()
            .with_state(|st| st.heap.raw_eq(self.0.raw(st), other.0.raw(st)))
            .unwrap_or(false)
    }
}

/// What looking for the value of a userdata found.
enum Found<T> {
    Value(Rc<T>),
    Borrowed,
    Destructed,
    WrongType(&'static str),
}

/// How [`AnyUserData::access`] reaches the value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// A shared reference (the cell keeps its `Rc`).
    Shared,
    /// The `Rc` moved out of the cell, unique.
    Exclusive,
    /// As `Exclusive`, and the cell marked destructed.
    Destruct,
}

impl AnyUserData {
    /// Whether the userdata holds a `T` (also while it is borrowed).
    pub fn is<T: 'static>(&self) -> bool {
        self.0
            .lua()
            .with_state(|st| match self.0.raw(st) {
                Raw::UserData(u) => st.heap.userdata.get(u).data.is::<UdCell<T>>(),
                _ => false,
            })
            .unwrap_or(false)
    }

    /// Reaches the value in the cell (see [`Access`]).
    fn access<T: 'static>(&self, how: Access) -> Result<Rc<T>> {
        let found = self.0.lua().with_state(|st| match self.0.raw(st) {
            Raw::UserData(u) => {
                let data = &mut st.heap.userdata.get_mut_storing(u, true).data;
                let name = data.type_name();
                match data.downcast_mut::<UdCell<T>>() {
                    Some(c) if c.destructed => Found::Destructed,
                    Some(c) => match (&c.value, how) {
                        (None, _) => Found::Borrowed,
                        (Some(v), Access::Shared) => Found::Value(v.clone()),
                        (Some(v), _) if Rc::strong_count(v) > 1 => Found::Borrowed,
                        (Some(_), _) => {
                            c.destructed = how == Access::Destruct;
                            c.value.take().map_or(Found::Borrowed, Found::Value)
                        }
                    },
                    None => Found::WrongType(name),
                }
            }
            _ => Found::WrongType("non-userdata"),
        })?;
        match found {
            Found::Value(v) => Ok(v),
            Found::Borrowed => Err(Error::runtime("userdata already borrowed")),
            Found::Destructed => Err(Error::runtime("userdata has been destructed")),
            Found::WrongType(name) => Err(Error::conversion(
                &format!("userdata ({name})"),
                std::any::type_name::<T>(),
                None,
            )),
        }
    }

    /// Puts an exclusively borrowed value back (now, or at the next API
    /// entry).
    fn put_back<T: 'static>(&self, v: Rc<T>) {
        let lua = self.0.lua();
        let slot = self.0.clone();
        let restore = move |st: &mut State| {
            if let Raw::UserData(u) = slot.raw(st) {
                if let Some(c) =
                    st.heap.userdata.get_mut_storing(u, true).data.downcast_mut::<UdCell<T>>()
                {
                    c.value = Some(v);
                }
            }
        };
        let mut restore = Some(restore);
        let _ = lua.with_state(|st| {
            if let Some(f) = restore.take() {
                f(st)
            }
        });
        if let Some(f) = restore {
            lua.inner.defer_restore(Box::new(f));
        }
    }

    /// Borrows the value as a `&T`. Shared borrows coexist (a method may
    /// call Lua code that reads the same object); a shared borrow fails
    /// while the value is mutably borrowed.
    pub fn borrow<T: 'static>(&self) -> Result<UserDataRef<T>> {
        Ok(UserDataRef(self.access::<T>(Access::Shared)?))
    }

    /// Borrows the value as a `&mut T`, exclusively: fails while any other
    /// borrow of it is held ("userdata already borrowed").
    pub fn borrow_mut<T: 'static>(&self) -> Result<UserDataRefMut<T>> {
        let v = self.access::<T>(Access::Exclusive)?;
        Ok(UserDataRefMut { ud: self.clone(), value: Some(v) })
    }

    /// Moves the value out; the userdata is unusable afterwards. Fails
    /// while the value is borrowed.
    pub fn take<T: 'static>(&self) -> Result<T> {
        let v = self.access::<T>(Access::Destruct)?;
        // Unique: `access` checked the count and the cell is now empty.
        Rc::try_unwrap(v).map_err(|_| Error::runtime("userdata already borrowed"))
    }
}

/// A shared borrow of a userdata value (see [`AnyUserData::borrow`]).
pub struct UserDataRef<T: 'static>(Rc<T>);

impl<T: 'static> std::ops::Deref for UserDataRef<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A mutable borrow of a userdata value (see [`AnyUserData::borrow_mut`]);
/// the value goes back into the userdata when this guard is dropped.
pub struct UserDataRefMut<T: 'static> {
    ud: AnyUserData,
    /// Always `Some` (and unique) until dropped.
    value: Option<Rc<T>>,
}

impl<T: 'static> std::ops::Deref for UserDataRefMut<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.value {
            Some(v) => v,
            None => unreachable!("userdata guard used after drop"),
        }
    }
}

impl<T: 'static> std::ops::DerefMut for UserDataRefMut<T> {
    fn deref_mut(&mut self) -> &mut T {
        // Unique: the `Rc` left the cell when its count was 1, and nothing
        // can clone it while it is out.
        match self.value.as_mut().and_then(Rc::get_mut) {
            Some(v) => v,
            None => unreachable!("exclusive userdata borrow is not unique"),
        }
    }
}

impl<T: 'static> Drop for UserDataRefMut<T> {
    fn drop(&mut self) {
        if let Some(v) = self.value.take() {
            self.ud.put_back(v);
        }
    }
}

impl<T: 'static> FromLua for UserDataRef<T> {
    fn from_lua(value: Value, lua: &Lua) -> Result<Self> {
        AnyUserData::from_lua(value, lua)?.borrow::<T>()
    }
}

impl<T: 'static> FromLua for UserDataRefMut<T> {
    fn from_lua(value: Value, lua: &Lua) -> Result<Self> {
        AnyUserData::from_lua(value, lua)?.borrow_mut::<T>()
    }
}

impl<T: UserData> IntoLua for T {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Ok(Value::UserData(lua.create_userdata(self)?))
    }
}

impl<T> std::fmt::Debug for UserDataRef<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserDataRef<{}>", std::any::type_name::<T>())
    }
}
