//! Arithmetic on strings whose metamethod is the string library's own
//! native is done in place (`vm/src/strarith.rs`). That must not be
//! observable: each script here runs twice, once as is (in place where it
//! applies) and once with a hook set on an idle coroutine, which makes
//! every metamethod an ordinary call without firing anything for it;
//! results, errors (with their positions) and the units charged must be
//! the same.

include!("../../vm/tests/support/in_place.rs");

const CHUNK: &[u8] = b"=strarith";

fn state(called: bool) -> State {
    let mut st = State::new();
    luprex_stdlib::open_sandbox(&mut st).expect("open_sandbox");
    if called {
        hook_idle_coroutine(&mut st);
    }
    st
}

const SCRIPTS: &[&str] = &[
    // every event, strings on either side, integers and floats, spaces,
    // hexadecimal and exponents
    "local r = {}
     r[#r+1] = '10' + 1; r[#r+1] = 1 + '10'; r[#r+1] = ' 7 ' - '0x10'
     r[#r+1] = '3' * '1e2'; r[#r+1] = '7' % '3'; r[#r+1] = '-7' % 3
     r[#r+1] = '2' ^ '0.5'; r[#r+1] = '7' / '2'; r[#r+1] = '7' // '2'
     r[#r+1] = '7.5' // 2; r[#r+1] = -'3'; r[#r+1] = -' 0x10 '
     r[#r+1] = '9007199254740993' + 0; r[#r+1] = '1e308' * '10'
     r[#r+1] = math.type('3' + 0); r[#r+1] = math.type('3.0' + 0)
     local s = '' for i = 1, #r do s = s .. tostring(r[i]) .. ' ' end
     return s",
    // a summing loop, as a program reading numbers does
    "local sum = 0
     for i = 1, 300 do sum = sum + tostring(i) - ('' .. i // 2) end
     return tostring(sum)",
    // errors raised by the native, with their wording and position
    "local r = {}
     for _, f in ipairs({
       function() return '1' // '0' end,
       function() return '1' % 0 end,
       function() return 'a' + 1 end,
       function() return 1 - 'x' end,
       function() return '1' + {} end,
       function() return -'z' end,
       function() return '1' & 1 end,
     }) do
       local ok, e = pcall(f)
       r[#r+1] = tostring(e)
     end
     return table.concat(r, '|')",
    // the second operand's metamethod (trymt), a metamethod replaced
    "local mt = {__add = function(a, b) return 'added' end,
                 __unm = function(a) return 'negated' end}
     local o = setmetatable({}, mt)
     local r1, r2 = '5' + o, o + '5'
     local smt = getmetatable('')
     local add = smt.__add
     smt.__add = smt.__sub
     local r3 = '5' + '3'
     smt.__add = function(a, b) return 'mine' end
     local r4 = '5' + '3'
     smt.__add = add
     local r5 = '5' + '3'
     return r1, r2, tostring(r3), r4, tostring(r5)",
];

#[test]
fn in_place_matches_the_calls() {
    for src in SCRIPTS {
        same(src);
    }
}

/// What lua5.4 prints for the same scripts.
#[test]
fn results_are_lua_s() {
    assert_eq!(
        same(SCRIPTS[0]).result,
        "11 11 -9 300.0 1 2 1.4142135623731 3.5 3 3.0 -3 -16 9007199254740993 inf integer float "
    );
    assert_eq!(same(SCRIPTS[1]).result, "22650");
    assert_eq!(
        same(SCRIPTS[2]).result,
        "attempt to divide by zero|attempt to perform 'n%0'|\
         strarith:5: attempt to add a 'string' with a 'number'|\
         strarith:6: attempt to sub a 'number' with a 'string'|\
         strarith:7: attempt to add a 'string' with a 'table'|\
         strarith:8: attempt to unm a 'string' with a 'string'|\
         strarith:9: attempt to perform bitwise operation on a string value (constant '1')"
    );
    assert_eq!(same(SCRIPTS[3]).result, "added,added,2,mine,8");
}

/// A limit that stops the loop stops it at the same operation, with the
/// same error, whichever way the operation goes: the budget check due at
/// the metamethod's call comes before the arithmetic in both.
#[test]
fn limits_stop_at_the_same_unit() {
    let src = "N = 0
               for i = 1, 30 do
                 N = N + tostring(i) * '2'
                 N = N + 1
               end
               return tostring(N)";
    let full = run(src, false, LIMIT).units;
    for limit in (full - 150)..=full {
        let (inline, called) = (run(src, false, limit), run(src, true, limit));
        assert_eq!(inline, called, "limit {limit}");
    }
}

/// A call hook on the running thread sees each metamethod as a call.
#[test]
fn a_call_hook_sees_each_metamethod() {
    // The chunk, then __add, __unm and __mul.
    assert_eq!(calls_seen("local x = '1' + 2; local y = -'3' * '4'"), 4);
}
