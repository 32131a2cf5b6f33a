//! `State::state_hash` and `State::heap_hash`: sensitivity (one deep
//! field), stability (same program twice, garbage-only collections),
//! independence from slot indices (structural hash), and agreement across
//! processes: the corpus is run in this process and in two child processes
//! (this test binary re-executed with `LUPREX_HASH_CHILD` set), and all
//! three must print the same hashes.

use luprex_vm::raw::{Cloneable, Opaque};
use luprex_vm::raw::{HashMode, State, StateHasher};
use std::any::Any;
use std::process::Command;

/// The corpus: (name, program). Only the base and coroutine libraries.
const CORPUS: &[(&str, &str)] = &[
    (
        "coroutines",
        r#"
        local function gen(n)
          return coroutine.create(function()
            local acc = {}
            for i = 1, n do
              acc[#acc + 1] = i * i
              coroutine.yield(i, acc)
            end
            return "done", #acc
          end)
        end
        G1 = gen(10)
        for _ = 1, 4 do coroutine.resume(G1) end      -- suspended mid-loop
        G2 = gen(2)
        while coroutine.status(G2) ~= "dead" do coroutine.resume(G2) end
        G3 = coroutine.create(function(x) error({code = x}) end)
        OK3, ERR3 = coroutine.resume(G3, 42)          -- dead with an error
        W = coroutine.wrap(function(a)
          local b = coroutine.yield(a + 1)
          local c = coroutine.yield(b * 2)
          return c
        end)
        W1 = W(1); W2 = W(10)
        -- nested: an outer coroutine suspended while it holds an inner one
        OUTER = coroutine.create(function()
          local inner = coroutine.create(function()
            coroutine.yield("inner-1")
            coroutine.yield("inner-2")
          end)
          local _, v = coroutine.resume(inner)
          coroutine.yield(inner, v)
          coroutine.resume(inner)
          coroutine.yield(inner)
        end)
        coroutine.resume(OUTER)
        "#,
    ),
    (
        "closures",
        r#"
        local function counter(start)
          local n = start
          local function inc(d) n = n + (d or 1); return n end
          local function get() return n end
          return inc, get
        end
        INC, GET = counter(5)
        INC(); INC(3)
        MAKERS = {}
        for i = 1, 20 do
          local shared = {i}
          MAKERS[i] = {
            add = function(x) shared[#shared + 1] = x end,
            all = function() return shared end,
          }
          MAKERS[i].add(i * 3)
        end
        -- an open upvalue: captured from a frame of a suspended coroutine
        CO = coroutine.create(function()
          local v = "open"
          PEEK = function() return v end
          coroutine.yield()
          v = "changed"
        end)
        coroutine.resume(CO)
        "#,
    ),
    (
        "weak_tables",
        r#"
        WK = setmetatable({}, {__mode = "k"})
        WV = setmetatable({}, {__mode = "v"})
        KEEP = {}
        for i = 1, 100 do
          local k = {i}
          WK[k] = i
          WV[i] = {i * 2}
          if i % 3 == 0 then KEEP[#KEEP + 1] = k; KEEP[#KEEP + 1] = WV[i] end
        end
        collectgarbage()
        collectgarbage()
        local n = 0
        for _ in pairs(WK) do n = n + 1 end
        COUNT = n
        "#,
    ),
    (
        "gc_churn",
        r#"
        local keep = {}
        for round = 1, 200 do
          local garbage = {}
          for i = 1, 200 do
            garbage[i] = {round, i, tostring(i) .. "-" .. round}
          end
          keep[round % 17 + 1] = garbage[round % 200 + 1]
          if round % 50 == 0 then collectgarbage() end
        end
        KEEP = keep
        MEM_SEEN = collectgarbage("count") > 0
        "#,
    ),
    (
        "strings",
        r#"
        local parts = {}
        local s = ""
        for i = 1, 300 do
          s = s .. (i % 7) .. ","
          parts[#parts + 1] = tostring(i / 7) .. ":" .. tostring(i // 3)
        end
        S = s
        PARTS = parts
        FLOATS = {0.1, -0.0, 0.0, 1e300, 2^53, 1/3, -1.5e-10}
        "#,
    ),
    (
        "sorting",
        r#"
        local function qsort(a, lo, hi, lt)
          if lo >= hi then return end
          local p = a[(lo + hi) // 2]
          local i, j = lo, hi
          while i <= j do
            while lt(a[i], p) do i = i + 1 end
            while lt(p, a[j]) do j = j - 1 end
            if i <= j then a[i], a[j] = a[j], a[i]; i = i + 1; j = j - 1 end
          end
          qsort(a, lo, j, lt); qsort(a, i, hi, lt)
        end
        local seed = 12345
        local function rand(n)
          seed = (seed * 1103515245 + 12345) % 2147483648
          return seed % n
        end
        RECORDS = {}
        for i = 1, 500 do
          RECORDS[i] = {key = rand(1000), name = "r" .. rand(50), id = i}
        end
        qsort(RECORDS, 1, #RECORDS, function(x, y)
          if x.key ~= y.key then return x.key < y.key end
          return x.id < y.id
        end)
        BYNAME = {}
        for _, r in ipairs(RECORDS) do
          local l = BYNAME[r.name] or {}
          BYNAME[r.name] = l
          l[#l + 1] = r
        end
        "#,
    ),
    (
        "metatables",
        r#"
        local Vec = {}
        Vec.__index = Vec
        Vec.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, Vec) end
        Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
        Vec.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
        function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
        function Vec:len2() return self.x * self.x + self.y * self.y end
        V = Vec.new(1, 2) + Vec.new(3, 4)
        VS = tostring(V)
        LOG = {}
        PROXY = setmetatable({}, {
          __index = function(_, k) return k .. "!" end,
          __newindex = function(t, k, v) LOG[#LOG + 1] = k; rawset(t, k, v) end,
          __call = function(self, a) return a * 2 end,
        })
        PROXY.a = 1; PROXY.b = PROXY.zz; CALLED = PROXY(21)
        FINALIZED = {}
        for i = 1, 5 do
          setmetatable({}, {__gc = function() FINALIZED[#FINALIZED + 1] = i end})
        end
        PENDING = setmetatable({}, {__gc = function() end})
        collectgarbage()
        do
          local closed = {}
          do
            local x <close> = setmetatable({}, {__close = function() closed[1] = true end})
          end
          CLOSED = closed
        end
        "#,
    ),
];

fn run_corpus_entry(src: &str) -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.exec(src.as_bytes(), b"=corpus").unwrap_or_else(|e| panic!("{e}"));
    st.check_heap().unwrap();
    st
}

/// `HASH name state heap` lines for the whole corpus.
fn corpus_hashes() -> Vec<String> {
    CORPUS
        .iter()
        .map(|(name, src)| {
            let st = run_corpus_entry(src);
            format!("HASH {name} {:032x} {:032x}", st.state_hash(), st.heap_hash())
        })
        .collect()
}

fn child_hashes() -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["cross_process_hashes_agree", "--exact", "--nocapture", "--test-threads=1"])
        .env("LUPREX_HASH_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.find("HASH ").map(|i| l[i..].to_owned()))
        .collect()
}

#[test]
fn cross_process_hashes_agree() {
    let here = corpus_hashes();
    if std::env::var_os("LUPREX_HASH_CHILD").is_some() {
        for l in &here {
            println!("{l}");
        }
        return;
    }
    let (a, b) = (child_hashes(), child_hashes());
    assert_eq!(a.len(), CORPUS.len(), "{a:?}");
    assert_eq!(a, b, "two child processes disagree");
    assert_eq!(a, here, "a child process disagrees with this one");
    // Distinct programs, distinct hashes.
    let mut states: Vec<&str> = here.iter().map(|l| l.split(' ').nth(2).unwrap()).collect();
    states.sort();
    states.dedup();
    assert_eq!(states.len(), CORPUS.len());
    eprintln!("{}", here.join("\n"));
}

#[test]
fn same_program_twice_same_hashes() {
    for (name, src) in CORPUS {
        let a = run_corpus_entry(src);
        let b = run_corpus_entry(src);
        assert_eq!(a.state_hash(), b.state_hash(), "{name}");
        assert_eq!(a.heap_hash(), b.heap_hash(), "{name}");
        // Hashing does not change the state.
        assert_eq!(a.state_hash(), a.state_hash(), "{name}");
    }
}

#[test]
fn deep_mutation_changes_hash() {
    let prog = r#"
        ROOT = {a = {b = {c = {d = {e = {1, 2, 3, name = "leaf"}}}}}}
        OTHER = {x = 1}
    "#;
    let mut st = run_corpus_entry(prog);
    let (s0, h0) = (st.state_hash(), st.heap_hash());
    let edits = [
        "ROOT.a.b.c.d.e[2] = 20",
        "ROOT.a.b.c.d.e[2] = 2.0",
        "ROOT.a.b.c.d.e.name = 'leaf!'",
        "ROOT.a.b.c.d.e[4] = false",
        "setmetatable(ROOT.a.b.c.d.e, {})",
        "ROOT.a.b.c.d.e = ROOT.a.b.c.d.e", // no change: same table, same slot
    ];
    let mut seen = vec![s0];
    for (i, e) in edits.iter().enumerate() {
        st.exec(e.as_bytes(), b"=edit").unwrap();
        let s = st.state_hash();
        if i + 1 == edits.len() {
            assert_eq!(s, *seen.last().unwrap(), "no-op edit changed the hash");
        } else {
            assert!(!seen.contains(&s), "edit {e:?} did not change the state hash");
            seen.push(s);
        }
    }
    assert_ne!(st.heap_hash(), h0);
}

#[test]
fn int_float_and_signed_zero_differ() {
    let hash_of = |src: &str| run_corpus_entry(src).state_hash();
    let h1 = hash_of("X = 1");
    let h2 = hash_of("X = 1.0");
    let h3 = hash_of("X = 0.0");
    let h4 = hash_of("X = -0.0");
    let h5 = hash_of("X = '1'");
    let all = [h1, h2, h3, h4, h5];
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            assert_ne!(all[i], all[j], "{i} vs {j}");
        }
    }
}

#[test]
fn garbage_collection_of_garbage_keeps_state_hash() {
    let mut st = run_corpus_entry(
        r#"
        KEEP = {list = {}, name = "kept"}
        for i = 1, 1000 do
          local g = {i, tostring(i) .. "x", {}}          -- garbage
          if i % 100 == 0 then KEEP.list[#KEEP.list + 1] = i end
        end
        CO = coroutine.create(function() local t = {} coroutine.yield(t) end)
        coroutine.resume(CO)
        "#,
    );
    let (s0, h0) = (st.state_hash(), st.heap_hash());
    st.collect_garbage();
    assert_eq!(st.state_hash(), s0, "freeing garbage changed the state hash");
    assert_ne!(st.heap_hash(), h0, "the heap hash covers the collector's state");
    st.collect_garbage();
    assert_eq!(st.state_hash(), s0);
    // ... but a change in a coroutine's state is seen.
    st.exec(b"coroutine.resume(CO)", b"=r").unwrap();
    assert_ne!(st.state_hash(), s0);
}

/// The structural hash ignores slot indices; the heap hash does not.
#[test]
fn structural_hash_ignores_slot_indices() {
    let build = r#"
        local a = {name = "a"}
        local b = {name = "b", back = a}
        a.next = b
        GRAPH = {a, b, a}
        F = function() return GRAPH end
    "#;
    let plain = run_corpus_entry(build);
    let mut shifted = State::new();
    shifted.set_stdout(Box::new(std::io::sink()));
    // Garbage first, then a collection: the build reuses freed slots, last
    // freed first, so its objects land at other indices.
    shifted.exec(b"local t = {} for i = 1, 50 do t[i] = {} end", b"=g").unwrap();
    shifted.collect_garbage();
    shifted.exec(build.as_bytes(), b"=corpus").unwrap();
    assert_eq!(plain.state_hash(), shifted.state_hash());
    assert_ne!(plain.heap_hash(), shifted.heap_hash());
}

#[test]
fn coroutine_status_and_frames_are_covered() {
    let prog = r#"
        CO = coroutine.create(function(a)
          local b = coroutine.yield(a)
          local c = coroutine.yield(b)
          return c
        end)
    "#;
    let mut st = run_corpus_entry(prog);
    let mut seen = vec![st.state_hash()];
    for step in ["coroutine.resume(CO, 1)", "coroutine.resume(CO, 2)", "coroutine.resume(CO, 3)"] {
        st.exec(step.as_bytes(), b"=s").unwrap();
        let h = st.state_hash();
        assert!(!seen.contains(&h), "{step}");
        seen.push(h);
    }
}

#[derive(Debug)]
struct Custom(u32);

#[test]
fn userdata_payloads() {
    let with = |payload: Box<dyn luprex_vm::raw::Payload>| {
        let mut st = State::new();
        let u = st.new_userdata(payload, None);
        st.set_global("U", u);
        st
    };
    // std payloads are hashed by content
    assert_ne!(
        with(Cloneable::boxed(1i64)).state_hash(),
        with(Cloneable::boxed(2i64)).state_hash()
    );
    assert_eq!(
        with(Cloneable::boxed(1i64)).state_hash(),
        with(Cloneable::boxed(1i64)).state_hash()
    );
    assert_ne!(
        with(Cloneable::boxed(b"ab".to_vec())).state_hash(),
        with(Cloneable::boxed(b"ac".to_vec())).state_hash()
    );
    // other payloads are opaque ...
    let (a, b) = (with(Box::new(Opaque(Custom(1)))), with(Box::new(Opaque(Custom(2)))));
    assert_eq!(a.state_hash(), b.state_hash());
    // ... unless a hook hashes them
    let hook = |d: &dyn Any, h: &mut StateHasher| match d.downcast_ref::<Custom>() {
        Some(c) => {
            h.write_u64(u64::from(c.0));
            true
        }
        None => false,
    };
    assert_ne!(
        a.hash_with(HashMode::Structural, Some(&hook)),
        b.hash_with(HashMode::Structural, Some(&hook))
    );
    assert_ne!(a.hash_with(HashMode::Heap, Some(&hook)), b.hash_with(HashMode::Heap, Some(&hook)));
}

#[test]
fn registered_native_names_matter() {
    fn f1(_: &mut State) -> Result<luprex_vm::raw::Action, luprex_vm::raw::Error> {
        Ok(luprex_vm::raw::Action::Return(0))
    }
    let mk = |name: &'static str| {
        let mut st = State::new();
        let f = st.register_native(name, f1);
        st.set_global("F", f);
        st.state_hash()
    };
    assert_eq!(mk("alpha"), mk("alpha"));
    assert_ne!(mk("alpha"), mk("beta"));
}

#[test]
fn deep_structures_do_not_overflow() {
    // A 200k-long linked list and a 200k-deep closure chain: the walk uses
    // an explicit queue.
    let st = run_corpus_entry(
        r#"
        local head = nil
        for i = 1, 200000 do head = {next = head, i = i} end
        LIST = head
        local f = function() return 0 end
        for i = 1, 2000 do local g = f; f = function() return g() + 1 end end
        CHAIN = f
        "#,
    );
    assert_ne!(st.state_hash(), 0);
}
