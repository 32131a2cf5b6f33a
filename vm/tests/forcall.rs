//! The generic `for` steps `next` and `ipairs`'s iterator in place
//! (`vm/src/forcall.rs`). The step must not be observable: each script
//! here runs twice, once as is (the inline step) and once with a hook set
//! on an idle coroutine, which makes every call of the main thread an
//! ordinary call without firing anything for it; results, errors and the
//! units charged must be the same.

include!("support/in_place.rs");

const CHUNK: &[u8] = b"=forcall";

fn state(called: bool) -> State {
    let mut st = State::new();
    if called {
        hook_idle_coroutine(&mut st);
    }
    st
}

const SCRIPTS: &[&str] = &[
    // pairs over an array part with holes, then hash entries
    "local t = {1, 2, nil, 4, a = 'x', b = 'y', [2.5] = 'z'}
     local out = {}
     for k, v in pairs(t) do out[#out + 1] = tostring(k) .. '=' .. tostring(v) end
     local s = '' for i = 1, #out do s = s .. out[i] .. ' ' end return s",
    // one and three loop variables: the third is nil
    "local t = {10, 20, p = 1, q = 2}
     local s, n = '', 0
     for k in pairs(t) do s = s .. tostring(k) end
     for k, v, extra in pairs(t) do n = n + 1; assert(extra == nil) end
     return s, n",
    // next named directly, and started from a key (the hint does not help)
    "local t = {a = 1, b = 2, c = 3, d = 4}
     local s = ''
     for k, v in next, t do s = s .. k end
     for k, v in next, t, 'b' do s = s .. k end
     return s",
    // fields cleared during the traversal (allowed), nested traversals
    "local t, u = {}, {}
     for i = 1, 50 do t['k' .. i] = i; u[i] = i end
     local sum = 0
     for k, v in pairs(t) do
       t[k] = nil
       for i, w in pairs(u) do sum = sum + w end
       sum = sum + v
     end
     return tostring(sum), tostring(next(t))",
    // a table emptied of most entries: each step scans (charged as work)
    "local t = {}
     for i = 1, 2000 do t['k' .. i] = i end
     for i = 1, 1990 do t['k' .. i] = nil end
     local n = 0
     for r = 1, 20 do for k, v in pairs(t) do n = n + v end end
     return tostring(n)",
    // ipairs: stops at the first nil; __index supplies values
    "local t = {1, 2, 3, nil, 5}
     local s = 0
     for i, v in ipairs(t) do s = s + i * v end
     local p = setmetatable({1, 2}, {__index = function(_, i) if i < 6 then return i * 10 end end})
     for i, v in ipairs(p) do s = s + v end
     local q = setmetatable({}, {__index = {7, 8, 9}})
     for i, v in ipairs(q) do s = s + v end
     return tostring(s)",
    // errors: an invalid key, a non-table state, a non-integer control
    "local t = {a = 1}
     local ok1, e1 = pcall(function() for k in next, t, 'zz' do end end)
     local ok2, e2 = pcall(function() for k in next, 42 do end end)
     local f = ipairs({})
     local ok3, e3 = pcall(function() for i in f, {1}, 'x' do end end)
     return tostring(e1), tostring(e2), tostring(e3)",
    // pairs with __pairs and a user iterator are ordinary calls
    "local t = setmetatable({}, {__pairs = function(t) return function(_, k) if not k then return 1, 'one' end end, t, nil end})
     local s = ''
     for k, v in pairs(t) do s = s .. v end
     for k, v in function(_, k) if (k or 0) < 3 then return (k or 0) + 1, 'x' end end do s = s .. v end
     return s",
    // Lua iterators, entered without `precall` (`tforcall_lua`):
    // closures with upvalues, fewer and more parameters than the three
    // values, a vararg iterator (the ordinary call), nested loops, an
    // error inside the iterator (its position) and a recursion through
    // iterators deep enough to overflow the stack
    "local function range(n)
       local i = 0
       return function() i = i + 1; if i <= n then return i, i * i end end
     end
     local function one(s) s.n = s.n + 1; if s.n < 4 then return s.n end end
     local function four(a, b, c, d) assert(d == nil); if b < 3 then return b + 1, a end end
     local function va(...) local s, c = ...; if c < 3 then return c + 1, select('#', ...) end end
     local function junk() local a, b, c, d, e, f, g, h, i, j, k, l = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 end
     local acc = 0
     junk()
     for i, sq in range(5) do acc = acc + sq end
     for k in one, {n = 0} do acc = acc + k end
     junk()
     for k, st in four, 'st', 0 do acc = acc + k end
     for k, n in va, nil, 0 do acc = acc + k * n end
     for i in range(3) do for j in range(i) do acc = acc + j end end
     local ok, e = pcall(function() for k in function(_, c) return c + nil end, nil, 1 do end end)
     local function deep(n) for k in function(_, c) if not c then return deep(n + 1) end end do end end
     local ok2, e2 = pcall(deep, 1)
     return tostring(acc), tostring(e), tostring(ok2), tostring(e2)",
    // a Lua iterator entered in place that yields from inside its frame,
    // and a loop over a coroutine's own iterator resumed step by step
    "local function gen(n)
       return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
     end
     local co = coroutine.wrap(function()
       local s = 0
       for i in function(_, c) if c < 4 then coroutine.yield(c); return c + 1 end end, nil, 0 do
         s = s + i
       end
       return 'done' .. s
     end)
     local out = {}
     for _ = 1, 5 do out[#out + 1] = tostring(co()) end
     for v in gen(3) do out[#out + 1] = v end
     local s = out[1]
     for i = 2, #out do s = s .. ',' .. out[i] end
     return s",
];

#[test]
fn inline_steps_match_the_calls() {
    for src in SCRIPTS {
        same(src);
    }
}

#[test]
fn results_are_lua_s() {
    assert_eq!(same(SCRIPTS[2]).result, "abcdcd");
    // 1 + 4 + 9, then 1 + 2 + 30 + 40 + 50, then 7 + 8 + 9 (lua5.4 agrees).
    assert_eq!(same(SCRIPTS[5]).result, "161");
    // As lua5.4 prints them, but the overflow: lua5.4's TFORCALL nests its
    // C interpreter, whose 200 levels run out first (`C stack overflow`).
    assert_eq!(
        same(SCRIPTS[8]).result,
        "89,forcall:17: attempt to perform arithmetic on a nil value,false,forcall:18: stack overflow"
    );
    // The iterator yields before each of its four steps.
    assert_eq!(same(SCRIPTS[9]).result, "0,1,2,3,done10,1,2,3");
    // As lua5.4 words them.
    assert_eq!(
        same(SCRIPTS[6]).result,
        "invalid key to 'next',\
         forcall:3: bad argument #1 to 'for iterator' (table expected, got number),\
         forcall:5: bad argument #2 to 'for iterator' (number expected, got string)"
    );
}

/// A limit that stops the loop stops it at the same step, with the same
/// error, whichever way the step goes: swept over a range of limits that
/// end inside the traversal. How far the loop got (`N`) tells where it
/// stopped: the budget check due at the call comes before the step.
#[test]
fn limits_stop_at_the_same_unit() {
    let src = "local t = {}
               for i = 1, 40 do t['k' .. i] = i end
               for i = 1, 35 do t['k' .. i] = nil end
               N = 0
               for r = 1, 4 do
                 for k, v in pairs(t) do
                   N = N + v
                 end
               end
               for r = 1, 4 do
                 for i, v in ipairs({1, 2, 3}) do
                   N = N + v
                 end
               end
               return tostring(N)";
    let full = run(src, false, LIMIT).units;
    for limit in (full - 120)..=full {
        let (inline, called) = (run(src, false, limit), run(src, true, limit));
        assert_eq!(inline, called, "limit {limit}");
    }
}

/// A call hook on the running thread sees every step as a call.
#[test]
fn a_call_hook_sees_each_step() {
    // The chunk, `pairs`, and `next` four times (three pairs and the end).
    assert_eq!(calls_seen("local t = {a = 1, b = 2, c = 3} for k, v in pairs(t) do end"), 6);
}
