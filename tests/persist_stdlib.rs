//! Saving and loading a state with the sandboxed standard library
//! (`luprex_stdlib::open_sandbox` on both sides): string, table and math
//! state (the seeded generator lives in the heap), a coroutine suspended
//! inside a `table.sort` comparator (a frame waiting in `sort`'s
//! continuation), and the same results and hashes when both states go on.

use luprex_vm::raw::{State, Value};

const WORLD: &str = r#"
    math.randomseed(42)
    R1 = {}
    for i = 1, 10 do R1[i] = math.random(1, 1000) end
    WORDS = {}
    for w in string.gmatch("the quick brown fox jumps over the lazy dog", "%a+") do
      WORDS[#WORDS + 1] = string.upper(w)
    end
    table.sort(WORDS, function(a, b) return #a < #b or (#a == #b and a < b) end)
    FMT = string.format("%5.2f|%-6s|%x", math.pi, "ab", 255)
    NUMS = {}
    for i = 1, 40 do NUMS[i] = math.random(100) end
    SORTER = coroutine.create(function()
      table.sort(NUMS, function(a, b)
        coroutine.yield("cmp")                 -- suspended inside sort's comparator
        return a > b
      end)
      return "sorted"
    end)
    for _ = 1, 7 do coroutine.resume(SORTER) end
    return "built"
"#;

const GO_ON: &str = r#"
    local out = {}
    for i = 1, 5 do out[#out + 1] = math.random(1, 1 << 20) end
    out[#out + 1] = math.random()
    local n = 0
    while coroutine.status(SORTER) ~= "dead" do
      local _, v = coroutine.resume(SORTER)
      n = n + 1
    end
    out[#out + 1] = n
    out[#out + 1] = table.concat(NUMS, " ")
    out[#out + 1] = table.concat(WORDS, ",")
    out[#out + 1] = table.concat(R1, ",")
    out[#out + 1] = FMT
    out[#out + 1] = (string.gsub("hello world", "o", {o = "0"}))
    out[#out + 1] = utf8.char(72, 228, 8364)
    return table.concat(out, "\n")
"#;

fn sandbox() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    luprex_stdlib::open_sandbox(&mut st).expect("opens");
    st
}

fn run(st: &mut State, src: &str) -> String {
    let f = st.load(src.as_bytes(), b"=persist").expect("compiles");
    let r = st.call_value(f, &[]).unwrap_or_else(|e| panic!("{}", e.message()));
    match r.first() {
        Some(&v @ Value::Str(_)) => String::from_utf8_lossy(&st.tostring(v)).into_owned(),
        other => panic!("unexpected result {other:?}"),
    }
}

#[test]
fn stdlib_world_survives_save_and_load() {
    let mut a = sandbox();
    assert_eq!(run(&mut a, WORLD), "built");
    let bytes = a.save_state().expect("saves");
    let mut b = sandbox();
    b.load_state(&bytes).expect("loads");
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.heap_hash(), b.heap_hash());
    let (ra, rb) = (run(&mut a, GO_ON), run(&mut b, GO_ON));
    assert_eq!(ra, rb);
    assert!(ra.contains("sorted") || ra.lines().count() > 8, "{ra}");
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.heap_hash(), b.heap_hash());
    // And the loaded state saves to the same bytes as the original.
    assert!(a.save_state().unwrap() == b.save_state().unwrap());
}

/// A coroutine suspended inside `string.gsub`'s replacement function: its
/// state (matcher position, output so far, current match) is a userdata
/// payload written under its registered name; the loaded copy resumes to
/// the same result, and a corrupted payload is refused on load.
#[test]
fn gsub_suspended_in_its_replacement_survives_save_and_load() {
    const START: &str = r#"
        CO = coroutine.wrap(function()
          return (string.gsub("abc def", "%a+", function(w) return coroutine.yield(w) .. "!" end))
        end)
        return CO()
    "#;
    const FINISH: &str = r#"
        local w = CO("X")          -- resumes the first replacement, yields the second word
        return w .. "|" .. CO("Y")
    "#;
    let mut a = sandbox();
    assert_eq!(run(&mut a, START), "abc");
    let bytes = a.save_state().expect("the gsub state is persistable");
    let mut b = sandbox();
    b.load_state(&bytes).expect("loads");
    assert_eq!(a.state_hash(), b.state_hash());
    let (ra, rb) = (run(&mut a, FINISH), run(&mut b, FINISH));
    assert_eq!(ra, "def|X! Y!");
    assert_eq!(ra, rb);
    assert_eq!(a.state_hash(), b.state_hash());

    // The payload's bytes are checked: flip the tag byte of the gsub state
    // (found by its name in the file) and the load is an error.
    let name = b"string.gsub_state";
    let at = bytes.windows(name.len()).position(|w| w == name).expect("payload name in the file");
    let mut bad = bytes.clone();
    let tag =
        bad[at + name.len()..].iter().position(|&x| x == 1).expect("some-tag") + at + name.len();
    bad[tag] = 7;
    let mut c = sandbox();
    assert!(c.load_state(&bad).is_err());
}
