//! Robustness: nasty Lua snippets must end in `Ok` or `Err`, never panic,
//! and leave a consistent heap (checked before and after a full
//! collection). Outcomes are not checked: only that the VM survives.
//!
//! Each snippet runs in a fresh state, then a second time in a state that
//! already ran all the others (to shake out state leaks between calls).

use luprex_vm::raw::State;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Shared definitions prepended to every snippet.
const PRELUDE: &str = r##"
local function closer(name, fail, yield)
  return setmetatable({}, {__close = function(o, e)
    if yield then coroutine.yield(name) end
    if fail then error(fail, 0) end
  end})
end
local function drive(f, ...)
  local co = coroutine.create(f)
  local r = {coroutine.resume(co, ...)}
  for _ = 1, 1000 do
    if coroutine.status(co) == "dead" then break end
    r = {coroutine.resume(co, "v")}
  end
  return co, r
end
"##;

const SNIPPETS: &[(&str, &str)] = &[
    (
        "error in __close in coroutine in pcall",
        r##"
        print(pcall(function()
          drive(function()
            local ok, e = pcall(function()
              local a <close> = closer("a", "ea", true)
              local b <close> = closer("b", {}, true)
              error("body")
            end)
            local c <close> = closer("c", "ec", true)
            error(e)
          end)
        end))
        "##,
    ),
    (
        "yield in every metamethod",
        r##"
        local y = coroutine.yield
        local mt = {}
        for _, ev in ipairs({"__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm",
            "__idiv", "__band", "__bor", "__bxor", "__shl", "__shr", "__bnot", "__concat",
            "__len", "__eq", "__lt", "__le", "__index", "__newindex", "__call", "__close"}) do
          mt[ev] = function(...) return y(ev, ...) end
        end
        local direct = {}
        for k in pairs(mt) do direct[k] = y end
        for _, m in ipairs({mt, direct}) do
          drive(function()
            local a, b = setmetatable({}, m), setmetatable({}, m)
            local r = {a + 1, 1 - a, a * a, a / 2, a % 2, a ^ 2, -a, a // 2, a & 1, 1 | a,
              a ~ a, a << 1, 1 >> a, ~a, a .. "x", "x" .. a, #a, a == b, a < b, a <= b,
              a < 1, 1 <= a, a > 2.5, a.x, a[1], a()}
            a.x = 1; a[2] = 2
            do local c <close> = a end
            for i = 1, 3 do local c <close> = a; if i == 2 then break end end
            return r
          end)
        end
        "##,
    ),
    (
        "error objects of every type",
        r##"
        local objs = {nil, false, true, 0, -1, 1.5, 0/0, 1/0, "s", {}, print,
          coroutine.create(print), function() end,
          setmetatable({}, {__tostring = function() return 42 end}),
          setmetatable({}, {__tostring = function() error("ts") end}),
          setmetatable({}, {__name = "My.Type"})}
        for i = 1, 16 do
          local v = objs[i]
          print(pcall(error, v))
          print(pcall(error, v, 2))
          print(xpcall(error, function(m) return m end, v))
          print(xpcall(error, function(m) error(m) end, v))
          drive(function() error(v) end)
          print(pcall(coroutine.wrap(function() error(v) end)))
          print(pcall(function() local x <close> = closer("x", v) error(v) end))
          print(select('#', pcall(error, v)))
        end
        "##,
    ),
    (
        "deep recursion inside metamethods",
        r##"
        local t = setmetatable({}, {__index = function(t, k) return t[k] end})
        print(pcall(function() return t.x end))
        local u = setmetatable({}, {__add = function(a, b) return a + b end})
        print(pcall(function() return u + 1 end))
        local v = setmetatable({}, {__tostring = function(s) return tostring(s) end})
        print(pcall(tostring, v))
        local w = setmetatable({}, {__lt = function(a, b) return a < b end})
        print(pcall(function() return w < w end))
        local c = setmetatable({}, {__close = function(o) local x <close> = o end})
        print(pcall(function() local x <close> = c end))
        local chain = {}
        setmetatable(chain, {__call = chain})
        print(pcall(chain))
        local idx = {}
        setmetatable(idx, {__index = idx})
        print(pcall(function() return idx.x end))
        local ni = {}
        setmetatable(ni, {__newindex = ni})
        print(pcall(function() ni.x = 1 end))
        local function rec(n) return rec(n + 1) + 1 end
        print(pcall(rec, 1))
        drive(function() return rec(1) end)
        print(xpcall(rec, function(m) return rec(1) end, 1))
        print(xpcall(rec, function(m) return m end, 1))
        local function cw() return coroutine.wrap(cw)() end
        print(pcall(cw))
        local function pc() return (pcall(pc)) end
        print(pc())
        "##,
    ),
    (
        "coroutine.close on a coroutine suspended in a __close",
        r##"
        local co = coroutine.create(function()
          local a <close> = closer("a", "fa")
          local b <close> = closer("b", nil, true)
          local c <close> = closer("c", "fc", true)
          error("body")
        end)
        print(coroutine.resume(co))
        print(coroutine.resume(co))
        print(coroutine.close(co))
        print(coroutine.close(co))
        print(coroutine.resume(co))
        local co2 = coroutine.create(function()
          local a <close> = closer("a", nil, true)
          return 1
        end)
        print(coroutine.resume(co2))
        print(coroutine.close(co2))
        local co3
        co3 = coroutine.create(function()
          local a <close> = setmetatable({}, {__close = function()
            print(pcall(coroutine.close, co3))
            print(coroutine.resume(co3))
            coroutine.yield()
          end})
        end)
        print(coroutine.resume(co3))
        print(coroutine.resume(co3))
        print(coroutine.close(co3))
        "##,
    ),
    (
        "collectgarbage inside __gc and __close",
        r##"
        local resurrect = 200
        for i = 1, 50 do
          setmetatable({}, {__gc = function(o)
            collectgarbage()
            collectgarbage("step")
            resurrect = resurrect - 1
            if resurrect > 0 then setmetatable({}, getmetatable(o)) end
            error("in gc")
          end})
        end
        collectgarbage()
        do
          local x <close> = setmetatable({}, {__close = function()
            collectgarbage(); collectgarbage("collect"); collectgarbage("step", 100)
          end})
          local junk = {}
          for i = 1, 1000 do junk[i] = {i} end
        end
        drive(function()
          local x <close> = setmetatable({}, {__close = function()
            collectgarbage(); coroutine.yield(); collectgarbage()
          end})
          for i = 1, 1000 do local t = {i} end
        end)
        setmetatable({}, {__gc = function() coroutine.yield() end})
        setmetatable({}, {__gc = function() local x <close> = closer("g", "gf") end})
        setmetatable({}, {__gc = function() return coroutine.wrap(function() error("w") end)() end})
        collectgarbage()
        collectgarbage()
        "##,
    ),
    (
        "load with odd readers",
        r##"
        local k = 0
        print(load(function() k = k + 1; if k < 3 then return k end end))
        print(load(function() return {} end))
        print(load(function() error("reader") end))
        print(load(function() error({}) end))
        print(load(function() return coroutine.yield() end))
        drive(function() return load(function() return coroutine.yield() end) end)
        local n = 0
        print(load(function() n = n + 1; if n < 100 then return "" end end))
        n = 0
        print(load(function() n = n + 1; if n == 1 then return "return " elseif n == 2 then return 42 end end))
        print(load(function() return nil end))
        print(load("\27Lua"))
        print(load("return 1", "=x", "b"))
        print(load("return 1", nil, "x"))
        print(pcall(load, nil))
        print(pcall(load, {}))
        print(pcall(load))
        print(load("return ...", "c", "t", 42))
        print(pcall(load("x = 1", "c", "t", 42)))
        print(pcall(load("return x.y.z", "c", "t", setmetatable({}, {__index = error}))))
        "##,
    ),
    (
        "base library argument extremes",
        r##"
        local mi, ma = -9223372036854775807 - 1, 9223372036854775807
        for _, i in ipairs({mi, mi + 1, -2, -1, 0, 1, 2, ma}) do
          print(pcall(select, i))
          print(pcall(select, i, 1, 2, 3))
          print(pcall(error, "x", i))
          print(pcall(tonumber, "10", i))
          print(pcall(collectgarbage, "step", i))
          print(pcall(collectgarbage, "incremental", i, i, i))
          print(pcall(collectgarbage, "generational", i, i))
          print(pcall(collectgarbage, "setpause", i))
          print(pcall(collectgarbage, "setstepmul", i))
          print(pcall(rawlen, i))
          print(pcall(next, {}, i))
          print(pcall(ipairs({}), {}, i))
          print(pcall(ipairs({}), {}, ma))
        end
        print(pcall(select, "#"))
        print(pcall(select, 1.5))
        print(pcall(select))
        print(pcall(tonumber))
        print(pcall(tonumber, "z", 36), pcall(tonumber, "zzzzzzzzzzzzzzzzzzzzzzzz", 36))
        print(pcall(tonumber, 1, 10))
        print(pcall(setmetatable, {}, 1))
        print(pcall(setmetatable))
        print(pcall(getmetatable))
        print(pcall(rawset, {}, nil, 1))
        print(pcall(rawset, {}, 0/0, 1))
        print(pcall(rawget, {}))
        print(pcall(rawequal, 1))
        print(pcall(next, {}, "nokey"))
        print(pcall(assert))
        print(pcall(assert, false))
        print(pcall(assert, nil, {}))
        print(pcall(pcall))
        print(pcall(xpcall))
        print(pcall(xpcall, print))
        print(pcall(print, setmetatable({}, {__tostring = function() return {} end})))
        print(pcall(print, setmetatable({}, {__name = 42})))
        print(pcall(warn))
        print(pcall(warn, {}))
        print(pcall(collectgarbage, "bogus"))
        print(pcall(coroutine.wrap, 1))
        print(pcall(coroutine.resume, coroutine.running()))
        print(pcall(coroutine.close, coroutine.running()))
        print(pcall(coroutine.status, {}))
        print(pcall(coroutine.yield))
        print(pcall(coroutine.isyieldable, 1))
        "##,
    ),
    (
        "arithmetic and loop extremes",
        r##"
        local mi, ma = -9223372036854775807 - 1, 9223372036854775807
        print(pcall(function() return mi // -1, mi % -1, mi // 0 end))
        print(pcall(function() return mi % 0 end))
        print(pcall(function() return 1 // 0.0, -1 % 0.0, 0/0 // 1 end))
        print(pcall(function() return "9223372036854775808" + 0, "1e400" * 1, "0x" + 1 end))
        print(pcall(function() return 1 << 64, 1 << -64, 1 >> mi, 1 << mi, mi >> 63 end))
        print(pcall(function() return 2^63 | 0 end))
        print(pcall(function() return "8" | 1 end))
        print(pcall(function() return -"2", ~"3" end))
        for _, l in ipairs({{mi, ma, ma}, {ma, mi, mi}, {ma - 1, ma, 1}, {mi + 1, mi, -1},
            {0, 1, 0}, {1, 0, 0.0}, {0.1, 1e308, 1e308}, {1, 0/0, 1}, {"1", "2", "1"},
            {1, 2, {}}, {ma, 1/0, ma}, {mi, -1/0, mi}, {1.0, 3, 0.5}}) do
          print(pcall(function()
            local n = 0
            for i = l[1], l[2], l[3] do n = n + 1; if n > 5 then break end end
            return n
          end))
        end
        print(pcall(function() local s = "x" for i = 1, 24 do s = s .. s end return #s end))
        print(pcall(function() return ("x"):rep(10) end))
        print(pcall(function() return #nil end))
        print(pcall(function() local a = {} a[nil] = 1 end))
        print(pcall(function() local a = {} a[0/0] = 1 end))
        print(pcall(function() return {} < {} end))
        print(pcall(function() return 1 < "2" end))
        print(pcall(function() return {} .. "x" end))
        "##,
    ),
    (
        "varargs and multiple results extremes",
        r##"
        local function count(...) return select('#', ...) end
        local function many(n) if n == 0 then return end return n, many(n - 1) end
        print(pcall(count, many(150)))
        local t = {}
        for i = 1, 200 do t[i] = i end
        local function unpack(t, i)
          i = i or 1
          if t[i] ~= nil then return t[i], unpack(t, i + 1) end
        end
        print(count(unpack(t)))
        print(pcall(function(...) return ... end, unpack(t)))
        print(pcall(function(...) local a, b, c = ... return {...} end, unpack(t)))
        local big = {}
        for i = 1, 10000 do big[i] = i end
        print(pcall(function()
          local function up(i) if i <= #big then return big[i], up(i + 1) end end
          return count(up(1))
        end))
        "##,
    ),
    (
        "coroutine misuse",
        r##"
        local co
        co = coroutine.create(function() return coroutine.resume(co) end)
        print(coroutine.resume(co))
        print(coroutine.resume(co))
        local w
        w = coroutine.wrap(function() return w() end)
        print(pcall(w))
        print(pcall(w))
        co = coroutine.create(function() coroutine.yield() end)
        coroutine.resume(co)
        print(coroutine.close(co), coroutine.close(co))
        local function nest(n)
          if n == 0 then return coroutine.yield("deep") end
          return coroutine.wrap(function() return nest(n - 1) end)()
        end
        print(pcall(nest, 300))
        drive(nest, 300)
        local c2 = coroutine.create(function(...) return ... end)
        print(coroutine.resume(c2, 1, 2, 3))
        print(coroutine.resume(c2))
        print(pcall(coroutine.close, c2))
        print(coroutine.isyieldable(), coroutine.running())
        print(select('#', coroutine.running()))
        local t = setmetatable({}, {__index = function() return coroutine.yield() end})
        print(pcall(function() return t.x end))
        print(pcall(tostring, setmetatable({}, {__tostring = coroutine.yield})))
        drive(function() return tostring(setmetatable({}, {__tostring = coroutine.yield})) end)
        drive(function() return pcall(pcall, coroutine.yield, 1) end)
        drive(function() return xpcall(coroutine.yield, coroutine.yield, 1) end)
        drive(function() return xpcall(error, coroutine.yield, 1) end)
        drive(function() for k, v in coroutine.yield do end end)
        drive(function() return select(2, coroutine.yield()) end)
        local cw
        cw = coroutine.wrap(function()
          local x <close> = setmetatable({}, {__close = function()
            print(pcall(cw)); print(coroutine.status(coroutine.running()))
          end})
          error(111)
        end)
        print(pcall(cw))
        print(pcall(cw))
        "##,
    ),
    (
        "to-be-closed misuse",
        r##"
        print(pcall(function() local x <close> = {} end))
        print(pcall(function() local x <close> = 1 end))
        local mt = {__close = function() end}
        print(pcall(function()
          local x <close> = setmetatable({}, mt)
          mt.__close = nil
        end))
        print(pcall(function()
          local x <close> = setmetatable({}, mt)
          mt.__close = 42
          return 1, 2, 3
        end))
        mt.__close = function() error("c") end
        print(pcall(function()
          local a <close> = setmetatable({}, mt)
          local b <close> = setmetatable({}, mt)
          error("e")
        end))
        print(pcall(function()
          for i in function(s, c) if c < 3 then return c + 1 end end, nil, 0, setmetatable({}, mt) do
            if i == 2 then return i end
          end
        end))
        local function f(...)
          local x <close> = setmetatable({}, {__close = function() f = nil end})
          return ...
        end
        print(f(1, 2, 3))
        print(xpcall(function()
          local x <close> = setmetatable({}, {__close = function(_, e) error({}) end})
          error("first")
        end, function(m) return type(m) end))
        "##,
    ),
];

/// Runs one snippet in `st`: must return, and leave a consistent heap.
fn run(st: &mut State, name: &str, code: &str) {
    let src = format!("{PRELUDE}\n{code}");
    let r = catch_unwind(AssertUnwindSafe(|| {
        let _ = st.exec(src.as_bytes(), name.as_bytes());
    }));
    assert!(r.is_ok(), "snippet '{name}' panicked");
    st.check_heap().unwrap_or_else(|e| panic!("snippet '{name}': heap inconsistent: {e}"));
    st.collect_garbage();
    st.check_heap().unwrap_or_else(|e| panic!("snippet '{name}': heap inconsistent after GC: {e}"));
}

fn quiet_state() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.set_stderr(Box::new(std::io::sink()));
    st
}

#[test]
fn nasty_snippets_never_panic() {
    let mut shared = quiet_state();
    for &(name, code) in SNIPPETS {
        let mut fresh = quiet_state();
        run(&mut fresh, name, code);
        drop(fresh);
        run(&mut shared, name, code);
    }
}
