//! `compile` generates the main chunk statement by statement as the parser
//! reads them (`codegen::MainGen`); `codegen::generate` works on the whole
//! tree. Both must give the same bytes and the same errors, in particular
//! around labels (a run of labels waits for what follows it) and gotos.

use luprex_compiler::{codegen::generate, compile, dump::dump, parser::parse};

fn both(src: &str) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let streamed = compile(src.as_bytes(), b"=s").map(|p| dump(&p, false)).map_err(|e| e.message);
    let whole = parse(src.as_bytes(), b"=s")
        .and_then(|c| generate(&c, b"=s"))
        .map(|p| dump(&p, false))
        .map_err(|e| e.message);
    (streamed, whole)
}

#[test]
fn streamed_main_chunk_matches_whole_tree() {
    let sources = [
        "",
        ";;",
        "return",
        "local a = 1\nreturn a",
        "::top:: local x = 1 goto top",
        "goto done\nlocal y = 2\n::done::",
        "do goto l end ::l:: ::m:: ;; ::n::",
        "local t = {} ::a:: ::b:: t[#t+1] = 1 if #t < 3 then goto a end return t",
        "::a:: ::b:: return 1",
        "x = 1 ::a:: ;",
        "goto nowhere\nlocal z = 1",
        "local a <const> = 10\nlocal function f() return a end\n(f)()",
        "a = b\n(f)()",
        "for i = 1, 3 do ::c:: end ::c::",
        "::dup:: ::dup::",
        "goto x\nlocal v\n::x:: print(v)",
        "local a = {}\nlocal b = a\nfunction a.f(...) return ... end\nreturn b.f(1, 2)",
    ];
    for src in sources {
        let (streamed, whole) = both(src);
        assert_eq!(streamed, whole, "source: {src:?}");
    }
    let mut big = String::from("local t = {}\n");
    for i in 0..300 {
        big.push_str(&format!("local v{i} = {i}\n"));
    }
    let (streamed, whole) = both(&big);
    assert_eq!(streamed, whole);
    assert!(streamed.is_err(), "too many locals");
}
