//! Checks of a loaded state that need the state's insides.

use crate::state::State;
use crate::thread::cist;
use crate::value::Value;

/// `cist::LUA_CALLER` lets RETURN's fast path skip its other tests and
/// read the frame below unchecked, so a loaded state must not carry it on
/// a frame without a Lua caller.
#[test]
fn a_frame_flagged_with_a_lua_caller_it_lacks_is_refused() {
    let mut st = State::new();
    let src = "CO = coroutine.create(function() local function f() coroutine.yield() end f() end)
               coroutine.resume(CO)";
    st.exec(src.as_bytes(), b"=t").unwrap_or_else(|e| panic!("{e}"));
    let Value::Thread(co) = st.get_global("CO") else { panic!("no coroutine") };
    // The body (entered by the resume), `f` (called by CALL), `yield`.
    let flags: Vec<u8> = st.heap.threads.get(co).ex.frames.iter().map(|ci| ci.status).collect();
    assert_eq!(flags.iter().map(|s| s & cist::LUA_CALLER).collect::<Vec<_>>(), [0, 128, 0]);
    let good = st.save_state().unwrap_or_else(|e| panic!("{e}"));
    State::new().load_state(&good).unwrap_or_else(|e| panic!("{e}"));
    for at in [0, 2] {
        let mut bad = State::new();
        bad.load_state(&good).unwrap_or_else(|e| panic!("{e}"));
        bad.heap.threads.get_mut(co).ex.frames[at].status |= cist::LUA_CALLER;
        let bytes = bad.save_state().unwrap_or_else(|e| panic!("{e}"));
        let e = State::new().load_state(&bytes).expect_err("a false flag");
        assert!(e.message().contains("bad frame: flags"), "{}", e.message());
    }
}
