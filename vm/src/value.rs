//! Lua values.
//!
//! A [`Value`] is 16 bytes and `Copy`: a tag and either an immediate
//! (nil, boolean, integer, float) or a 32-bit [`Handle`] into one of the
//! heap's arenas. Copying a value never touches the heap and never counts
//! references; reachability is the tracing collector's business alone.
//!
//! Strings are interned but for the loose results of long concatenations
//! (`string.rs`): two strings of different handles have different bytes
//! unless one of them is loose, and a table key is never loose, so a table
//! hashes a string key by its handle.
//!
//! **Invariant:** no value's identity or hash depends on a machine address.
//! Handles are allocation indices, reproducible by replaying the program.

use crate::arena::Handle;
use crate::func::{LuaClosure, RustClosure};
use crate::string::LuaStr;
use crate::table::Table;
use crate::thread::Thread;
use crate::userdata::UserData;
use std::mem::MaybeUninit;

/// Handle to a string.
pub type StrRef = Handle<LuaStr>;
/// Handle to a table.
pub type TableRef = Handle<Table>;
/// Handle to a Lua closure.
pub type LuaFnRef = Handle<LuaClosure>;
/// Handle to a Rust function (with optional upvalues).
pub type RustFnRef = Handle<RustClosure>;
/// Handle to a coroutine.
pub type ThreadRef = Handle<Thread>;
/// Handle to a full userdata.
pub type UserDataRef = Handle<UserData>;

/// A Lua value.
///
/// `repr(C, u64)`: the tag is a whole 64-bit word and the payload the next
/// word, so a value is two machine words that are written and read whole
/// (a one-byte tag would make stores partial and defeat store-to-load
/// forwarding when the value is later copied as 16 bytes).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, u64)]
pub enum Value {
    /// `nil`.
    #[default]
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// A string.
    Str(StrRef),
    /// A table.
    Table(TableRef),
    /// A Lua function (closure over a prototype).
    LuaFn(LuaFnRef),
    /// A function implemented in Rust.
    RustFn(RustFnRef),
    /// A coroutine.
    Thread(ThreadRef),
    /// A full userdata.
    UserData(UserDataRef),
}

/// The basic types, as `type()` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// nil
    Nil,
    /// boolean
    Boolean,
    /// number
    Number,
    /// string
    String,
    /// table
    Table,
    /// function
    Function,
    /// thread
    Thread,
    /// userdata
    UserData,
}

impl Type {
    /// The number of basic types.
    pub const N: usize = 8;

    /// Every type, in declaration order (`ALL[t as usize] == t`).
    pub const ALL: [Type; Type::N] = [
        Type::Nil,
        Type::Boolean,
        Type::Number,
        Type::String,
        Type::Table,
        Type::Function,
        Type::Thread,
        Type::UserData,
    ];

    /// The name `type()` returns.
    pub const fn name(self) -> &'static str {
        match self {
            Type::Nil => "nil",
            Type::Boolean => "boolean",
            Type::Number => "number",
            Type::String => "string",
            Type::Table => "table",
            Type::Function => "function",
            Type::Thread => "thread",
            Type::UserData => "userdata",
        }
    }
}

/// A [`Value`] as its two machine words, for crossing a function boundary
/// in registers.
///
/// `Value` is `#[repr(C, u64)]`, an aggregate to the Rust ABI: passed by
/// pointer and returned through memory. A value that an out-of-line call
/// may receive or produce therefore lives in a stack slot of the caller,
/// written (and, where control flow merges, read back) on the fast path
/// too: in the dispatch loop, four stores and two loads per GETTABLE of an
/// array slot. Two `MaybeUninit<u64>` make a scalar pair instead, which
/// travels in two registers both ways. Convert at the boundary only
/// ([`Value::words`], [`Words::value`]); both are free.
#[derive(Clone, Copy)]
#[allow(dead_code, reason = "read whole, through `transmute`")]
pub(crate) struct Words(MaybeUninit<u64>, MaybeUninit<u64>);

// [`Words::NIL`]'s premise, checked at compile time: `Value::Nil`'s tag is
// 0 (the first variant of a `repr(C, u64)` enum).
const _: () = {
    // SAFETY: a `Value` is 16 bytes whose first word, the tag, is always
    // initialized; the payload word is kept as `MaybeUninit`.
    let w = unsafe { std::mem::transmute::<Value, [MaybeUninit<u64>; 2]>(Value::Nil) };
    // SAFETY: the tag word is initialized (above).
    assert!(unsafe { w[0].assume_init() } == 0);
};

impl Words {
    /// `nil`, both words written (the tag, 0, and a zero payload).
    pub(crate) const NIL: Words = Words(MaybeUninit::new(0), MaybeUninit::new(0));

    /// The value these words hold.
    #[inline(always)]
    pub(crate) fn value(self) -> Value {
        // SAFETY: `Words` only comes from `Value::words` or is `NIL` (its
        // fields are private to this module): the bytes of a valid `Value`
        // (same size, 16, and alignment, 8; `NIL` is the tag of `Nil`, 0,
        // and a payload it ignores), uninitialized payload bytes included,
        // which `MaybeUninit` may hold.
        unsafe { std::mem::transmute::<Words, Value>(self) }
    }
}

impl Value {
    /// The value as two machine words (see [`Words`]).
    #[inline(always)]
    pub(crate) fn words(self) -> Words {
        const _: () = assert!(size_of::<Value>() == size_of::<Words>());
        const _: () = assert!(align_of::<Value>() == align_of::<Words>());
        // SAFETY: same size and alignment (asserted above); every byte
        // pattern, uninitialized ones too, is a valid `MaybeUninit<u64>`.
        unsafe { std::mem::transmute::<Value, Words>(self) }
    }
}

impl Value {
    /// A copy of the value read as two 8-byte words ([`crate::execute::load`]).
    ///
    /// For natives that take a value from where it was just written in
    /// pieces — a result merged from a fast and a slow path, a slot
    /// filled field by field: a plain copy reads it with one 16-byte load,
    /// which waits for the narrower stores to reach the cache.
    #[inline(always)]
    pub fn copy_words(&self) -> Value {
        crate::execute::load(self)
    }

    /// The value's basic type.
    #[inline]
    pub fn type_of(self) -> Type {
        match self {
            Value::Nil => Type::Nil,
            Value::Bool(_) => Type::Boolean,
            Value::Int(_) | Value::Float(_) => Type::Number,
            Value::Str(_) => Type::String,
            Value::Table(_) => Type::Table,
            Value::LuaFn(_) | Value::RustFn(_) => Type::Function,
            Value::Thread(_) => Type::Thread,
            Value::UserData(_) => Type::UserData,
        }
    }

    /// The name `type()` returns for this value.
    #[inline]
    pub fn type_name(self) -> &'static str {
        self.type_of().name()
    }

    /// Lua truthiness: everything but `nil` and `false` is true.
    #[inline(always)]
    pub fn truthy(self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// True for `nil`.
    #[inline(always)]
    pub fn is_nil(self) -> bool {
        matches!(self, Value::Nil)
    }

    /// True for functions of either kind.
    #[inline]
    pub fn is_function(self) -> bool {
        matches!(self, Value::LuaFn(_) | Value::RustFn(_))
    }

    /// Primitive equality (`rawequal`) where no loose string is involved:
    /// numbers by mathematical value (`1 == 1.0`), everything else by
    /// identity, strings by handle. Two strings of different handles have
    /// different bytes unless one is loose (`string.rs`): where one may be,
    /// use [`crate::heap::Heap::raw_eq`].
    #[inline]
    pub fn raw_eq_interned(self, other: Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
                crate::number::int_eq_float(i, f)
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Table(a), Value::Table(b)) => a == b,
            (Value::LuaFn(a), Value::LuaFn(b)) => a == b,
            (Value::RustFn(a), Value::RustFn(b)) => a == b,
            (Value::Thread(a), Value::Thread(b)) => a == b,
            (Value::UserData(a), Value::UserData(b)) => a == b,
            _ => false,
        }
    }

    /// Whether `self == other` may call an `__eq` metamethod when the two
    /// are not raw-equal: both tables or both full userdata.
    #[inline(always)]
    pub(crate) fn may_have_eq_tm(self, other: Value) -> bool {
        matches!(
            (self, other),
            (Value::Table(_), Value::Table(_)) | (Value::UserData(_), Value::UserData(_))
        )
    }
}
