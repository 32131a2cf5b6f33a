//! The dispatch loop's fast paths, one small program each.
//!
//! These are the tests for the `unsafe` in `execute.rs` (`load`/`store`,
//! the word-by-word register reads and writes): every fast path that uses
//! them runs here on every kind of value, and the programs are small enough
//! for Miri (`cargo +nightly miri test -p luprex-vm --test dispatch`).

use luprex_vm::raw::debug::{hookmask, HookEvent};
use luprex_vm::raw::{Action, Error, NativeFn, State, Value};

/// Runs `src` (which returns a string; `join` concatenates a list with
/// commas, as only the base library is open) and compares the result with
/// the one `lua5.4` gives for the same program.
fn check(src: &str, want: &str) {
    let mut st = State::new();
    let prelude = "local function join(t) local s = '' for i = 1, #t do \
                   s = s .. (i > 1 and ',' or '') .. tostring(t[i]) end return s end ";
    let src = &format!("{prelude}{src}");
    let r = st.exec(src.as_bytes(), b"=dispatch").unwrap_or_else(|e| panic!("{src}: {e}"));
    let got = match r.first() {
        Some(&v) => String::from_utf8_lossy(st.to_str(v).expect("a string result")).into_owned(),
        None => String::new(),
    };
    assert_eq!(got, want, "{src}");
    st.check_heap().unwrap();
}

#[test]
fn arithmetic_on_every_operand_kind() {
    check(
        "local i, f, s = 7, 2.5, '3'
         local a, b, c, d = i + i, i + f, f + i, f * f
         local e, g = i - 1, i * 3
         local h = i // 2 + i % 3 + (i & 3) + (i | 8) + (i ~ 1) + (i << 2) + (i >> 1)
         local k = i / 2 + f ^ 2 + -i + -f + ~i
         local m = s + 1
         return join({a, b, c, d, e, g, h, k, m})",
        "14,9.5,9.5,6.25,6,21,59,-7.75,4",
    );
}

/// Values that cross an out-of-line call as `Words` (vm/src/value.rs): a
/// table's answer for an integer key outside the array part and for keys
/// of other types (nil among them, whose payload is uninitialized), and
/// the operands of arithmetic's slow path (metamethods, coercions). No
/// `^`: Miri adds a random error to `pow`, so `2^40` would miss its key.
#[test]
fn values_crossing_slow_paths_in_registers() {
    check(
        "local t = {}
         local f = function() end
         t[100], t[-1], t[1 << 40] = 'a', 2.5, true
         t[0.5], t[false], t[f] = 7, 'b', 9
         local mt = {__add = function(a, b) return 'add' end, __unm = function(a) return 'unm' end}
         local o = setmetatable({}, mt)
         local r = {t[100], t[-1], t[1099511627776.0], t[101], t[0.5], t[false], t[f], t[1.0], t[-1.0],
                    o + 1, 2 + o, -o, '7' * '2', 10 // '3'}
         local s = ''
         for i = 1, 14 do s = s .. tostring(r[i]) .. ' ' end
         return s",
        "a 2.5 true nil 7 b 9 nil 2.5 add add unm 14 3 ",
    );
}

#[test]
fn moves_and_register_copies_keep_every_type() {
    check(
        "local t, f, s, b, n, x, fl = {}, print, 'str', true, nil, 3, 0.5
         local t2, f2, s2, b2, n2, x2, fl2 = t, f, s, b, n, x, fl
         local co = coroutine.create(function() end)
         local co2 = co
         return tostring(t2 == t) .. tostring(f2 == f) .. s2 .. tostring(b2)
             .. tostring(n2) .. x2 .. fl2 .. type(co2)",
        "truetruestrtruenil30.5thread",
    );
}

#[test]
fn comparisons_and_tests() {
    check(
        "local r = {}
         for _, p in ipairs({{1, 2}, {2, 1}, {1.5, 1}, {1, 1.5}, {2, 2}}) do
           local a, b = p[1], p[2]
           r[#r + 1] = (a < b and 'l' or '') .. (a <= b and 'e' or '') .. (a == b and 'q' or '')
             .. (a > 1 and 'g' or '') .. (a >= 2 and 'G' or '') .. (a == 1 and '1' or '')
         end
         local x = nil or false or 'v'
         local y = 0 and 'w'
         return join(r) .. x .. y",
        "le1,gG,g,le1,eqgGvw",
    );
}

#[test]
fn numeric_and_generic_loops() {
    check(
        "local s = 0
         for i = 1, 10 do s = s + i end
         for i = 10, 1, -3 do s = s + i end
         for x = 0.5, 2, 0.5 do s = s + x end
         local t = {}
         for k, v in pairs({a = 1, b = 2}) do t[k] = k .. v end
         for i, v in ipairs({4, 5}) do s = s + i * v end
         return s .. t.a .. t.b",
        "96.0a1b2",
    );
}

#[test]
fn tables_array_hash_and_appends() {
    check(
        "local t = {}
         for i = 1, 20 do t[i] = i * i end
         for i = 1, #t do t[i] = t[i] + 1 end
         local h = {x = 1, y = 'two'}
         h.x = h.x + 1
         h.z = {}
         h[1.0] = 'one'
         h[true] = false
         local s = 0
         for i = 1, #t do s = s + t[i] end
         local l = {1, 2, 3, 'four', {5}}
         return s .. h.x .. h.y .. type(h.z) .. h[1] .. tostring(h[true]) .. #l .. l[4] .. l[5][1]",
        "28902twotableonefalse5four5",
    );
}

#[test]
fn upvalues_open_and_closed() {
    check(
        "local function counter()
           local c = 0
           return function() c = c + 1 return c end, function() return c end
         end
         local inc, get = counter()
         inc() inc()
         local v = 'up'
         local function f() return v .. get() end
         v = v .. 'val'
         return f() .. inc()",
        "upval23",
    );
}

#[test]
fn calls_returns_and_varargs() {
    check(
        "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
         local function none() end
         local function many() return 1, 'two', 3.0, nil, {} end
         local function va(...) local a, b = ... return select('#', ...), a, b end
         local a, b, c, d, e = many()
         local n, x, y = va(9, 'z', nil)
         local t = {many()}
         return fib(15) .. tostring((none())) .. a .. b .. c .. tostring(d) .. type(e)
             .. n .. x .. y .. #t",
        "610nil1two3.0niltable39z5",
    );
}

#[test]
fn method_lookup_through_index_chains() {
    check(
        "local Base = {} Base.__index = Base
         function Base:name() return 'base' .. self.v end
         local Mid = setmetatable({}, Base) Mid.__index = Mid
         function Mid:mid() return 'mid' end
         local o = setmetatable({v = 1}, Mid)
         o.v = o.v + 1
         local dyn = setmetatable({}, {__index = function(t, k) return k .. '!' end})
         local none = setmetatable({}, {})
         return o:name() .. o:mid() .. dyn.key .. tostring(none.x) .. tostring(o.missing)",
        "base2midkey!nilnil",
    );
}

#[test]
fn newindex_is_respected_for_absent_keys_only() {
    check(
        "local log = {}
         local t = setmetatable({a = 1}, {__newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end})
         t.a = 2
         t.b = 3
         t.b = 4
         t[1] = 'x'
         t[1] = 'y'
         return join(log) .. t.a .. t.b .. t[1]",
        "b,124y",
    );
}

/// New keys on a table whose metatable lacks `__newindex` are stored raw
/// once the absence is cached (`Tables::sets_raw`); a `__newindex` added
/// to the metatable later, by any string-key assignment, is seen at once,
/// also through a tombstone (a field set to nil, then set again).
#[test]
fn newindex_added_later_is_seen_by_the_raw_path() {
    check(
        "local log = {}
         local mt = {__index = {}}
         local t = setmetatable({}, mt)
         for i = 1, 3 do t['k' .. i] = i end
         t.k1 = nil
         t.k1 = 10
         mt.__newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end
         t.k4 = 4
         t.k2 = nil
         t.k2 = 20
         t.k3 = 30
         t[7] = 7
         return join(log) .. ':' .. t.k1 .. t.k2 .. t.k3 .. t.k4 .. t[7]",
        "k4,k2,7:10203047",
    );
}

/// Missing parameters and results are nil, whatever earlier calls from the
/// same registers left in the stack.
#[test]
fn missing_parameters_and_results_are_nil_over_old_frames() {
    check(
        "local function g(x, y, z, w) local u, v = x * 2, y * 2 return x, y, z, w end
         local function f(a, b, c) return tostring(a) .. tostring(b) .. tostring(c) end
         local function h() return 7 end
         local r = {}
         for i = 1, 3 do
           g(10, 20, 30, 40)
           r[#r + 1] = f(i)
           g(10, 20, 30, 40)
           local p, q, s = h()
           r[#r + 1] = tostring(p) .. tostring(q) .. tostring(s)
         end
         return join(r)",
        "1nilnil,7nilnil,2nilnil,7nilnil,3nilnil,7nilnil",
    );
    // A tail call reuses the frame in place.
    check(
        "local function f(a, b, c, d)
           if a == 0 then return tostring(b) .. tostring(c) .. tostring(d) end
           local x, y, z = 1, 2, 3
           return f(a - 1)
         end
         local r = {}
         for i = 1, 3 do r[#r + 1] = f(i, 5, 6, 7) end
         return join(r)",
        "nilnilnil,nilnilnil,nilnilnil",
    );
}

/// An object that only a finished call's frame held is garbage. A return
/// leaves the caller's registers above its results as they are (as PUC
/// Lua does), and the collector's safe points nil the running frame's
/// registers above the live ones (PUC's marks a running frame only up to
/// the instruction's live top); without that, a value left there would
/// live until overwritten, and a loop that allocates while it waits for
/// the finalizer would wait forever. Same for a native's arguments
/// (`setmetatable`'s table, an argument of `select`). The loops call
/// nothing (a call truncates the stack) and are bounded.
#[test]
fn a_finished_calls_values_are_garbage() {
    check(
        "local done = 0
         local mt = {__gc = function() done = done + 1 end}
         local function make()
           local p1, p2, p3, p4, p5 = 1, 2, 3, 4, 5
           local t = setmetatable({}, mt)
           return p1
         end
         make()
         local n = 0
         repeat local a = {} n = n + 1 until done == 1 or n == 300000
         local first = done
         select(1, 2, 3, 4, 5, 6, setmetatable({}, mt))
         n = 0
         repeat local a = {} n = n + 1 until done == 2 or n == 300000
         do local q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12 end
         return first .. ',' .. done",
        "1,2",
    );
}

#[test]
fn the_collector_clears_only_dead_registers() {
    // Every safe point (NEWTABLE, CONCAT, CLOSURE, a native's return with
    // fixed and with open results) runs collector steps here, which nil
    // the registers above the live ones: no live value may be among them.
    check(
        "local bad = 0
         for n = 1, 20000 do
           local keep = {n}
           local a, b, c = select(1, {n + 1}, {n + 2}, {n + 3})
           local t = {select(2, {n}, n, n, n, n, n, n, n, {n})}
           local u = {select(1, {n}, {n})}
           if keep[1] ~= n or a[1] ~= n + 1 or b[1] ~= n + 2 or c[1] ~= n + 3
              or #t ~= 8 or t[8][1] ~= n or u[2][1] ~= n then
             bad = bad + 1
           end
           -- A native allocating: the step may fall due at its return.
           local ok, s1 = pcall(tostring, n + 0.5)
           local v = {pcall(tostring, n + 0.25)}
           if not ok or s1 ~= n + 0.5 .. '' or v[2] ~= n + 0.25 .. '' then bad = bad + 1 end
           local sx = 'a' .. n .. 'b'
           local f = function() return keep, sx end
           local k2, s2 = f()
           if k2[1] ~= n or s2 ~= 'a' .. n .. 'b' then bad = bad + 1 end
         end
         collectgarbage()
         return bad .. ',' .. tostring(collectgarbage('count') < 1024)",
        "0,true",
    );
}

#[test]
fn integer_values_survive_the_word_copies() {
    // Extreme payloads: every bit of the payload word must be copied.
    check(
        "local a, b = 1 << 63, ~(1 << 63)
         local c, d = a, b
         local t = {c, d}
         local x, y = t[1], t[2]
         return tostring(x == a and x < 0) .. tostring(y == b and y > 0)
             .. tostring(-0.0) .. tostring(1/0) .. tostring(x - 1 == b)",
        "truetrue-0.0inftrue",
    );
}

#[test]
fn field_lookup_hints_never_change_a_result() {
    // One GETFIELD (and one GETTABUP) instruction meets tables of other
    // layouts, a key that moves (deleted, re-inserted at the end) and
    // tables rehashed under it: its hint must be checked every time.
    check(
        "local out = {}
         local function get(o) return o.x end
         local objs = { {x = 1}, {a = 0, x = 2}, {a = 0, b = 0, c = 0, d = 0, e = 0, x = 3}, {y = 4}, setmetatable({}, {__index = {x = 5}}) }
         for r = 1, 3 do for _, o in ipairs(objs) do out[#out + 1] = tostring(get(o)) end end
         local t = {a = 1, x = 6, b = 2}
         out[#out + 1] = tostring(get(t))
         t.x = nil
         out[#out + 1] = tostring(get(t))
         t.x = 7
         out[#out + 1] = tostring(get(t))
         t.a, t.b = nil, nil
         for i = 1, 20 do t['k' .. i] = i end
         out[#out + 1] = tostring(get(t))
         t.x = nil
         for i = 1, 20 do t['k' .. i] = nil end
         for i = 1, 40 do t['m' .. i] = i end
         out[#out + 1] = tostring(get(t))
         t.x = 8
         out[#out + 1] = tostring(get(t))
         X = 9
         local function g() return X end
         out[#out + 1] = tostring(g())
         X = nil
         out[#out + 1] = tostring(g())
         for i = 1, 30 do _ENV['G' .. i] = i end
         X = 10
         out[#out + 1] = tostring(g())
         return join(out)",
        "1,2,3,nil,5,1,2,3,nil,5,1,2,3,nil,5,6,nil,7,7,nil,8,9,nil,10",
    );
}

#[test]
fn field_store_hints_never_change_a_result() {
    // One SETFIELD (and one SETTABUP) instruction updates tables of other
    // layouts, a key that moved (deleted, re-inserted at the end), a
    // tombstoned key under `__newindex`, and tables rehashed under it: the
    // value must land on the key the instruction names, every time.
    check(
        "local out = {}
         local function set(o, v) o.x = v end
         local log = {}
         local objs = { {x = 1}, {a = 0, x = 2}, {a = 0, b = 0, c = 0, d = 0, e = 0, x = 3}, {y = 4, z = 0},
                        setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k .. v end}) }
         for r = 1, 3 do for _, o in ipairs(objs) do set(o, r) end end
         for _, o in ipairs(objs) do
           out[#out + 1] = tostring(o.x) .. tostring(o.y) .. tostring(o.a) .. tostring(o.z)
         end
         out[#out + 1] = join(log)
         local t = {a = 1, x = 6, b = 2}
         set(t, 7)
         t.x = nil
         t.a = nil
         set(t, 8)
         out[#out + 1] = tostring(t.x) .. tostring(t.a) .. tostring(t.b)
         for i = 1, 20 do t['k' .. i] = i end
         set(t, 9)
         out[#out + 1] = tostring(t.x) .. tostring(t.k1) .. tostring(t.k20)
         local p = setmetatable({x = 1}, {__newindex = function(t, k, v) rawset(t, k, v * 10) end})
         set(p, 2)
         p.x = nil
         set(p, 3)
         out[#out + 1] = tostring(rawget(p, 'x'))
         X = 1
         local function g(v) X = v end
         g(2)
         X = nil
         for i = 1, 30 do _ENV['G' .. i] = i end
         g(3)
         out[#out + 1] = tostring(X) .. tostring(G1) .. tostring(G30)
         return join(out)",
        "3nilnilnil,3nil0nil,3nil0nil,34nil0,nilnilnilnil,x1,x2,x3,8nil2,9120,30,3130",
    );
}

#[test]
fn value_layout_is_two_words() {
    assert_eq!(std::mem::size_of::<Value>(), 16);
    assert_eq!(std::mem::align_of::<Value>(), 8);
}

#[test]
fn coroutine_switches() {
    // A plain yield resumed (the direct path), with 0, 1 and several
    // values each way; a body that is `coroutine.yield` itself (its frame
    // entered from Rust); yields called by `pcall` and, as `__index`, by an
    // instruction (the general path); a dead coroutine; wrap.
    check(
        "local t, log = {}, {} \
         local co = coroutine.create(function(a, b) \
           local x, y, z = coroutine.yield(a + b) \
           log[#log + 1] = tostring(x) .. tostring(y) .. tostring(z) \
           local n = select('#', coroutine.yield()) \
           log[#log + 1] = n \
           return 'end', 7 \
         end) \
         t[#t + 1] = join({coroutine.resume(co, 1, 2)}) \
         t[#t + 1] = join({coroutine.resume(co, 'p', 'q', 'r')}) \
         t[#t + 1] = select('#', coroutine.resume(co)) \
         t[#t + 1] = join({coroutine.resume(co, 1, 2, 3)}) \
         t[#t + 1] = coroutine.status(co) \
         t[#t + 1] = join({coroutine.resume(co, 1)}) \
         local y = coroutine.create(coroutine.yield) \
         t[#t + 1] = join({coroutine.resume(y, 4, 5)}) \
         t[#t + 1] = join({coroutine.resume(y, 6, 7, 8)}) \
         t[#t + 1] = coroutine.status(y) \
         local h = coroutine.create(function(v) \
           while true do v = select(2, pcall(coroutine.yield, v * 2)) end \
         end) \
         coroutine.resume(h, 1) \
         t[#t + 1] = join({coroutine.resume(h, 5)}) \
         local m = coroutine.create(function() \
           local o = setmetatable({}, {__index = coroutine.yield}) \
           return o.k .. o.j \
         end) \
         t[#t + 1] = select(3, coroutine.resume(m)) \
         t[#t + 1] = select(3, coroutine.resume(m, 'a', 'b')) \
         t[#t + 1] = join({coroutine.resume(m, 'c')}) \
         local w = coroutine.wrap(function(...) \
           local a = ... \
           while true do a = coroutine.yield(a, a) end \
         end) \
         t[#t + 1] = join({w(3)}) .. ';' .. join({w(4)}) \
         return join(t) .. '|' .. join(log)",
        "true,3,true,3,false,cannot resume dead coroutine,dead,false,cannot resume dead coroutine,\
         true,4,5,true,6,7,8,dead,true,10,k,j,true,ac,3,3;4,4|pqr,0",
    );
}

/// `collect()`: a full collection from Rust, which runs no Lua code and so
/// leaves the slots above its arguments as they are.
fn native_collect(st: &mut State) -> Result<Action, Error> {
    st.collect_garbage();
    Ok(Action::Return(0))
}

/// The budget hook of `a_natives_return_brings_back_no_freed_object`: the
/// heap-consistency check, with the running stack, at every limits check.
fn hook_heapcheck(st: &mut State) -> Result<(), Error> {
    if let Err(e) = st.check_heap() {
        panic!("at a limits check: {e}");
    }
    Ok(())
}

#[test]
fn a_natives_return_brings_back_no_freed_object() {
    // The registers above a native call's arguments are outside the stack
    // while it runs. If no atomic step of the collector ran they still
    // hold no freed object when the call returns, and are kept
    // (`stack.rs`); here `collect` collects all garbage, freeing the tables
    // the dead locals held, and the return must clear them. The budget
    // hook checks the heap, the running stack's slots included, at every
    // limits check; the inner loop's varying length moves the check across
    // the body's charges from one slice to the next, onto `h()`'s among
    // them, right after the native's return.
    let mut st = State::new();
    let f = st.register_native("test.collect", native_collect);
    st.set_global("collect", f);
    st.set_budget_hook(Some(hook_heapcheck));
    let src = "local function h() end
               local function f(n)
                 do local a, b, c, d, e = {n}, {n}, {n}, {n}, {n} end
                 collect()
                 h()
                 for j = 1, n % 13 do end
                 return n
               end
               local s = 0
               for n = 1, 20000 do s = s + f(n) end
               return s";
    let r = st.exec(src.as_bytes(), b"=keep").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(r[..], [Value::Int(200010000)]), "{r:?}");
    st.check_heap().unwrap();
}

#[test]
fn a_stack_that_stops_running_keeps_nothing_above_its_length() {
    // The slots above the running stack's length keep values for the next
    // call (`stack.rs`), and the collector's atomic step forgets them — but
    // only the running stack's. Here the main stack is stored in its thread
    // while a coroutine runs a full collection, which frees the tables left
    // in `g`'s registers; when the main stack runs again, `h`'s registers
    // (where `g`'s were) must not bring them back. `checkon()` sets a count
    // hook that checks the heap, the running frame's registers included,
    // before every instruction, so before `h` writes its registers.
    let mut st = State::new();
    for (name, f) in [
        ("collect", native_collect as NativeFn),
        ("checkon", native_checkon),
        ("checkoff", native_checkoff),
    ] {
        let f = st.register_native(name, f);
        st.set_global(name, f);
    }
    let src = "local co = coroutine.wrap(function()
                 while true do collect(); coroutine.yield() end
               end)
               local function h() local p, q, r, s, t = 1, 2, 3, 4, 5 end
               local function g(n)
                 do local a, b, c, d, e = {n}, {n}, {n}, {n}, {n} end
                 return n
               end
               local s = 0
               for n = 1, 50 do
                 g(n)
                 co()
                 checkon()
                 h()
                 checkoff()
                 s = s + n
               end
               return s";
    let r = st.exec(src.as_bytes(), b"=park").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(r[..], [Value::Int(1275)]), "{r:?}");
    st.check_heap().unwrap();
}

/// `checkon()`: checks the heap before every instruction from now on.
fn native_checkon(st: &mut State) -> Result<Action, Error> {
    let th = st.running_thread();
    st.set_hook(th, Some(hook_heapcheck_each), hookmask::COUNT, 1);
    Ok(Action::Return(0))
}

fn native_checkoff(st: &mut State) -> Result<Action, Error> {
    let th = st.running_thread();
    st.set_hook(th, None, 0, 0);
    Ok(Action::Return(0))
}

fn hook_heapcheck_each(st: &mut State, _: HookEvent, _: Option<u32>) -> Result<(), Error> {
    if let Err(e) = st.check_heap() {
        panic!("before an instruction: {e}");
    }
    Ok(())
}

#[test]
fn a_state_at_rest_keeps_nothing_above_its_stack() {
    // What a call leaves above the stack's length is not state (`stack.rs`):
    // a state saved between two calls from Rust and loaded elsewhere must
    // then run as the original, even where a frame's registers show what
    // earlier frames left. `g` leaves tables in its registers; `h`'s
    // registers are read (as temporaries, by a count hook) before `h`
    // writes them, in the state that ran `g` and in a state loaded from it.
    let first = "local function g() local a, b, c, d, e = {}, {}, {}, {}, {} end g()";
    let second = "local function h() local p, q, r, s, t = 1, 2, 3, 4, 5 end
                  temps_on() h() temps_off()";
    let setup = |st: &mut State| {
        for (name, f) in [("temps_on", native_temps_on as NativeFn), ("temps_off", native_checkoff)]
        {
            let f = st.register_native(name, f);
            st.set_global(name, f);
        }
    };
    let mut a = State::new();
    setup(&mut a);
    a.exec(first.as_bytes(), b"=first").unwrap_or_else(|e| panic!("{e}"));
    let saved = a.save_state().unwrap_or_else(|e| panic!("{e}"));
    a.exec(second.as_bytes(), b"=second").unwrap_or_else(|e| panic!("{e}"));
    let seen_a = TEMPS.with(|t| std::mem::take(&mut *t.borrow_mut()));
    let mut b = State::new();
    setup(&mut b);
    b.load_state(&saved).unwrap_or_else(|e| panic!("{e}"));
    b.exec(second.as_bytes(), b"=second").unwrap_or_else(|e| panic!("{e}"));
    let seen_b = TEMPS.with(|t| std::mem::take(&mut *t.borrow_mut()));
    assert!(seen_a.contains("nil"), "{seen_a}");
    assert_eq!(seen_a, seen_b);
}

thread_local! {
    /// What `hook_temps` saw: the type of each temporary of the running
    /// frame, before each instruction.
    static TEMPS: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `temps_on()`: records the running frame's temporaries before every
/// instruction from now on.
fn native_temps_on(st: &mut State) -> Result<Action, Error> {
    let th = st.running_thread();
    st.set_hook(th, Some(hook_temps), hookmask::COUNT, 1);
    Ok(Action::Return(0))
}

fn hook_temps(st: &mut State, _: HookEvent, _: Option<u32>) -> Result<(), Error> {
    let th = st.running_thread();
    let f = st.frame_by_level(th, 0).expect("the hooked frame");
    let mut line = String::new();
    for n in 1..=8 {
        if let Some((name, v)) = st.frame_local(f, n) {
            line += &format!("{name}={} ", v.type_name());
        }
    }
    TEMPS.with(|t| *t.borrow_mut() += &(line + "\n"));
    Ok(())
}
