//! Metamethods and the slow paths of the operators (`ltm.c` plus the
//! non-fast halves of `lvm.c`'s operations).
//!
//! The dispatch loop handles the common cases inline (numbers, raw table
//! hits) and calls into this module otherwise. An operation that needs a
//! Lua metamethod does not call it recursively: it pushes a *metamethod
//! frame* (`State::call_meta`) whose [`MetaRet`] tells the return path what
//! to do with the result — store it in a register, decide a conditional
//! jump, continue a concatenation — so metamethods run in the same
//! interpreter loop and a coroutine can yield inside them.
//!
//! Natives that need the same operations use the `*_value` helpers, which
//! run metamethods through a nested (non-yieldable) call.
//!
//! Metamethod absence is cached per metatable in `Table::flags` for the
//! first six events (`__index` .. `__eq`), as `fasttm` in PUC Lua; the
//! table resets the cache on any string-key write. The dispatch loop walks
//! `__index` chains made only of tables itself (`index_via_meta`, using
//! the same cache), the common case of method lookup through classes.
//!
//! Arithmetic on strings: in Lua 5.4 the string library's metatable
//! provides the arithmetic metamethods that convert strings to numbers. We
//! emulate that natively (unless a string metatable supplies its own
//! metamethod), with the same results and messages (`attempt to add a
//! 'string' with a 'table'`). Bitwise operators do not coerce strings, as
//! in 5.4.

use std::cell::Cell;

use crate::debug::Operand;
use crate::error::Error;
use crate::execute::load;
use crate::heap::Heap;
use crate::number::{self, ArithError};
use crate::state::State;
use crate::table::TableView;
use crate::thread::MetaRet;
use crate::value::{StrRef, TableRef, Type, Value, Words};

/// Number of interned metamethod names.
pub const TM_N: usize = 29;

/// Event names, indexed by the `TM_*` constants.
pub const TM_NAMES: [&str; TM_N] = [
    "__index",
    "__newindex",
    "__gc",
    "__mode",
    "__len",
    "__eq",
    "__add",
    "__sub",
    "__mul",
    "__mod",
    "__pow",
    "__div",
    "__idiv",
    "__band",
    "__bor",
    "__bxor",
    "__shl",
    "__shr",
    "__unm",
    "__bnot",
    "__lt",
    "__le",
    "__concat",
    "__call",
    "__close",
    "__name",
    "__tostring",
    "__metatable",
    "__pairs",
];

/// `__index`.
pub const TM_INDEX: usize = 0;
/// `__newindex`.
pub const TM_NEWINDEX: usize = 1;
/// `__gc`.
pub const TM_GC: usize = 2;
/// `__mode`.
pub const TM_MODE: usize = 3;
/// `__len`.
pub const TM_LEN: usize = 4;
/// `__eq`.
pub const TM_EQ: usize = 5;
/// `__lt`.
pub const TM_LT: usize = 20;
/// `__le`.
pub const TM_LE: usize = 21;
/// `__concat`.
pub const TM_CONCAT: usize = 22;
/// `__call`.
pub const TM_CALL: usize = 23;
/// `__close`.
pub const TM_CLOSE: usize = 24;
/// `__name`.
pub const TM_NAME: usize = 25;
/// `__tostring`.
pub const TM_TOSTRING: usize = 26;
/// `__metatable`.
pub const TM_METATABLE: usize = 27;
/// `__pairs`.
pub const TM_PAIRS: usize = 28;

/// Maximum length of an `__index`/`__newindex` chain (`MAXTAGLOOP`).
const MAX_TAG_LOOP: usize = 2000;

/// Arithmetic and bitwise operators, numbered as their events (`TM_ADD`..).
pub use crate::number::ArithOp;

/// Outcome of a numeric operation on two numbers.
pub(crate) enum NumRes {
    Val(Value),
    /// An operand is not a number.
    NotNum,
    /// Bitwise operand without an integer representation.
    NoInt,
    /// Error message (division by zero).
    Err(&'static str),
}

/// `luaO_rawarith` on number values (no coercion of strings), with the
/// VM's messages for its errors.
pub(crate) fn arith_num(op: ArithOp, a: Value, b: Value) -> NumRes {
    let (Some(x), Some(y)) = (number::as_number(a), number::as_number(b)) else {
        return NumRes::NotNum;
    };
    match number::arith(op, x, y) {
        Ok(n) => NumRes::Val(n.into()),
        Err(ArithError::NoInteger) => NumRes::NoInt,
        Err(ArithError::ModByZero) => NumRes::Err("attempt to perform 'n%0'"),
        Err(ArithError::DivByZero) => NumRes::Err("attempt to divide by zero"),
    }
}

/// The dispatch loop's SELF on a string receiver (`s:sub(i, j)`, the
/// common case of a method call on a string): the method `ks` in the
/// `__index` table of the string metatable `mt`. Both lookups are hinted
/// (`mt_hint` for `__index` in the metatable, `hint` the SELF
/// instruction's for the method in the library table): both tables have
/// too many keys to be scanned, and without hints every call hashed two
/// keys and probed twice, 180 instructions. `None` unless `__index` is a
/// table holding a non-nil `ks`: the caller then takes `index_op`, which
/// walks the whole chain. Out of line, and taking the heap alone, so the
/// loop can call it with its registers borrowed.
#[inline(never)]
pub(crate) fn string_method(
    heap: &Heap,
    mt: Option<TableRef>,
    tm_index: StrRef,
    mt_hint: &Cell<u32>,
    ks: StrRef,
    hint: &Cell<u32>,
) -> Option<Value> {
    let Value::Table(lib) = heap.tables.get(mt?).get_str_hinted(tm_index, mt_hint) else {
        return None;
    };
    let v = heap.tables.get(lib).get_str_hinted(ks, hint);
    (!v.is_nil()).then_some(v)
}

/// Result of an `__index` chain walk.
pub(crate) enum Idx {
    /// The value.
    Val(Value),
    /// Call metamethod `tm` with `(t, key)`.
    Call(Value, Value),
}

/// The fast half of `index_chain` for the dispatch loop: the lookup found
/// nil in a table whose metatable is `mt`; follow `__index` while it is a
/// table (`get` reads a table raw), using the absence cache. `None` when a
/// metamethod must be called or the chain is long: the caller takes the
/// slow path, which starts over (the walk has no side effect but the
/// cache). Takes the heap alone so the loop can call it with the stack
/// borrowed.
#[inline]
pub(crate) fn index_via_meta(
    heap: &mut Heap,
    tm_index: StrRef,
    mut mt: TableRef,
    get: impl Fn(TableView<'_>) -> Value,
) -> Option<Value> {
    for _ in 0..FAST_CHAIN {
        let m = heap.tables.get(mt);
        if m.flags & (1 << TM_INDEX) != 0 {
            return Some(Value::Nil);
        }
        let h = match m.get_str(tm_index) {
            Value::Table(h) => h,
            Value::Nil => {
                heap.tables.cache_tm_absent(mt, 1 << TM_INDEX);
                return Some(Value::Nil);
            }
            _ => return None,
        };
        let tab = heap.tables.get(h);
        let v = get(tab);
        if !v.is_nil() {
            return Some(v);
        }
        match tab.meta {
            Some(next) => mt = next,
            None => return Some(Value::Nil),
        }
    }
    None
}

/// `t[ks] = v` for the dispatch loop's SETFIELD and SETTABUP when `ks` is
/// not a live key of `h`: stored raw, with growth accounting, when the
/// assignment is raw ([`crate::table::Tables::sets_raw`]); false, nothing
/// done, when `__newindex` may apply. Takes the heap alone (the loop has the
/// stack borrowed) and is out of line: inserting a key is rarer than
/// updating one, and the loop's hot code stays short.
#[inline(never)]
pub(crate) fn set_str_new(heap: &mut Heap, h: TableRef, ks: StrRef, v: Value) -> bool {
    // `__newindex` may apply: asked once here, not by both writers below.
    if !heap.tables.sets_raw(h) {
        return false;
    }
    heap.tables.set_str_simple(h, ks, v) || set_str_general(heap, h, ks, v)
}

/// [`set_str_new`] when [`crate::table::Tables::set_str_simple`] did not
/// apply (a hook is set, `__newindex` may apply, or the hash part is full):
/// through a [`crate::table::TableMut`], which serves the hooks and may
/// rehash. Out of line, so that `set_str_new` stays short.
#[cold]
#[inline(never)]
fn set_str_general(heap: &mut Heap, h: TableRef, ks: StrRef, v: Value) -> bool {
    if !heap.tables.sets_raw(h) {
        return false;
    }
    heap.table_write(h, |tab| tab.set_str(ks, v));
    true
}

/// Levels of `__index` tables [`index_via_meta`] follows.
const FAST_CHAIN: usize = 8;

impl State {
    /// SETLIST's stores: `n` values from register slot `ra + 1` into the
    /// table at `ra`, from index `last + 1`. Out of the loop: the common
    /// case, a constructor's values copied into the array part it sized
    /// (`Tables::set_list_simple`), is a call either way.
    #[inline(never)]
    pub(crate) fn set_list(&mut self, ra: usize, n: usize, last: usize) {
        let Value::Table(h) = self.ex.stack[ra] else { return };
        self.set_list_at(h, ra + 1, n, last);
    }

    /// Raw `h[last + 1 ..= last + n] = stack[from .. from + n]`, as SETLIST
    /// stores them (also `table.pack`'s stores, through
    /// `State::raw_set_list_from_args`).
    pub(crate) fn set_list_at(&mut self, h: TableRef, from: usize, n: usize, last: usize) {
        let vals = &self.ex.stack[from..from + n];
        if self.heap.tables.set_list_simple(h, last, vals) {
            return;
        }
        // Past the array (`{...}`, `{f()}`: a constructor whose size was
        // not known): the array grows to the size, then takes the values
        // in one copy where nothing needs to hear of the stores.
        let grown = self.heap.table_write(h, |tab| {
            let grow = last + n > tab.array_len_raw();
            if grow {
                tab.resize_array(last + n);
            }
            grow
        });
        if grown && self.heap.tables.set_list_simple(h, last, vals) {
            return;
        }
        self.heap.table_write(h, |tab| {
            for (j, &v) in vals.iter().enumerate() {
                tab.set_int((last + j + 1) as i64, v);
            }
        });
    }

    /// The metamethod `tm` of metatable `mt`, using the absence cache for
    /// the first events.
    ///
    /// Out of line (the dispatch loop calls it); the lookup is
    /// `get_str_words`, out of line itself with its answer in registers,
    /// so that this function keeps few registers of its own.
    #[inline(never)]
    pub(crate) fn fast_tm(&mut self, mt: TableRef, tm: usize) -> Value {
        self.fast_tm_inline(mt, tm)
    }

    /// [`State::fast_tm`], inline in a caller that is out of the loop
    /// itself (`index_op`, `arith_slow`, `newindex_op`, `order_tm`): one
    /// function entry fewer, and the answer in registers.
    #[inline(always)]
    fn fast_tm_inline(&mut self, mt: TableRef, tm: usize) -> Value {
        // SAFETY: `mt` is a metatable, held by a live object or by the
        // state's type metatables, which the collector reaches: a live
        // table (`Tables::get_live`).
        let t = unsafe { self.heap.tables.get_live(mt) };
        if tm < 8 && t.flags & (1 << tm) != 0 {
            return Value::Nil;
        }
        let v = t.get_str_words_hinted(self.tm_names[tm], &self.tm_hints[tm]).value();
        if v.is_nil() && tm < 8 {
            self.cache_tm_absent(mt, tm);
        }
        v
    }

    /// Records in metatable `mt` that it has no event `tm` (one of the
    /// first eight): out of `fast_tm`'s line, as a miss is cached once.
    #[cold]
    #[inline(never)]
    fn cache_tm_absent(&mut self, mt: TableRef, tm: usize) {
        self.heap.tables.cache_tm_absent(mt, 1 << tm);
    }

    /// The metamethod `tm` of any value (`luaT_gettmbyobj`).
    #[inline]
    pub(crate) fn tm_of(&mut self, v: Value, tm: usize) -> Value {
        match self.metatable(v) {
            Some(mt) => self.fast_tm(mt, tm),
            None => Value::Nil,
        }
    }

    /// A field of the metatable of `v` (`luaL_getmetafield`), by name.
    pub fn get_metafield(&mut self, v: Value, name: &[u8]) -> Option<Value> {
        let mt = self.metatable(v)?;
        let k = self.heap.interner.find(&self.heap.strings, name)?;
        let r = self.heap.tables.get(mt).get_str(k);
        (!r.is_nil()).then_some(r)
    }

    /// Type name for messages: `__name` of the metatable if it is a
    /// string, else the basic type name (`luaT_objtypename`).
    pub fn obj_typename(&mut self, v: Value) -> String {
        if let Some(mt) = self.heap.own_meta(v) {
            if let Value::Str(s) = self.heap.tables.get(mt).get_str(self.tm_names[TM_NAME]) {
                return String::from_utf8_lossy(self.heap.str(s)).into_owned();
            }
        }
        v.type_name().to_string()
    }

    /// `attempt to <op> a <type> value<varinfo>` (`luaG_typeerror`).
    #[cold]
    pub(crate) fn type_error(&mut self, v: Value, op: &str, o: Operand) -> Error {
        let t = self.obj_typename(v);
        let mut msg = Vec::with_capacity(64);
        msg.extend_from_slice(b"attempt to ");
        msg.extend_from_slice(op.as_bytes());
        msg.extend_from_slice(b" a ");
        msg.extend_from_slice(t.as_bytes());
        msg.extend_from_slice(b" value");
        self.varinfo_into(o, &mut msg);
        self.rt_error_bytes(&msg)
    }

    /// Pushes a metamethod frame: calls `f(args)` with one result handled
    /// per `ret`. The arguments go above the running Lua frame's registers.
    /// A Lua function, the common case, has its frame pushed here, for the
    /// loop to run next (`precall`'s work without its dispatch); anything
    /// else goes through `precall`.
    #[cold]
    #[inline(never)]
    pub(crate) fn call_meta<const N: usize>(
        &mut self,
        f: Value,
        args: &[Value; N],
        ret: MetaRet,
    ) -> Result<(), Error> {
        self.call_meta_inline(f, args, ret)
    }

    /// [`State::call_meta`], inline in a caller that is out of the loop
    /// itself (`index_op`, `arith_slow`, `newindex_op`).
    #[inline(always)]
    fn call_meta_inline<const N: usize>(
        &mut self,
        f: Value,
        args: &[Value; N],
        ret: MetaRet,
    ) -> Result<(), Error> {
        let func = self.ex.stack.len();
        self.ex.stack.push_call(f, args);
        self.charge(crate::limits::CALL_COST)?;
        // A metamethod frame holds a C-call level (`ccount.rs`), taken
        // once a Lua function's frame is pushed, before a native runs.
        let i = self.ex.frames.len();
        self.test_frame_ccall()?;
        match f {
            Value::LuaFn(cl) => {
                self.push_lua_frame::<false>(func, cl, 1, ret)?;
                self.n_ccalls += 1;
                Ok(())
            }
            _ => {
                self.n_ccalls += 1;
                let r = self.precall_charged(func, 1, ret).map(|_| ());
                if r.is_err() {
                    self.abort_frame_ccall(i);
                }
                r
            }
        }
    }

    // ----- indexing ----------------------------------------------------

    /// Walks the `__index` chain from `t` (`luaV_finishget`), up to a
    /// function metamethod to call.
    pub(crate) fn index_chain(
        &mut self,
        mut t: Value,
        key: Value,
        o: Operand,
    ) -> Result<Idx, Error> {
        let key = self.heap.key(key);
        for loop_n in 0..MAX_TAG_LOOP {
            let tm = if let Value::Table(h) = t {
                let tab = self.heap.tables.get(h);
                let v = tab.get(key);
                if !v.is_nil() {
                    return Ok(Idx::Val(v));
                }
                let Some(mt) = tab.meta else { return Ok(Idx::Val(Value::Nil)) };
                let tm = self.fast_tm(mt, TM_INDEX);
                if tm.is_nil() {
                    return Ok(Idx::Val(Value::Nil));
                }
                tm
            } else {
                let tm = self.tm_of(t, TM_INDEX);
                if tm.is_nil() {
                    let o = if loop_n == 0 { o } else { Operand::None };
                    return Err(self.type_error(t, "index", o));
                }
                tm
            };
            if tm.is_function() {
                return Ok(Idx::Call(tm, t));
            }
            t = tm;
        }
        Err(self.rt_error("'__index' chain too long; possible loop"))
    }

    /// `t[key]` for the dispatch loop: `Some(v)` or a metamethod frame was
    /// pushed (result into register `a`).
    ///
    /// Called only by the loop's `index_slow!`, after its fast path: for a
    /// table `t` and a string `key`, that fast path found `t[key]` raw nil
    /// (GETFIELD, GETTABUP and SELF look string keys up, GETTABLE every
    /// key, a loose string by its twin), and this function does not look
    /// again. A function `__index` gets `key` as it is; the general walk
    /// (`index_chain`) looks a loose string up by its twin (`string.rs`).
    #[cold]
    #[inline(never)]
    pub(crate) fn index_op(
        &mut self,
        t: Value,
        key: Value,
        o: Operand,
        ret: MetaRet,
    ) -> Result<Option<Value>, Error> {
        // The loop wrote the operands for this call word by word: read
        // them so (`execute::load`), not as one 16-byte load each, which
        // would wait for both stores (store forwarding).
        let (t, key) = (load(&t), load(&key));
        // A table whose `__index` is a function, the common case here (the
        // loop walks tables of tables itself): the metamethod is called
        // at once, without the general walk, its lookup and its frame's
        // push inline (`opcost.py` meta_index_fn: see RESULTS part 28).
        if let Value::Table(h) = t {
            let tab = self.heap.tables.get(h);
            // A string key was looked up by the fast path (see above).
            let absent = match key {
                Value::Str(_) => {
                    debug_assert!(tab.get(key).is_nil(), "the fast path's lookup");
                    true
                }
                Value::Int(i) => tab.get_int(i).is_nil(),
                _ => tab.get(key).is_nil(),
            };
            if let (true, Some(mt)) = (absent, tab.meta) {
                let tm = self.fast_tm_inline(mt, TM_INDEX);
                if tm.is_function() {
                    self.call_meta_inline(tm, &[t, key], ret)?;
                    return Ok(None);
                }
            }
        }
        // A string's method (`s.sub` outside a call): the lookup SELF
        // makes, with a hint of its own. A nil takes the general walk,
        // which raises the error when the metatable has no `__index`.
        if let (Value::Str(_), Value::Str(ks)) = (t, key) {
            let mt = self.type_meta[Type::String as usize];
            let tm = self.tm_names[TM_INDEX];
            if let Some(v) =
                string_method(&self.heap, mt, tm, &self.str_meta_hint, ks, &Cell::new(0))
            {
                return Ok(Some(v));
            }
        }
        match self.index_chain(t, key, o)? {
            Idx::Val(v) => Ok(Some(v)),
            Idx::Call(tm, tt) => {
                self.call_meta(tm, &[tt, key], ret)?;
                Ok(None)
            }
        }
    }

    /// `t[key]` with metamethods, for natives (nested call).
    pub fn index_value(&mut self, t: Value, key: Value) -> Result<Value, Error> {
        match self.index_chain(t, key, Operand::None)? {
            Idx::Val(v) => Ok(v),
            Idx::Call(tm, tt) => Ok(self.call_value1(tm, &[tt, key])?),
        }
    }

    /// Raw set with the key errors of `luaH_set` and growth accounting.
    pub(crate) fn raw_set_checked(
        &mut self,
        t: TableRef,
        key: Value,
        v: Value,
    ) -> Result<(), Error> {
        let key = self.heap.key_mut(key);
        match self.heap.table_write(t, |tab| tab.set(key, v)) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.rt_error(e.to_string())),
        }
    }

    /// Walks the `__newindex` chain (`luaV_finishset`): `None` when the
    /// value was stored, or a metamethod `(tm, t)` to call with `(t, k, v)`.
    pub(crate) fn newindex_chain(
        &mut self,
        mut t: Value,
        key: Value,
        val: Value,
        o: Operand,
    ) -> Result<Option<(Value, Value)>, Error> {
        let key = self.heap.key(key);
        for loop_n in 0..MAX_TAG_LOOP {
            let tm = if let Value::Table(h) = t {
                let tab = self.heap.tables.get(h);
                let tm = match tab.meta {
                    Some(mt) if tab.get(key).is_nil() => self.fast_tm(mt, TM_NEWINDEX),
                    _ => Value::Nil,
                };
                if tm.is_nil() {
                    self.raw_set_checked(h, key, val)?;
                    return Ok(None);
                }
                tm
            } else {
                let tm = self.tm_of(t, TM_NEWINDEX);
                if tm.is_nil() {
                    let o = if loop_n == 0 { o } else { Operand::None };
                    return Err(self.type_error(t, "index", o));
                }
                tm
            };
            if tm.is_function() {
                return Ok(Some((tm, t)));
            }
            t = tm;
        }
        Err(self.rt_error("'__newindex' chain too long; possible loop"))
    }

    /// SETTABLE and SETI (`i`, in the frame whose registers start at
    /// `base`) past the loop's array-part paths: an update of a string key,
    /// a raw set, or `__newindex`. It reads its operands from the frame
    /// itself, so that the loop holds none of them past its fast paths (a
    /// value live across a call is kept in memory, written on the fast path
    /// too). True if a `__newindex` frame was pushed.
    #[inline(never)]
    pub(crate) fn settable_op(
        &mut self,
        i: luprex_compiler::Instruction,
        base: usize,
    ) -> Result<bool, Error> {
        // Word by word (`execute::load`): the loop has often just written
        // the key or the value so, and a 16-byte load of it would wait for
        // both stores (store forwarding).
        let reg = |r: u32| load(&self.ex.stack[base + r as usize]);
        let t = reg(i.a());
        let key = if i.op_raw() == luprex_compiler::OpCode::SetTable as u8 {
            reg(i.b())
        } else {
            Value::Int(i64::from(i.b()))
        };
        let v = if i.k() {
            let ci = self.ex.frames.last().expect("SETTABLE runs in a frame");
            self.frame_proto(ci).expect("SETTABLE runs in a Lua frame").k[i.c() as usize]
        } else {
            reg(i.c())
        };
        if let Value::Table(h) = t {
            if let Value::Str(ks) = key {
                // SAFETY: `h` is in a register of the running frame, which the
                // collector marks: a live table.
                if unsafe { self.heap.tables.set_str_existing::<false>(h, ks, v, None) } {
                    return Ok(false);
                }
                // A new key or a tombstone's as SETFIELD's (`set_str_new`:
                // no `TableMut` unless a rehash or a hook needs one); a loose
                // string goes by its twin, below.
                if self.heap.strings.get(ks).is_registered()
                    && set_str_new(&mut self.heap, h, ks, v)
                {
                    return Ok(false);
                }
            }
            // An integer key present in the hash part: an update in place.
            if let Value::Int(n) = key {
                // SAFETY: as above.
                if unsafe { self.heap.tables.set_int_existing(h, n, v) } {
                    return Ok(false);
                }
            }
            if self.heap.tables.sets_raw(h) {
                self.raw_set_checked(h, key, v)?;
                return Ok(false);
            }
            // A `__newindex` function and an integer key the table lacks
            // (a proxy's store): the call at once, as `newindex_op`'s own
            // first case, without a second call and the operands' trip
            // through memory to it (`p[i % 100] = i` on such a proxy: the
            // two functions' 274 instructions a store became 226).
            if let Value::Int(n) = key {
                let absent = self.heap.tables.get(h).get_int(n).is_nil();
                if self.newindex_fn_at_once(h, absent, [t, key, v])? {
                    return Ok(true);
                }
            }
        }
        let depth = self.ex.frames.len();
        self.newindex_op(t, key, v, Operand::Reg(i.a()))?;
        Ok(self.ex.frames.len() != depth)
    }

    /// `t[key] = val` for the dispatch loop (may push a `__newindex` frame).
    #[cold]
    #[inline(never)]
    pub(crate) fn newindex_op(
        &mut self,
        t: Value,
        key: Value,
        val: Value,
        o: Operand,
    ) -> Result<(), Error> {
        // Read word by word, as in `index_op`.
        let (t, key, val) = (load(&t), load(&key), load(&val));
        // A table without the key whose `__newindex` is a function, the
        // common case here: the metamethod is called at once, its lookup
        // and its frame's push inline, without the general walk.
        if let Value::Table(h) = t {
            let tab = self.heap.tables.get(h);
            // An integer key straight to the array part, then the hash
            // part's own probe (`get_words`'s dispatch cost 27 instructions).
            let absent = match key {
                Value::Int(i) => tab.get_int(i).is_nil(),
                _ => tab.get(self.heap.key(key)).is_nil(),
            };
            if self.newindex_fn_at_once(h, absent, [t, key, val])? {
                return Ok(());
            }
        }
        if let Some((tm, tt)) = self.newindex_chain(t, key, val, o)? {
            self.call_meta_inline(tm, &[tt, key, val], MetaRet::Discard)?;
        }
        Ok(())
    }

    /// The common case of an assignment through `__newindex` (for
    /// `settable_op` and `newindex_op`): table `h` lacks the key
    /// (`absent`) and its metatable's `__newindex` is a function, called
    /// at once with `args` (table, key, value), without the general walk.
    /// True if it was called.
    #[inline(always)]
    fn newindex_fn_at_once(
        &mut self,
        h: TableRef,
        absent: bool,
        args: [Value; 3],
    ) -> Result<bool, Error> {
        if let (Some(mt), true) = (self.heap.tables.get(h).meta, absent) {
            let tm = self.fast_tm_inline(mt, TM_NEWINDEX);
            if tm.is_function() {
                self.call_meta_inline(tm, &args, MetaRet::Discard)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `t[key] = val` with metamethods, for natives (nested call).
    pub fn set_index_value(&mut self, t: Value, key: Value, val: Value) -> Result<(), Error> {
        if let Some((tm, tt)) = self.newindex_chain(t, key, val, Operand::None)? {
            self.call_value(tm, &[tt, key, val])?;
        }
        Ok(())
    }

    // ----- arithmetic --------------------------------------------------

    /// Converts a string to a number as the string library's arithmetic
    /// metamethods do (`tonum` in lstrlib.c).
    pub(crate) fn str_tonum(&self, v: Value) -> Option<Value> {
        match v {
            Value::Int(_) | Value::Float(_) => Some(v),
            Value::Str(s) => number::str_to_number(self.heap.str(s)).map(Value::from),
            _ => None,
        }
    }

    /// The slow path of an arithmetic or bitwise instruction
    /// (`luaT_trybinTM` plus string coercion): `Some(result)`, or a
    /// metamethod frame was pushed (result into register `dest`).
    ///
    /// The operands come as [`Words`], in registers: the dispatch loop's
    /// fast paths need not keep them in memory for this call.
    #[cold]
    pub(crate) fn arith_slow(
        &mut self,
        op: ArithOp,
        a: Words,
        b: Words,
        oa: Operand,
        ob: Operand,
        dest: u8,
    ) -> Result<Option<Value>, Error> {
        let (a, b) = (a.value(), b.value());
        // A table's metamethod, the common case, first: numbers and the
        // strings' coercion do not apply to it (`luaT_trybinTM` finds it
        // first too). Here rather than in `arith_dispatch`, which serves
        // natives as well: through its frame and `Idx` result the same
        // lookup cost `o + o` 558 instructions instead of 497 (`opcost.py`).
        if let Value::Table(t) = a {
            if let Some(mt) = self.heap.tables.get(t).meta {
                let tm = self.fast_tm_inline(mt, op.tm());
                if !tm.is_nil() {
                    self.call_meta_inline(tm, &[a, b], MetaRet::Reg(dest))?;
                    return Ok(None);
                }
            }
        }
        match self.arith_dispatch(op, a, b, oa, ob)? {
            Idx::Val(v) => Ok(Some(v)),
            Idx::Call(tm, _) => {
                self.call_meta(tm, &[a, b], MetaRet::Reg(dest))?;
                Ok(None)
            }
        }
    }

    /// Arithmetic with metamethods, for natives (`lua_arith`).
    pub fn arith_value(&mut self, op: ArithOp, a: Value, b: Value) -> Result<Value, Error> {
        if let NumRes::Val(v) = arith_num(op, a, b) {
            return Ok(v);
        }
        match self.arith_dispatch(op, a, b, Operand::None, Operand::None)? {
            Idx::Val(v) => Ok(v),
            Idx::Call(tm, _) => self.call_value1(tm, &[a, b]),
        }
    }

    /// Decides how to evaluate `a op b`: a value, or a metamethod to call
    /// with `(a, b)`.
    fn arith_dispatch(
        &mut self,
        op: ArithOp,
        a: Value,
        b: Value,
        oa: Operand,
        ob: Operand,
    ) -> Result<Idx, Error> {
        match arith_num(op, a, b) {
            NumRes::Val(v) => return Ok(Idx::Val(v)),
            NumRes::Err(m) => return Err(self.rt_error(m)),
            NumRes::NoInt | NumRes::NotNum => {}
        }
        let tm = op.tm();
        // First operand's metamethod (a string's is the coercion).
        for (x, first) in [(a, true), (b, false)] {
            let h = self.tm_of(x, tm);
            if !h.is_nil() {
                if let Some(v) = self.string_arith_inline(op, h, a, b) {
                    return Ok(Idx::Val(v));
                }
                return Ok(Idx::Call(h, x));
            }
            if matches!(x, Value::Str(_)) && !op.is_bitwise() {
                return self.string_arith(op, a, b, first);
            }
        }
        Err(self.arith_error(op, a, b, oa, ob))
    }

    /// The string library's arithmetic metamethod, emulated.
    fn string_arith(
        &mut self,
        op: ArithOp,
        a: Value,
        b: Value,
        _first: bool,
    ) -> Result<Idx, Error> {
        if let (Some(x), Some(y)) = (self.str_tonum(a), self.str_tonum(b)) {
            return match arith_num(op, x, y) {
                NumRes::Val(v) => Ok(Idx::Val(v)),
                NumRes::Err(m) => Err(self.rt_error(m)),
                _ => Err(self.rt_error("number has no integer representation")),
            };
        }
        // trymt: the second operand's metamethod, unless it is a string.
        let tm = op.tm();
        if !matches!(b, Value::Str(_)) {
            let h = self.tm_of(b, tm);
            if !h.is_nil() {
                return Ok(Idx::Call(h, b));
            }
        }
        let name = &TM_NAMES[tm][2..];
        Err(self.native_error_at0(format!(
            "attempt to {} a '{}' with a '{}'",
            name,
            a.type_name(),
            b.type_name()
        )))
    }

    /// Error as raised by a metamethod running in a C function called from
    /// the current Lua frame: position of the Lua frame.
    fn native_error_at0(&mut self, msg: String) -> Error {
        self.rt_error(msg)
    }

    #[cold]
    fn arith_error(&mut self, op: ArithOp, a: Value, b: Value, oa: Operand, ob: Operand) -> Error {
        let isnum = |v: Value| matches!(v, Value::Int(_) | Value::Float(_));
        if op.is_bitwise() {
            if let (Some(x), Some(_)) = (number::as_number(a), number::as_number(b)) {
                // luaG_tointerror: blame the operand without an integer value.
                let o = if x.to_int().is_none() { oa } else { ob };
                let vi = self.varinfo(o);
                return self.rt_error(format!("number{vi} has no integer representation"));
            }
            let (v, o) = if !isnum(a) { (a, oa) } else { (b, ob) };
            return self.type_error(v, "perform bitwise operation on", o);
        }
        let (v, o) = if !isnum(a) { (a, oa) } else { (b, ob) };
        self.type_error(v, "perform arithmetic on", o)
    }

    // ----- comparison --------------------------------------------------

    /// Primitive `a < b` for numbers and strings; `None` otherwise.
    #[inline]
    pub(crate) fn lt_prim(&self, a: Value, b: Value) -> Option<bool> {
        Some(match (a, b) {
            (Value::Int(x), Value::Int(y)) => x < y,
            (Value::Float(x), Value::Float(y)) => x < y,
            (Value::Int(x), Value::Float(y)) => number::lt_int_float(x, y),
            (Value::Float(x), Value::Int(y)) => number::lt_float_int(x, y),
            (Value::Str(x), Value::Str(y)) => self.heap.str(x) < self.heap.str(y),
            _ => return None,
        })
    }

    /// Primitive `a <= b` for numbers and strings; `None` otherwise.
    #[inline]
    pub(crate) fn le_prim(&self, a: Value, b: Value) -> Option<bool> {
        Some(match (a, b) {
            (Value::Int(x), Value::Int(y)) => x <= y,
            (Value::Float(x), Value::Float(y)) => x <= y,
            (Value::Int(x), Value::Float(y)) => number::le_int_float(x, y),
            (Value::Float(x), Value::Int(y)) => number::le_float_int(x, y),
            (Value::Str(x), Value::Str(y)) => self.heap.str(x) <= self.heap.str(y),
            _ => return None,
        })
    }

    /// The order metamethod for `a < b` (`tm = TM_LT`) or `a <= b`, or the
    /// comparison error.
    #[cold]
    #[inline(never)]
    pub(crate) fn order_tm(&mut self, a: Value, b: Value, tm: usize) -> Result<Value, Error> {
        // The lookups inline: `fast_tm`'s answer comes back through
        // memory, and copying it out stalled on its stores (store
        // forwarding: two thirds of this function's time).
        let mut h = match self.metatable(a) {
            Some(mt) => self.fast_tm_inline(mt, tm),
            None => Value::Nil,
        };
        if h.is_nil() {
            h = self.tm_of(b, tm);
        }
        if h.is_nil() {
            return Err(self.order_error(a, b));
        }
        Ok(h)
    }

    /// `attempt to compare ...` (`luaG_ordererror`).
    #[cold]
    pub(crate) fn order_error(&mut self, a: Value, b: Value) -> Error {
        let t1 = self.obj_typename(a);
        let t2 = self.obj_typename(b);
        if t1 == t2 {
            self.rt_error(format!("attempt to compare two {t1} values"))
        } else {
            self.rt_error(format!("attempt to compare {t1} with {t2}"))
        }
    }

    /// `a < b` (or `<=` with `le`) with metamethods, for natives.
    pub fn less_value(&mut self, a: Value, b: Value, le: bool) -> Result<bool, Error> {
        let prim = if le { self.le_prim(a, b) } else { self.lt_prim(a, b) };
        if let Some(r) = prim {
            return Ok(r);
        }
        let h = self.order_tm(a, b, if le { TM_LE } else { TM_LT })?;
        Ok(self.call_value1(h, &[a, b])?.truthy())
    }

    /// The `__eq` metamethod for two values that are not raw-equal, if
    /// they are both tables or both userdata.
    pub(crate) fn eq_tm(&mut self, a: Value, b: Value) -> Value {
        if !a.may_have_eq_tm(b) {
            return Value::Nil;
        }
        let h = self.tm_of(a, TM_EQ);
        if h.is_nil() {
            self.tm_of(b, TM_EQ)
        } else {
            h
        }
    }

    /// `a == b` with `__eq`, for natives.
    pub fn equal_value(&mut self, a: Value, b: Value) -> Result<bool, Error> {
        if self.heap.raw_eq(a, b) {
            return Ok(true);
        }
        let h = self.eq_tm(a, b);
        if h.is_nil() {
            return Ok(false);
        }
        Ok(self.call_value1(h, &[a, b])?.truthy())
    }

    // ----- length ------------------------------------------------------

    /// `#v` for the loop: `Some(len)` or a `__len` frame was pushed.
    #[cold]
    #[inline(never)]
    pub(crate) fn len_op(
        &mut self,
        v: Value,
        o: Operand,
        dest: u8,
    ) -> Result<Option<Value>, Error> {
        // A table: its `__len`, if any, looked up and called inline (as
        // `index_op` does); other values through `len_dispatch`.
        if let Value::Table(t) = v {
            // SAFETY: `v` is from a register of the running frame, which
            // the collector reaches: a live table (`Tables::get_live`).
            let tm = match unsafe { self.heap.tables.get_live(t) }.meta {
                Some(mt) => self.fast_tm_inline(mt, TM_LEN),
                None => Value::Nil,
            };
            if tm.is_nil() {
                return Ok(Some(Value::Int(self.heap.tables.get(t).len())));
            }
            self.call_meta_inline(tm, &[v, v], MetaRet::Reg(dest))?;
            return Ok(None);
        }
        match self.len_dispatch(v, o)? {
            Idx::Val(x) => Ok(Some(x)),
            Idx::Call(tm, _) => {
                self.call_meta(tm, &[v, v], MetaRet::Reg(dest))?;
                Ok(None)
            }
        }
    }

    fn len_dispatch(&mut self, v: Value, o: Operand) -> Result<Idx, Error> {
        match v {
            Value::Str(s) => Ok(Idx::Val(Value::Int(self.heap.str(s).len() as i64))),
            Value::Table(t) => {
                if let Some(mt) = self.heap.tables.get(t).meta {
                    let h = self.fast_tm(mt, crate::meta::TM_LEN);
                    if !h.is_nil() {
                        return Ok(Idx::Call(h, v));
                    }
                }
                Ok(Idx::Val(Value::Int(self.heap.tables.get(t).len())))
            }
            _ => {
                let h = self.tm_of(v, TM_LEN);
                if h.is_nil() {
                    return Err(self.type_error(v, "get length of", o));
                }
                Ok(Idx::Call(h, v))
            }
        }
    }

    /// `#v` with `__len`, for natives.
    pub fn len_value(&mut self, v: Value) -> Result<Value, Error> {
        match self.len_dispatch(v, Operand::None)? {
            Idx::Val(x) => Ok(x),
            Idx::Call(tm, _) => self.call_value1(tm, &[v, v]),
        }
    }

    // ----- concatenation -----------------------------------------------

    /// Appends the string form of a string or number; false otherwise.
    #[inline]
    fn push_strnum(&self, v: Value, out: &mut Vec<u8>) -> bool {
        match v {
            Value::Str(s) => out.extend_from_slice(self.heap.str(s)),
            Value::Int(i) => number::fmt_int(i, out),
            Value::Float(f) => number::fmt_float(f, out),
            _ => return false,
        }
        true
    }

    /// Concatenates stack slots `from..to` into slot `from` if they are all
    /// strings or integers whose bytes together make a short string (the
    /// usual `a .. b` of names, pieces and counters): gathered on the Rust
    /// stack, not through the state's buffer and the general gathering.
    /// The result's length; `None`, changing nothing, otherwise.
    #[inline]
    fn concat_short_strings(&mut self, from: usize, to: usize) -> Option<usize> {
        let mut buf = [0u8; crate::string::SHORT];
        let mut len = 0;
        let mut digits = [0u8; number::INT_DIGITS];
        for &v in &self.ex.stack[from..to] {
            let b = match v {
                Value::Str(s) => self.heap.str(s),
                Value::Int(i) => {
                    let start = number::int_digits(i, &mut digits);
                    &digits[start..]
                }
                _ => return None,
            };
            let end = len + b.len();
            buf.get_mut(len..end)?.copy_from_slice(b);
            len = end;
        }
        let r = self.heap.intern(&buf[..len]);
        self.ex.stack[from] = Value::Str(r);
        Some(len)
    }

    /// The concatenation of stack slots `from..to` if they are all strings
    /// and the first is too long to be kept in its slot (a string built
    /// piece by piece, `s = s .. x`): built in an allocation of its own,
    /// which the new string keeps (one copy of the bytes, not two through
    /// the buffer). The string and its length; `None` otherwise.
    #[inline(never)]
    fn concat_long_strings(
        &mut self,
        from: usize,
        to: usize,
    ) -> Option<(crate::value::StrRef, usize)> {
        let mut len = 0usize;
        for &v in &self.ex.stack[from..to] {
            let Value::Str(s) = v else { return None };
            len = len.checked_add(self.heap.str(s).len())?;
        }
        let mut bytes = Vec::with_capacity(len);
        for &v in &self.ex.stack[from..to] {
            if let Value::Str(s) = v {
                bytes.extend_from_slice(self.heap.str(s));
            }
        }
        Some((self.heap.concat_str_owned(bytes.into_boxed_slice()), len))
    }

    /// Concatenates registers `a .. a+n-1` of the running Lua frame into
    /// register `a` (`luaV_concat`). Returns false if a `__concat` frame was
    /// pushed (the return path continues the work).
    pub(crate) fn concat(&mut self, a: u8, mut n: usize) -> Result<bool, Error> {
        let base = self.reg_slot(0);
        let s = base + a as usize;
        while n > 1 {
            let top = s + n;
            let v1 = self.ex.stack[top - 2];
            let v2 = self.ex.stack[top - 1];
            let strnum = |v: Value| matches!(v, Value::Str(_) | Value::Int(_) | Value::Float(_));
            if !strnum(v1) || !strnum(v2) {
                let mut h = self.tm_of(v1, TM_CONCAT);
                if h.is_nil() {
                    h = self.tm_of(v2, TM_CONCAT);
                }
                if h.is_nil() {
                    let (v, r) = if strnum(v1) { (v2, top - 1) } else { (v1, top - 2) };
                    return Err(self.type_error(v, "concatenate", Operand::Reg((r - base) as u32)));
                }
                self.call_meta(h, &[v1, v2], MetaRet::Concat { a, n: n as u8 })?;
                return Ok(false);
            }
            // Gather as many strings/numbers as possible from the top.
            let mut k = 2;
            while k < n && strnum(self.ex.stack[top - k - 1]) {
                k += 1;
            }
            // A first piece longer than a short string (a text built piece
            // by piece, `s = s .. x`) is not tried as one.
            let (long, short) = match self.ex.stack[top - k] {
                Value::Str(p) => {
                    let p = self.heap.strings.get(p);
                    (p.is_long(), p.len() <= crate::string::SHORT)
                }
                _ => (false, true),
            };
            if let Some(len) = short.then(|| self.concat_short_strings(top - k, top)).flatten() {
                n -= k - 1;
                self.charge_bytes(len)?;
                continue;
            }
            if let Some((r, len)) = long.then(|| self.concat_long_strings(top - k, top)).flatten() {
                self.ex.stack[top - k] = Value::Str(r);
                n -= k - 1;
                self.charge_bytes(len)?;
                continue;
            }
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            for i in (top - k)..top {
                self.push_strnum(self.ex.stack[i], &mut buf);
            }
            let r = self.heap.concat_str(&buf);
            let len = buf.len();
            self.buf = buf;
            self.ex.stack[top - k] = Value::Str(r);
            n -= k - 1;
            // The copy is work in proportion to the result (`limits.rs`).
            self.charge_bytes(len)?;
        }
        Ok(true)
    }
}
