//! The `table` library, a port of Lua 5.4.4's `ltablib.c`: `concat`,
//! `insert`, `move`, `pack`, `remove`, `sort`, `unpack`.
//!
//! # Design
//!
//! Element access goes through `geti` / `seti`, the equivalents of
//! `lua_geti` / `lua_seti`: a raw access when the table has no metatable,
//! otherwise the full `__index` / `__newindex` protocol (a nested call for
//! function metamethods, as in C). Lengths use `len_of` (`luaL_len`:
//! `__len`, whose result must be an integer). The first argument may also
//! be a non-table whose metatable has the needed metamethods (`check_tab`,
//! C's `checktab`).
//!
//! `table.sort` is in [`sort`] (`table/sort.rs`), with its own essay.
//!
//! # Work
//!
//! Each element moved by `insert`/`remove`/`move`, read by `concat` or
//! `unpack`, packed by `pack`, and each comparison of `sort` charges one
//! instruction to the budget (`charge_work`), and `concat` also the bytes
//! it appends (one per 64), so a huge range stops at the instruction limit
//! or the interrupt flag instead of running for hours.

mod sort;

use luprex_vm::raw::{Action, Error, NativeFn, State, Value};
use sort::{sort, sort_k};

type R = Result<Action, Error>;

/// `checktab` needs: read (`__index`), write (`__newindex`), length.
const TAB_R: u8 = 1;
const TAB_W: u8 = 2;
const TAB_L: u8 = 4;
const TAB_RW: u8 = TAB_R | TAB_W;

/// `INT_MAX`, C's limit on array sizes in `sort` and `unpack`.
const INT_MAX: i64 = i32::MAX as i64;

/// Opens the library: the `table` global and `package.loaded.table`.
pub fn open(st: &mut State) -> Result<(), Error> {
    let t = st.new_table_sized(0, 8);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("concat", "table.concat", concat),
        ("insert", "table.insert", insert),
        ("pack", "table.pack", pack),
        ("unpack", "table.unpack", unpack),
        ("remove", "table.remove", remove),
        ("move", "table.move", move_),
        ("sort", "table.sort", sort),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    st.register_continuation("table.sort_k", sort_k);
    st.set_global("table", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"table");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

// ----- element access --------------------------------------------------------

/// `lua_geti`: `t[i]` with `__index`.
fn geti(st: &mut State, t: Value, i: i64) -> Result<Value, Error> {
    geti_inline(st, t, i)
}

/// [`geti`], its result read back word by word ([`Value::copy_words`]):
/// returned through memory, it was copied with a 16-byte load that waited
/// for the stores that wrote it (a quarter of `table.insert`'s time at
/// the front of a table).
fn geti_words(st: &mut State, t: Value, i: i64) -> Result<Value, Error> {
    let r = geti(st, t, i);
    match &r {
        Ok(v) => Ok(v.copy_words()),
        Err(_) => r,
    }
}

/// [`geti`] inline, for a loop over elements (`table.move`): a value
/// returned out of line is read back with a store-forwarding stall (half
/// of `table.move`'s time). `table.sort` keeps the call: inlined there,
/// it cost a sort 1 % more instructions.
#[inline(always)]
fn geti_inline(st: &mut State, t: Value, i: i64) -> Result<Value, Error> {
    if let Value::Table(h) = t {
        let tab = st.table(h);
        let v = tab.get_int(i);
        if !v.is_nil() || tab.meta.is_none() {
            return Ok(v);
        }
    }
    st.index_value(t, Value::Int(i))
}

/// `lua_seti`: `t[i] = v` with `__newindex`. `v` is read word by word
/// ([`Value::copy_words`]): passed out of line, it is the caller's copy,
/// often just written in two words (`geti_words`), which a 16-byte load
/// waited for.
fn seti(st: &mut State, t: Value, i: i64, v: Value) -> Result<(), Error> {
    seti_inline(st, t, i, v.copy_words())
}

/// [`seti`] inline (see [`geti_inline`]).
#[inline(always)]
fn seti_inline(st: &mut State, t: Value, i: i64, v: Value) -> Result<(), Error> {
    if let Value::Table(h) = t {
        if st.set_int_in_array(h, i, v) {
            return Ok(());
        }
        if st.table(h).meta.is_none() {
            return st.try_table_set(t, Value::Int(i), v);
        }
    }
    st.set_index_value(t, Value::Int(i), v)
}

/// `checktab`: argument `arg` is a table or has the metamethods `what`
/// asks for; otherwise `table expected, got X`.
fn check_tab(st: &mut State, arg: usize, what: u8) -> Result<(), Error> {
    let v = st.arg(arg);
    if matches!(v, Value::Table(_)) {
        return Ok(());
    }
    let ok = st.metatable(v).is_some()
        && (what & TAB_R == 0 || st.get_metafield(v, b"__index").is_some())
        && (what & TAB_W == 0 || st.get_metafield(v, b"__newindex").is_some())
        && (what & TAB_L == 0 || st.get_metafield(v, b"__len").is_some());
    if ok {
        Ok(())
    } else {
        Err(st.arg_type_error(arg, "table"))
    }
}

/// `luaL_len` of argument `arg`.
fn len_of(st: &mut State, arg: usize) -> Result<i64, Error> {
    let v = st.arg(arg);
    if let Value::Table(h) = v {
        let tab = st.table(h);
        if tab.meta.is_none() {
            return Ok(tab.len());
        }
    }
    let l = st.len_value(v)?;
    match st.to_integer(l) {
        Some(n) => Ok(n),
        None => Err(st.native_error("object length is not an integer")),
    }
}

/// `aux_getn`: `checktab` with length, then `luaL_len`.
fn aux_getn(st: &mut State, arg: usize, what: u8) -> Result<i64, Error> {
    check_tab(st, arg, what | TAB_L)?;
    len_of(st, arg)
}

// ----- insert, remove, move, concat, pack, unpack ----------------------------

fn insert(st: &mut State) -> R {
    // The common call, an append to a table without a metatable: its
    // arguments read at once, the length without `check_tab`'s tests.
    if let [Value::Table(h), v] = *st.args() {
        let tab = st.table(h);
        if tab.meta.is_none() {
            let e = tab.len().wrapping_add(1);
            seti(st, Value::Table(h), e, v)?;
            return Ok(Action::Return(0));
        }
    }
    let t = st.arg(1);
    let e = aux_getn(st, 1, TAB_RW)?.wrapping_add(1);
    let pos = match st.nargs() {
        2 => e,
        3 => {
            let pos = st.check_int(2)?;
            if (pos as u64).wrapping_sub(1) >= e as u64 {
                return Err(st.arg_error(2, "position out of bounds"));
            }
            let mut i = e;
            // The shift up as in `remove`: the last value appended one by
            // one (it may grow the array part), the rest moved at once.
            if let Value::Table(h) = t {
                if i > pos + 1 && st.table(h).meta.is_none() {
                    st.charge_work(1)?;
                    let v = geti_words(st, t, i - 1)?;
                    seti(st, t, i, v)?;
                    i -= 1;
                    if st.move_in_array(h, pos, pos + 1, i - pos) {
                        st.charge_work((i - pos) as u64)?;
                        i = pos;
                    }
                }
            }
            while i > pos {
                st.charge_work(1)?;
                let v = geti_words(st, t, i - 1)?;
                seti(st, t, i, v)?;
                i -= 1;
            }
            pos
        }
        _ => return Err(st.native_error("wrong number of arguments to 'insert'")),
    };
    let v = st.arg(st.nargs());
    seti(st, t, pos, v)?;
    Ok(Action::Return(0))
}

fn remove(st: &mut State) -> R {
    // The common call, a pop from a non-empty table without a metatable
    // (see `insert`).
    if let [Value::Table(h)] = *st.args() {
        let tab = st.table(h);
        let size = tab.len();
        if tab.meta.is_none() && size > 0 {
            let result = tab.get_int(size);
            seti(st, Value::Table(h), size, Value::Nil)?;
            st.push(result);
            return Ok(Action::Return(1));
        }
    }
    let t = st.arg(1);
    let size = aux_getn(st, 1, TAB_RW)?;
    let mut pos = st.opt_int(2, size)?;
    if pos != size && (pos as u64).wrapping_sub(1) > size as u64 {
        return Err(st.arg_error(1, "position out of bounds"));
    }
    let result = geti_words(st, t, pos)?;
    // The shift down as one move of array slots where it is raw (no
    // metatable) and within the array part, charged as the loop would be.
    if let Value::Table(h) = t {
        if pos < size && st.move_in_array(h, pos + 1, pos, size - pos) {
            st.charge_work((size - pos) as u64)?;
            pos = size;
        }
    }
    while pos < size {
        st.charge_work(1)?;
        let v = geti_words(st, t, pos + 1)?;
        seti(st, t, pos, v)?;
        pos += 1;
    }
    seti(st, t, pos, Value::Nil)?;
    st.push(result);
    Ok(Action::Return(1))
}

fn move_(st: &mut State) -> R {
    let f = st.check_int(2)?;
    let e = st.check_int(3)?;
    let t = st.check_int(4)?;
    let tt = if st.arg(5).is_nil() { 1 } else { 5 };
    check_tab(st, 1, TAB_R)?;
    check_tab(st, tt, TAB_W)?;
    let (src, dst) = (st.arg(1), st.arg(tt));
    if e >= f {
        if !(f > 0 || e < i64::MAX.wrapping_add(f)) {
            return Err(st.arg_error(3, "too many elements to move"));
        }
        let n = e - f + 1;
        if t > i64::MAX - n + 1 {
            return Err(st.arg_error(4, "destination wrap around"));
        }
        let forward = t > e || t <= f || (tt != 1 && !st.equal_value(src, dst)?);
        // Within one table, raw and inside its array part: one move of
        // array slots (the loop's order makes it a `memmove` too).
        let same = match (src, dst) {
            (Value::Table(a), Value::Table(b)) if a == b => Some(a),
            _ => None,
        };
        if let Some(h) = same {
            if st.move_in_array(h, f, t, n) {
                st.charge_work(n as u64)?;
                st.push(dst);
                return Ok(Action::Return(1));
            }
        }
        for k in 0..n {
            let i = if forward { k } else { n - 1 - k };
            st.charge_work(1)?;
            let v = geti_inline(st, src, f + i)?;
            seti_inline(st, dst, t + i, v)?;
        }
    }
    st.push(dst);
    Ok(Action::Return(1))
}

/// `addfield` of `tconcat`: appends `t[i]`, which must be a string or a
/// number. Charges one instruction per element and one per
/// [`WORK_BYTES`](luprex_vm::raw::WORK_BYTES) bytes appended (with the
/// separator).
fn add_field(st: &mut State, t: Value, i: i64, out: &mut Vec<u8>, sep: usize) -> Result<(), Error> {
    st.charge_work(1)?;
    match geti(st, t, i)? {
        Value::Str(s) => {
            st.charge_bytes(st.str_bytes(s).len() + sep)?;
            out.extend_from_slice(st.str_bytes(s));
        }
        v @ (Value::Int(_) | Value::Float(_)) => luprex_vm::raw::number::fmt_number(v, out),
        v => {
            let msg =
                format!("invalid value ({}) at index {i} in table for 'concat'", v.type_name());
            return Err(st.native_error(msg));
        }
    }
    Ok(())
}

fn concat(st: &mut State) -> R {
    let t = st.arg(1);
    let last = aux_getn(st, 1, TAB_R)?;
    let sep = match st.opt_str(2)? {
        Some(s) => st.str_bytes(s).to_vec(),
        None => Vec::new(),
    };
    let first = st.opt_int(3, 1)?;
    let last = st.opt_int(4, last)?;
    // The state's scratch buffer, as `luaL_Buffer` starts on the C stack:
    // a result of a few hundred bytes grew a new vector seven times.
    let mut out = st.take_buf();
    let r = concat_into(st, t, first, last, &sep, &mut out);
    if r.is_ok() {
        let v = st.new_loose_string(&out);
        st.push(v);
    }
    st.put_buf(out);
    r.map(|()| Action::Return(1))
}

/// The loop of `tconcat`: elements `i..=last` of `t` and the separators
/// between them, appended to `out`.
fn concat_into(
    st: &mut State,
    t: Value,
    mut i: i64,
    last: i64,
    sep: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    if let Value::Table(h) = t {
        match concat_strings(st, h, i, last, sep, out)? {
            Some(next) => i = next,
            None => return Ok(()),
        }
    }
    while i < last {
        add_field(st, t, i, out, sep.len())?;
        out.extend_from_slice(sep);
        i += 1;
    }
    if i == last {
        add_field(st, t, i, out, 0)?;
    }
    Ok(())
}

/// The elements of table `h` from `i` on that are strings (raw: a present
/// value needs no `__index`), with their separators, appended in one
/// borrow of the heap and charged as [`add_field`] charges them (through
/// the work meter, so the budget hook waits for the next check, as in the
/// pattern matcher). Returns the index of the first element not taken (a
/// number, an absent one or an error, which the general loop handles), or
/// `None` when it took them all: `i` does not step past `last`, which may
/// be `math.maxinteger`.
fn concat_strings(
    st: &mut State,
    h: luprex_vm::raw::TableRef,
    mut i: i64,
    last: i64,
    sep: &[u8],
    out: &mut Vec<u8>,
) -> Result<Option<i64>, Error> {
    let (view, mut meter) = st.work_meter();
    let tab = view.table(h);
    let mut stopped = None;
    if i > last {
        return Ok(None);
    }
    while let Value::Str(s) = tab.get_int(i) {
        let b = view.str_bytes(s);
        let sep = if i < last { sep } else { &[][..] };
        if let Err(w) = meter
            .charge(1)
            .and_then(|()| meter.charge((b.len() + sep.len()) as u64 / luprex_vm::raw::WORK_BYTES))
        {
            stopped = Some(w);
            break;
        }
        out.extend_from_slice(b);
        out.extend_from_slice(sep);
        if i == last {
            return Ok(None);
        }
        i += 1;
    }
    match stopped {
        Some(w) => Err(st.work_error(w)),
        None => Ok(Some(i)),
    }
}

fn pack(st: &mut State) -> R {
    let n = st.nargs();
    st.charge_work(n as u64)?;
    let h = st.new_table_sized(n, 1);
    st.raw_set_list_from_args(h, n);
    let k = st.intern(b"n");
    st.raw_set_str(h, k, Value::Int(n as i64));
    st.push(Value::Table(h));
    Ok(Action::Return(1))
}

fn unpack(st: &mut State) -> R {
    let t = st.arg(1);
    let i = st.opt_int(2, 1)?;
    let e = if st.arg(3).is_nil() { len_of(st, 1)? } else { st.check_int(3)? };
    if i > e {
        return Ok(Action::Return(0));
    }
    let n = (e as u64).wrapping_sub(i as u64);
    if n >= INT_MAX as u64 || st.check_stack(n as usize + 1, "").is_err() {
        return Err(st.native_error("too many results to unpack"));
    }
    // A table without a metatable whose array part holds the range: one
    // copy, the same work charged at once (fasta unpacks 2,047 values at
    // a time: 14 % of its time went to this loop).
    if let Value::Table(h) = t {
        if st.push_array_run(h, i, e) {
            st.charge_work(n)?;
            return Ok(Action::Return(n as usize + 1));
        }
    }
    let mut k = i;
    while k < e {
        st.charge_work(1)?;
        let v = geti(st, t, k)?;
        st.push(v);
        k += 1;
    }
    let v = geti(st, t, e)?;
    st.push(v);
    Ok(Action::Return(n as usize + 1))
}
