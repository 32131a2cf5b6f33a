//! The instruction budget covers the work done inside library functions
//! (`limits.rs`, "Work done by natives"): every pathological call stops
//! with the instruction limit or the interrupt flag, with the right error
//! kind, at a point that depends only on the program (the same charge in
//! every fresh state), and leaves the state usable. No test measures time:
//! each would run for minutes (or exhaust the machine's memory) if the
//! library did not charge its work.

use luprex_vm::raw::{ErrorKind, State, Value};

/// The limit every pathological call runs under.
const LIMIT: u64 = 1_000_000;

/// A fresh state with the sandbox libraries (what a game world runs).
fn fresh() -> State {
    let mut st = State::new();
    luprex_stdlib::open_sandbox(&mut st).expect("open_sandbox");
    st
}

fn run(st: &mut State, src: &str) -> Result<Vec<Value>, luprex_vm::raw::Error> {
    st.exec(src.as_bytes(), b"=work")
}

/// The pathological calls: `(name, setup, call)`. `setup` runs without a
/// limit and builds the (large) inputs as globals; `call` is one library
/// call (or a loop of cheap Lua around one) that would run for minutes if
/// the library did not charge its work.
const CASES: &[(&str, &str, &str)] = &[
    (
        "find, exponential backtracking (the issue's example)",
        "",
        "string.find(string.rep('a', 30), string.rep('a?', 30) .. string.rep('a', 30))",
    ),
    (
        "match, exponential backtracking",
        "",
        "string.match(string.rep('a', 40), string.rep('a*', 20) .. 'b')",
    ),
    ("gsub, quadratic lazy repetition", "S = string.rep('a', 200000)", "string.gsub(S, '.-b', '')"),
    (
        "gsub, catastrophic pattern",
        "",
        "string.gsub(string.rep('a', 30), string.rep('a?', 30) .. string.rep('a', 30), 'x')",
    ),
    ("gmatch, quadratic", "S = string.rep('a', 200000)", "for w in S:gmatch('.-b') do end"),
    ("find %b, quadratic", "S = string.rep('(', 200000)", "string.find(S, '%b()')"),
    (
        "back-reference over a long capture",
        "S = string.rep('a', 100000)",
        "string.find(S, '(a*).-%1b')",
    ),
    (
        "plain find, long needle",
        "S = string.rep('a', 1000000) N = string.rep('a', 10000) .. 'b'",
        "string.find(S, N, 1, true)",
    ),
    ("rep of 1e9", "", "string.rep('a', 1e9)"),
    ("rep with a separator", "", "string.rep('ab', 3e8, ',')"),
    (
        "gsub, large replacement",
        "B = string.rep('x', 1000000)",
        "string.gsub(string.rep('y', 10000), '.', B)",
    ),
    (
        "table.concat of a huge table",
        "S = string.rep('x', 10000) T = {} for i = 1, 100000 do T[i] = S end",
        "table.concat(T)",
    ),
    (
        "sort 1e6 elements with a comparator",
        "T = {} for i = 1, 1000000 do T[i] = (i * 7919) % 1000003 end",
        "table.sort(T, function(a, b) return a < b end)",
    ),
    (
        "sort 1e6 elements without comparator",
        "T = {} for i = 1, 1000000 do T[i] = (i * 7919) % 1000003 end",
        "table.sort(T)",
    ),
    (
        "table.insert at the front of a long list",
        "T = {} for i = 1, 1000000 do T[i] = i end",
        "for i = 1, 10 do table.insert(T, 1, i) end",
    ),
    (
        "table.remove at the front of a long list",
        "T = {} for i = 1, 1000000 do T[i] = i end",
        "for i = 1, 10 do table.remove(T, 1) end",
    ),
    ("table.move over a huge range", "", "table.move({}, 1, 1e12, 2)"),
    ("table.unpack of long ranges", "T = {}", "for i = 1, 100 do table.unpack(T, 1, 500000) end"),
    (
        "string.byte of a long string",
        "S = string.rep('a', 500000)",
        "for i = 1, 100 do string.byte(S, 1, -1) end",
    ),
    ("upper of a long string", "S = string.rep('a', 1e7)", "for i = 1, 100 do S:upper() end"),
    ("reverse of a long string", "S = string.rep('a', 1e7)", "for i = 1, 100 do S:reverse() end"),
    ("sub of a long string", "S = string.rep('a', 1e7)", "for i = 1, 100 do S:sub(2) end"),
    (
        "format of a long string",
        "S = string.rep('a', 1e7)",
        "for i = 1, 100 do string.format('%s', S) end",
    ),
    (
        "concatenation of a long string",
        "S = string.rep('a', 1e7)",
        "for i = 1, 100 do local x = S .. 'b' end",
    ),
    ("tostring of a long string", "S = string.rep('a', 1e7)", "for i = 1, 100 do tostring(S) end"),
    ("tonumber of a long string", "S = string.rep(' ', 1e7)", "for i = 1, 100 do tonumber(S) end"),
    ("utf8.len of a long string", "S = string.rep('a', 1e7)", "for i = 1, 100 do utf8.len(S) end"),
    (
        "utf8.offset in a long string",
        "S = string.rep('a', 1e7)",
        "for i = 1, 100 do utf8.offset(S, 1e7) end",
    ),
    (
        "utf8.codes from a far control value",
        "S = string.rep('\\x80', 1e7)",
        "local it = utf8.codes(S, true) for i = 1, 100 do it(S, 0) end",
    ),
    ("string.pack of a huge char field", "", "string.pack('c2000000000', '')"),
    (
        "next over a table emptied of most of its entries",
        "T = {} for i = 1, 1000000 do T[i] = i end for i = 1, 999999 do T[i] = nil end",
        "for i = 1, 100000 do next(T) end",
    ),
    ("load of a huge chunk", "SRC = string.rep('local x = 1\\n', 1000000)", "load(SRC)"),
    (
        "collectgarbage over a large heap",
        "T = {} for i = 1, 200000 do T[i] = {} end",
        "for i = 1, 1000 do collectgarbage() end",
    ),
];

/// Runs the setup without a limit, then the call under `limit` (and the
/// interrupt flag if `interrupt`); returns the error kind.
fn stop(st: &mut State, setup: &str, call: &str, limit: Option<u64>, interrupt: bool) -> ErrorKind {
    run(st, setup).expect("setup");
    st.set_instruction_limit(limit);
    let handle = st.interrupt_handle();
    if interrupt {
        handle.interrupt();
    }
    let r = run(st, call);
    handle.clear();
    match r {
        Ok(_) => panic!("finished: {call}"),
        Err(e) => e.kind().clone(),
    }
}

/// The state still works after the stop: lift the limit, run more code.
fn assert_usable(st: &mut State) {
    st.set_instruction_limit(Some(LIMIT));
    let r = run(st, "return (string.find(string.rep('ab', 10), 'b', 5, true))").unwrap();
    assert!(matches!(r[..], [Value::Int(6)]), "{r:?}");
    st.set_instruction_limit(None);
    st.collect_garbage();
    st.check_heap().unwrap();
}

#[test]
fn pathological_calls_hit_the_instruction_limit() {
    for &(name, setup, call) in CASES {
        let mut st = fresh();
        let kind = stop(&mut st, setup, call, Some(LIMIT), false);
        assert_eq!(kind, ErrorKind::InstructionLimit, "{name}");
        assert_eq!(st.instructions_left(), Some(0), "{name}");
        assert_usable(&mut st);
    }
}

#[test]
fn pathological_calls_stop_on_the_interrupt_flag() {
    for &(name, setup, call) in CASES {
        let mut st = fresh();
        let kind = stop(&mut st, setup, call, None, true);
        assert_eq!(kind, ErrorKind::Interrupted, "{name}");
        assert_usable(&mut st);
    }
}

/// The limit cannot be caught inside Lua, even when the native runs under
/// `pcall`.
#[test]
fn pcall_does_not_catch_the_stop() {
    let mut st = fresh();
    let call = "local ok = pcall(string.find, string.rep('a', 30), \
                string.rep('a?', 30) .. string.rep('a', 30)) return ok";
    assert_eq!(stop(&mut st, "", call, Some(LIMIT), false), ErrorKind::InstructionLimit);
    assert_usable(&mut st);
}

/// An interrupt raised from another thread while the matcher runs, with
/// no instruction limit, stops it (the call alone takes minutes).
#[test]
fn interrupt_from_another_thread_stops_the_matcher() {
    let mut st = fresh();
    let handle = st.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        handle.interrupt();
    });
    let call = "string.find(string.rep('a', 30), string.rep('a?', 30) .. string.rep('a', 30))";
    let e = run(&mut st, call).unwrap_err();
    t.join().unwrap();
    assert_eq!(*e.kind(), ErrorKind::Interrupted);
    st.interrupt_handle().clear();
    assert_usable(&mut st);
}

/// Units charged by `call` after `setup` in a fresh state (under a limit
/// too high to be reached).
fn charged(setup: &str, call: &str) -> u64 {
    const HIGH: u64 = 1 << 50;
    let mut st = fresh();
    run(&mut st, setup).unwrap();
    st.set_instruction_limit(Some(HIGH));
    run(&mut st, call).unwrap();
    HIGH - st.instructions_left().unwrap()
}

/// Heavy but finite calls: the count of each is the same in every fresh
/// state, and a limit of exactly that count lets it finish while one less
/// stops it (the stop falls on the same charge every time).
#[test]
fn the_charge_is_deterministic_and_exact() {
    let cases: &[(&str, &str)] = &[
        (
            "",
            "return string.find(string.rep('a', 18), string.rep('a?', 18) .. string.rep('a', 18))",
        ),
        ("S = string.rep('ab', 50000)", "return S:gsub('(a)(b)', '%2%1')"),
        (
            "S = string.rep('a', 100000)",
            "local n = 0 for w in S:gmatch('a') do n = n + 1 end return n",
        ),
        ("T = {} for i = 1, 20000 do T[i] = (i * 31) % 20011 end", "table.sort(T) return T[1]"),
        ("T = {} for i = 1, 20000 do T[i] = 'x' end", "return #table.concat(T, ',')"),
        ("", "return #string.rep('abc', 1e6, ',')"),
        ("", "return #(string.rep('x', 1e6) .. 'y')"),
    ];
    for &(setup, call) in cases {
        let n = charged(setup, call);
        assert_eq!(n, charged(setup, call), "{call}");
        assert!(n > 1000, "{call}: only {n} units");
        let mut st = fresh();
        run(&mut st, setup).unwrap();
        st.set_instruction_limit(Some(n));
        run(&mut st, call).unwrap_or_else(|e| panic!("{call} under {n}: {e}"));
        let mut st = fresh();
        run(&mut st, setup).unwrap();
        st.set_instruction_limit(Some(n - 1));
        let e = run(&mut st, call).unwrap_err();
        assert_eq!(*e.kind(), ErrorKind::InstructionLimit, "{call}");
    }
}

/// Two fresh states stopped by the same limit in the middle of a gsub
/// with a function replacement reach the same state: same number of
/// replacements made, same heap.
#[test]
fn the_stop_point_is_the_same_in_every_state() {
    let prog = "N = 0 S = string.rep('ab', 200000) \
                S:gsub('(a)(b)', function(a, b) N = N + 1 return b .. a end)";
    let hash = || {
        let mut st = fresh();
        st.set_instruction_limit(Some(LIMIT));
        let e = run(&mut st, prog).unwrap_err();
        assert_eq!(*e.kind(), ErrorKind::InstructionLimit);
        st.set_instruction_limit(None);
        let n = run(&mut st, "return N").unwrap();
        let Value::Int(n) = n[0] else { panic!("{n:?}") };
        assert!(n > 1000 && n < 200_000, "{n}");
        (n, st.state_hash())
    };
    assert_eq!(hash(), hash());
}

/// Without a limit, the charged functions return what they always did.
#[test]
fn results_are_unchanged_without_a_limit() {
    let mut st = fresh();
    let src = r#"
        assert(string.rep('ab', 3, ',') == 'ab,ab,ab')
        assert(#string.rep('abc', 100000) == 300000)
        assert(string.rep('abc', 100000):sub(-4) == 'cabc')
        assert(#string.rep('abcdefg', 70000, '--') == 70000 * 9 - 2)
        local s = string.rep('abcdefg', 70000, '--')
        assert(s:sub(1, 20) == 'abcdefg--abcdefg--ab')
        assert(s:sub(-10) == 'g--abcdefg')
        assert(string.find(string.rep('a', 1000) .. 'b', string.rep('a', 100) .. 'b', 1, true) == 901)
        assert(string.find('xxabcabd', 'abd', 1, true) == 6)
        assert(string.find('abc', '', 2, true) == 2)
        assert(string.find('abc', 'abcd', 1, true) == nil)
        assert(select(2, string.gsub(string.rep('ab', 1000), 'a', 'x')) == 1000)
        local t = {} for i = 1, 1000 do t[i] = (i * 37) % 1001 end
        table.sort(t) for i = 2, 1000 do assert(t[i - 1] <= t[i]) end
        assert(#table.concat({'a', 'b', 'c'}, ', ') == 7)
        assert(utf8.len('h\u{e9}llo') == 5)
        assert(string.unpack('i4', string.pack('i4', 7)) == 7)
        assert(#string.pack('c10', 'ab') == 10)
        return true
    "#;
    let r = run(&mut st, src).unwrap();
    assert!(matches!(r[..], [Value::Bool(true)]));
}

/// The VM's own bulk copies are charged too: `..` (above) and `...`
/// expanded in full, which a loop of cheap instructions can repeat.
#[test]
fn vararg_expansion_is_charged() {
    let mut st = fresh();
    let setup = "function F(...) for i = 1, 1000 do local n = select('#', ...) end end \
                 T = {} for i = 1, 300000 do T[i] = i end";
    let kind = stop(&mut st, setup, "F(table.unpack(T))", Some(LIMIT), false);
    assert_eq!(kind, ErrorKind::InstructionLimit);
    assert_usable(&mut st);
}
