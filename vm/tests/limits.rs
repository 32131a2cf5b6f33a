//! Limits for untrusted scripts: every runaway script stops with the right
//! error kind, Lua cannot swallow the instruction limit or an interrupt, a
//! memory error is catchable but cannot be used to grow past the limit, the
//! count is deterministic, and the state is usable afterwards.

use luprex_vm::raw::ErrorKind;
use luprex_vm::raw::{Action, Error, State, Value};

/// `rep(n)`: a string of `n` bytes, checked against the memory limit
/// before it is built (as `string.rep` in the standard library).
fn rep(st: &mut State) -> Result<Action, Error> {
    let n = st.check_int(1)?.max(0) as usize;
    st.check_alloc(n)?;
    let v = st.new_string(&vec![b'x'; n]);
    st.push(v);
    Ok(Action::Return(1))
}

/// A state with `rep` and the given limits.
fn limited(instructions: Option<u64>, memory: Option<usize>) -> State {
    let mut st = State::new();
    let f = st.register_native("rep", rep);
    st.set_global("rep", f);
    st.set_instruction_limit(instructions);
    st.set_memory_limit(memory);
    st
}

fn run(st: &mut State, src: &str) -> Result<Vec<Value>, Error> {
    st.exec(src.as_bytes(), b"=input")
}

/// Runs `src` and returns the kind it failed with.
fn kind_of(st: &mut State, src: &str) -> ErrorKind {
    match run(st, src) {
        Ok(_) => panic!("script finished: {src}"),
        Err(e) => e.kind().clone(),
    }
}

/// The state still works: lift the limits and run a normal call.
fn assert_usable(st: &mut State) {
    st.set_instruction_limit(Some(1_000_000));
    st.set_memory_limit(None);
    let r = run(st, "local t = {} for i = 1, 100 do t[i] = i end return #t").unwrap();
    assert!(matches!(r[..], [Value::Int(100)]));
    st.check_heap().unwrap();
}

const LOOPS: &[&str] = &[
    "while true do end",
    "repeat local x = 1 until false",
    "::top:: do goto top end",
    "for i = 1, math and math.huge or 1e300 do end",
    "local function f() return f() end return f()",
    "local function f(n) return n end while true do f(1) end",
    "while true do pcall(function() local function f() f() end f() end) end",
    "local co = coroutine.wrap(function() while true do coroutine.yield() end end)
     while true do co() end",
    "local a = coroutine.create(function() while true do coroutine.yield(1) end end)
     while true do coroutine.resume(a) end",
    "for k in function() return 1 end do end",
    "setmetatable(_G, {__index = function(t, k) return 1 end}) while true do local x = undefined end",
    "while true do local s = rep(1000) end",
];

#[test]
fn runaway_loops_hit_the_instruction_limit() {
    for src in LOOPS {
        let mut st = limited(Some(200_000), None);
        assert_eq!(kind_of(&mut st, src), ErrorKind::InstructionLimit, "{src}");
        assert_eq!(st.instructions_left(), Some(0));
        assert_usable(&mut st);
    }
}

#[test]
fn limit_error_message_and_stickiness() {
    let mut st = limited(Some(1000), None);
    let e = run(&mut st, "local x = 0\nwhile true do x = x + 1 end").unwrap_err();
    assert_eq!(e.to_string(), "instruction limit exceeded");
    assert!(e.traceback().contains("in main chunk"), "{}", e.traceback());
    // Without a new limit, the next call fails again within the grace.
    let e = run(&mut st, "while true do end").unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InstructionLimit);
    let e = run(&mut st, "for i = 1, 5000 do end").unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InstructionLimit);
    assert_usable(&mut st);
}

#[test]
fn lua_cannot_swallow_the_instruction_limit() {
    let cases = [
        "return pcall(function() while true do end end)",
        "local ok = pcall(function() while true do end end) return ok",
        "return xpcall(function() while true do end end, function(m) return m end)",
        "return coroutine.resume(coroutine.create(function() while true do end end))",
        "local co = coroutine.wrap(function() while true do end end) return pcall(co)",
        "return pcall(pcall, function() while true do end end)",
        "local t <close> = setmetatable({}, {__close = function() end})
         return pcall(function() while true do end end)",
    ];
    for src in cases {
        let mut st = limited(Some(100_000), None);
        assert_eq!(kind_of(&mut st, src), ErrorKind::InstructionLimit, "{src}");
        assert_usable(&mut st);
    }
}

#[test]
fn to_be_closed_variables_are_closed_on_a_limit_error() {
    let mut st = limited(Some(100_000), None);
    let src = "closed = false
        local t <close> = setmetatable({}, {__close = function() closed = true end})
        local u <close> = setmetatable({}, {__close = function() while true do end end})
        pcall(function() while true do end end)";
    assert_eq!(kind_of(&mut st, src), ErrorKind::InstructionLimit);
    assert!(matches!(st.get_global("closed"), Value::Bool(true)));
    assert_usable(&mut st);
}

#[test]
fn exact_count_and_determinism() {
    let src = "n = 0
        local function f(x) return x + 1 end
        while true do
          n = n + 1
          if n % 3 == 0 then n = f(n) end
          for i = 1, 2 do end
        end";
    let stop = |limit: u64| {
        let mut st = limited(Some(limit), None);
        let e = run(&mut st, src).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InstructionLimit);
        match st.get_global("n") {
            Value::Int(n) => n,
            v => panic!("{v:?}"),
        }
    };
    let a = stop(123_457);
    assert_eq!(a, stop(123_457));
    assert!(stop(1_000_000) > a);
    assert!(stop(1_000) < a);
    // A terminating script: it may be charged exactly what it uses.
    let fin = "local s = 0 for i = 1, 1000 do s = s + i end return s";
    let mut st = limited(Some(1_000_000), None);
    run(&mut st, fin).unwrap();
    let used = 1_000_000 - st.instructions_left().unwrap();
    assert!(used > 1000, "{used}");
    let mut st = limited(Some(used), None);
    assert!(run(&mut st, fin).is_ok());
    assert_eq!(st.instructions_left(), Some(0));
    let mut st = limited(Some(used - 1), None);
    assert_eq!(kind_of(&mut st, fin), ErrorKind::InstructionLimit);
}

#[test]
fn budget_hook_still_runs() {
    fn hook(st: &mut State) -> Result<(), Error> {
        Err(st.error_string(b"hooked"))
    }
    let mut st = State::new();
    st.set_budget_hook(Some(hook));
    let e = run(&mut st, "while true do end").unwrap_err();
    assert_eq!(e.to_string(), "hooked");
}

#[test]
fn memory_runaways_hit_the_memory_limit() {
    let cases = [
        "local t = {} while true do t[#t + 1] = rep(10000) end",
        "local t = {} local i = 0 while true do i = i + 1 t[i] = i end",
        "local t = {} local i = 0 while true do i = i + 1 t['k' .. i] = {} end",
        "local s = 'x' while true do s = s .. s end",
        "local t = {} while true do t = {t} end",
        "collectgarbage('stop') local t = {} while true do t[#t + 1] = {} end",
        "return rep(1 << 40)",
    ];
    for src in cases {
        let limit = 8 << 20;
        let mut st = limited(Some(100_000_000), Some(limit));
        assert_eq!(kind_of(&mut st, src), ErrorKind::Memory, "{src}");
        st.collect_garbage();
        assert!(st.memory_in_use() <= limit, "{src}: {}", st.memory_in_use());
        assert_usable(&mut st);
    }
}

#[test]
fn memory_error_is_catchable_but_cannot_be_used_to_grow() {
    let limit = 4 << 20;
    let mut st = limited(Some(500_000), Some(limit));
    let r = run(
        &mut st,
        "local ok, e = pcall(function() local t = {} for i = 1, 1e8 do t[i] = i end end)
         return ok, e",
    )
    .unwrap();
    assert!(matches!(r[0], Value::Bool(false)));
    assert_eq!(st.to_str(r[1]).unwrap(), b"not enough memory");
    // Catch and retry, keeping everything: stopped by the instruction limit
    // while the heap stays near the memory limit.
    let src = "keep = {} fails = 0
        while true do
          local ok = pcall(function() keep[#keep + 1] = rep(10000) .. #keep end)
          if not ok then fails = fails + 1 end
        end";
    assert_eq!(kind_of(&mut st, src), ErrorKind::InstructionLimit);
    assert!(st.memory_in_use() <= limit + (64 << 10), "{}", st.memory_in_use());
    let fails = st.get_global("fails");
    assert!(matches!(fails, Value::Int(n) if n > 1000), "{fails:?}");
    assert_usable(&mut st);
}

#[test]
fn interrupt_from_another_thread() {
    let mut st = State::new();
    let h = st.interrupt_handle();
    assert!(!h.is_interrupted());
    let h2 = h.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        h2.interrupt();
    });
    let e = run(&mut st, "pcall(function() while true do end end)").unwrap_err();
    t.join().unwrap();
    assert_eq!(e.kind(), &ErrorKind::Interrupted);
    assert!(h.is_interrupted());
    // Still raised: the next call fails too, until the host clears it.
    let e = run(&mut st, "for i = 1, 1e6 do end").unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Interrupted);
    h.clear();
    assert_usable(&mut st);
}

#[test]
fn bad_argument_errors_have_their_kind() {
    let mut st = State::new();
    let e = run(&mut st, "setmetatable(1, {})").unwrap_err();
    match e.kind() {
        ErrorKind::BadArgument { pos, func } => {
            assert_eq!(*pos, 1);
            assert_eq!(func.as_deref(), Some("setmetatable"));
        }
        k => panic!("{k:?}"),
    }
}

// ----- nesting of Rust calls (`MAX_CCALLS`) without stack growth ---------

/// `sp()`: an address on the Rust stack (to measure the stack per level).
fn sp(st: &mut State) -> Result<Action, Error> {
    let marker = 0u8;
    let addr = std::hint::black_box(&marker) as *const u8 as usize;
    st.push(Value::Int(addr as i64));
    Ok(Action::Return(1))
}

/// `callf(f, ...)`: calls `f(...)` nested on the Rust stack
/// (`State::call_value`), returning its results.
fn callf(st: &mut State) -> Result<Action, Error> {
    let n = st.nargs();
    let f = st.arg(1);
    let args: Vec<Value> = (2..=n).map(|i| st.arg(i)).collect();
    let r = st.call_value(f, &args)?;
    for v in &r {
        st.push(*v);
    }
    Ok(Action::Return(r.len()))
}

/// Nesting scripts: each recurses through a Rust-level call until the
/// `C stack overflow` error, recording the stack address at depth 1 and 41
/// in `sp1`, `sp41`; they return the depth reached and the error.
const NESTING: &[(&str, &str)] = &[
    (
        // Called by `pcall`, not by a loop instruction: the nested resume
        // (`coswitch.rs`).
        "coroutine.resume",
        "local function nest(n)
           if n == 1 then sp1 = sp() elseif n == 41 then sp41 = sp() end
           local co = coroutine.create(function() return nest(n + 1) end)
           local p, ok, r, e = pcall(coroutine.resume, co)
           if not p then return n, ok end
           if ok then return r, e else return n, r end
         end
         return nest(1)",
    ),
    (
        "call_value",
        "local function nest(n)
           if n == 1 then sp1 = sp() elseif n == 41 then sp41 = sp() end
           local ok, r, e = pcall(callf, nest, n + 1)
           if ok then return r, e else return n, r end
         end
         local d, e = nest(1)
         return d, e",
    ),
    (
        "__tostring",
        "local n = 0
         local mt = {}
         mt.__tostring = function(o)
           n = n + 1
           if n == 1 then sp1 = sp() elseif n == 41 then sp41 = sp() end
           return tostring(setmetatable({}, mt))
         end
         local ok, e = pcall(tostring, setmetatable({}, mt))
         return n, e",
    ),
];

/// Every Rust-level nesting ends in `C stack overflow` within 2 MB of
/// stack (the size of a test thread, and the documented minimum), and the
/// stack used per level is reported (`--nocapture`). Measured (x86-64):
/// ~3.1-4.0 KB per level in release, ~3.6-4.7 KB at the dev profile's
/// opt-level 1, ~95-100 KB unoptimized (which would not fit).
#[test]
fn rust_nesting_is_bounded_and_fits_in_2mb() {
    let worker = std::thread::Builder::new().stack_size(2 << 20);
    let out = worker
        .spawn(|| {
            let mut report = Vec::new();
            for (name, src) in NESTING {
                let mut st = State::new();
                for (n, f) in [("sp", sp as luprex_vm::raw::NativeFn), ("callf", callf)] {
                    let v = st.register_native(n, f);
                    st.set_global(n, v);
                }
                let r = run(&mut st, src).unwrap_or_else(|e| panic!("{name}: {e}"));
                let depth = match r[0] {
                    Value::Int(d) => d,
                    v => panic!("{name}: {v:?}"),
                };
                let msg = String::from_utf8_lossy(st.to_str(r[1]).unwrap_or(b"?")).into_owned();
                assert!(msg.contains("stack overflow"), "{name}: {msg}");
                assert!(depth > 41, "{name}: {depth}");
                let (Value::Int(a), Value::Int(b)) = (st.get_global("sp1"), st.get_global("sp41"))
                else {
                    panic!("{name}: no stack addresses")
                };
                report.push((name.to_string(), depth, (a - b) / 40));
            }
            report
        })
        .unwrap()
        .join()
        .unwrap();
    for (name, depth, per_level) in &out {
        let total = per_level * depth;
        eprintln!(
            "{name}: depth {depth}, {per_level} bytes of Rust stack per level, {total} in all"
        );
        assert!(*per_level > 0 && total < (2 << 20), "{name}: {per_level}");
    }
}

/// A resume made by a loop instruction (a CALL of `coroutine.resume` or
/// of a wrap's function) runs the coroutine in the same activation of the
/// loop (`coswitch.rs`): nesting coroutines takes no Rust stack, and still
/// ends in `C stack overflow` at the reference's depth.
#[test]
fn resumes_made_by_the_loop_take_no_rust_stack() {
    let resume = "local ok, r = coroutine.resume(coroutine.create(f))
                  if not ok then error(r, 0) end";
    let wrap = "coroutine.wrap(f)()";
    for call in [resume, wrap] {
        let src = format!(
            "local depth = 0
             local function nest(n)
               depth = n
               if n == 1 then sp1 = sp() elseif n == 41 then sp41 = sp() end
               local f = function() return nest(n + 1) end
               {call}
             end
             local ok, e = pcall(nest, 1)
             return depth, e"
        );
        let mut st = State::new();
        let v = st.register_native("sp", sp);
        st.set_global("sp", v);
        let r = run(&mut st, &src).unwrap_or_else(|e| panic!("{call}: {e}"));
        let msg = String::from_utf8_lossy(st.to_str(r[1]).unwrap_or(b"?")).into_owned();
        assert!(msg.ends_with("C stack overflow"), "{call}: {msg}");
        assert!(matches!(r[0], Value::Int(d) if d > 150), "{call}: depth {:?}", r[0]);
        let (Value::Int(a), Value::Int(b)) = (st.get_global("sp1"), st.get_global("sp41")) else {
            panic!("{call}: no stack addresses")
        };
        assert_eq!(a, b, "{call}: the Rust stack grew with the coroutines' nesting");
    }
}

/// `work(n)`: charges `n` units with `State::charge_work`.
fn work(st: &mut State) -> Result<Action, Error> {
    let n = st.check_int(1)?.max(0) as u64;
    st.charge_work(n)?;
    Ok(Action::Return(0))
}

/// `metered(n)`: charges `n` units one at a time through a `WorkMeter`.
fn metered(st: &mut State) -> Result<Action, Error> {
    let n = st.check_int(1)?.max(0) as u64;
    let (_heap, mut meter) = st.work_meter();
    for _ in 0..n {
        if let Err(stop) = meter.charge(1) {
            return Err(st.work_error(stop));
        }
    }
    Ok(Action::Return(0))
}

/// Natives charge their work to the same count as instructions, exactly,
/// whether in one charge or unit by unit through a meter; the charge that
/// passes the limit fails with its kind, and an interrupt stops them.
#[test]
fn natives_charge_work_exactly() {
    let fns: [(&str, luprex_vm::raw::NativeFn); 2] = [("work", work), ("metered", metered)];
    for (name, f) in fns {
        let left_after = |n: u64| {
            let mut st = State::new();
            let v = st.register_native(name, f);
            st.set_global(name, v);
            st.set_instruction_limit(Some(10_000_000));
            run(&mut st, &format!("{name}({n})")).unwrap();
            st.instructions_left().unwrap()
        };
        assert_eq!(left_after(0) - left_after(123_457), 123_457, "{name}");
        let mut st = State::new();
        let v = st.register_native(name, f);
        st.set_global(name, v);
        st.set_instruction_limit(Some(1_000_000));
        let src = format!("pcall({name}, 2000000)");
        assert_eq!(kind_of(&mut st, &src), ErrorKind::InstructionLimit, "{name}");
        assert_eq!(st.instructions_left(), Some(0));
        assert_usable(&mut st);
        st.set_instruction_limit(None);
        st.interrupt_handle().interrupt();
        assert_eq!(kind_of(&mut st, &format!("{name}(1e15)")), ErrorKind::Interrupted, "{name}");
        st.interrupt_handle().clear();
        assert_usable(&mut st);
    }
}
