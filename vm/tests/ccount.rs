//! The C-call count (`vm/src/ccount.rs`) through the embedding API: the
//! depth a recursion reaches before `C stack overflow` moves with the
//! host's declared levels, and every way of leaving the deep calls
//! (returns, caught errors, yields, dead coroutines) puts the count back
//! at rest, so that a snapshot and a saved state are allowed afterwards.
//! The exact depths against `lua5.4` are the differential case
//! `tests/differential/cases/c_stack_levels.lua`.

use luprex_vm::raw::{State, Value};

/// How deep nested resumes go from a chunk run by `State::exec`.
const NEST: &str = r#"
    local depth = 0
    local function nest()
      depth = depth + 1
      local ok, e = coroutine.resume(coroutine.create(nest))
      if not ok then error(e, 0) end
    end
    local ok, e = pcall(nest)
    return depth, e
"#;

fn depth_and_message(st: &mut State) -> (i64, String) {
    let r = st.exec(NEST.as_bytes(), b"=nest").unwrap_or_else(|e| panic!("{e}"));
    let Value::Int(d) = r[0] else { panic!("depth: {:?}", r[0]) };
    (d, String::from_utf8_lossy(&st.tostring(r[1])).into_owned())
}

#[test]
fn host_levels_shorten_the_recursion_by_as_many() {
    let mut st = State::new();
    let (d0, msg) = depth_and_message(&mut st);
    assert_eq!(msg, "C stack overflow");
    let mut st = State::new();
    st.set_host_c_calls(1);
    let (d1, _) = depth_and_message(&mut st);
    assert_eq!(d0 - 1, d1, "one declared level is one resume less");
    // The chunk runs at level 1 (State::exec's call), `nest` at 2 (pcall),
    // the body of the coroutine of the `d`th call at `d + 2`, and starting
    // a body at level 200 fails: `d + 1 == 199`.
    assert_eq!(d0, 198);
}

#[test]
fn the_count_is_at_rest_after_every_way_out() {
    let mut st = State::new();
    let src = r#"
        local function pc() local ok, e = pcall(pc); if not ok then error(e, 0) end end
        assert(not pcall(pc))
        local t = setmetatable({}, {__index = function(t, k) return t[k + 1] end})
        assert(not pcall(function() return t[1] end))
        -- A coroutine left suspended inside pcall and a metamethod.
        local m = setmetatable({}, {__index = function() coroutine.yield(1); return 2 end})
        parked = coroutine.create(function() return pcall(function() return m.x end) end)
        assert(coroutine.resume(parked))
        -- One that died deep inside.
        dead = coroutine.create(function() return t[1] end)
        assert(not coroutine.resume(dead))
        -- Errors in message handlers, again and again.
        local n = 0
        assert(not xpcall(error, function(e) n = n + 1; error(e, 0) end, "x"))
        return n
    "#;
    let r = st.exec(src.as_bytes(), b"=ways").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(r[0], Value::Int(n) if n > 150), "the handler ran again on its errors");
    st.snapshot().expect("a snapshot at rest");
    st.save_state().expect("a save at rest");
    // The parked coroutine finishes later with the count it has then.
    let r =
        st.exec(b"return coroutine.resume(parked)", b"=finish").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.len(), 3);
    assert!(matches!(r[2], Value::Int(2)));
    let (d, _) = depth_and_message(&mut st);
    assert_eq!(d, 198, "nothing left over from the parked frames");
}
