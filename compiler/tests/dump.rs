//! Binary chunks: `dump` then `undump` gives back the same prototype tree
//! (or its stripped form) for every Lua file of the repository and of the
//! official suite (when unpacked); truncated and corrupted chunks are
//! refused with `lundump.c`'s messages.

use luprex_compiler::compile;
use luprex_compiler::dump::{dump, stripped, undump, HEADER};

#[path = "support/lua_files.rs"]
mod support;
use support::lua_files;

#[test]
fn every_file_round_trips() {
    let mut n = 0;
    for path in lua_files() {
        let Ok(src) = std::fs::read(&path) else { continue };
        let src = if src.first() == Some(&b'#') { Vec::new() } else { src };
        let Ok(p) = compile(&src, format!("@{}", path.display()).as_bytes()) else { continue };
        let full = dump(&p, false);
        assert_eq!(undump(&full, b"=x").as_ref(), Ok(&p), "{}", path.display());
        let strip = dump(&p, true);
        assert_eq!(undump(&strip, b"=x"), Ok(stripped(&p)), "{} (stripped)", path.display());
        assert!(strip.len() <= full.len());
        n += 1;
    }
    assert!(n >= 20, "only {n} files");
    eprintln!("{n} files round-tripped");
}

const SAMPLES: &[&str] = &[
    "return 1",
    "local a, b = 1, 'two'; return function(x) return a + x, b end",
    "local t = {1, 2.5, 'x', true, nil, k = 'v'}; for i, v in ipairs(t) do print(i, v) end",
    "return function(...) local s = 0; for i = 1, select('#', ...) do s = s + i end; return s end",
];

#[test]
fn truncation_at_every_offset_is_refused() {
    for src in SAMPLES {
        let p = compile(src.as_bytes(), b"=s").unwrap();
        for strip in [false, true] {
            let c = dump(&p, strip);
            for len in 0..c.len() {
                match undump(&c[..len], b"=s") {
                    Ok(_) => panic!("{src}: prefix of {len} bytes accepted"),
                    Err(e) => assert_eq!(e.message, "s: bad binary format (truncated chunk)"),
                }
            }
        }
    }
}

#[test]
fn header_messages_are_the_reference_ones() {
    let p = compile(b"return 1", b"=s").unwrap();
    let c = dump(&p, false);
    let msg = |c: &[u8]| undump(c, c).unwrap_err().message;
    let mut bad = c.clone();
    bad[1] = b'X';
    assert_eq!(msg(&bad), "binary string: bad binary format (not a binary chunk)");
    let mut bad = c.clone();
    bad[4] = 0x53;
    assert_eq!(msg(&bad), "binary string: bad binary format (version mismatch)");
    let mut bad = c.clone();
    bad[5] = 1;
    assert_eq!(msg(&bad), "binary string: bad binary format (format mismatch)");
    let mut bad = c.clone();
    bad[8] = 0;
    assert_eq!(msg(&bad), "binary string: bad binary format (corrupted chunk)");
    let mut bad = c.clone();
    bad[13] = 4;
    assert_eq!(msg(&bad), "binary string: bad binary format (lua_Integer size mismatch)");
    // A chunk of PUC Lua: the same header, then its own body.
    let mut puc = c[..HEADER.len() + 16].to_vec();
    puc.extend_from_slice(&[1, 0x80, 0x80, 0x80, 0x10, 0x40]);
    assert_eq!(msg(&puc), "binary string: bad binary format (format mismatch)");
    assert_eq!(
        undump(&bad, b"@file.lua").unwrap_err().message,
        "file.lua: bad binary format (lua_Integer size mismatch)"
    );
}

#[test]
fn every_header_byte_matters() {
    let p = compile(b"return 1", b"=s").unwrap();
    let c = dump(&p, false);
    for i in 0..HEADER.len() + 16 + 4 {
        let mut bad = c.clone();
        bad[i] = bad[i].wrapping_add(1);
        assert!(undump(&bad, b"=s").is_err(), "byte {i}");
    }
}

#[test]
fn huge_counts_do_not_allocate() {
    let p = compile(b"return 1", b"=s").unwrap();
    let c = dump(&p, true);
    // The code count of the main function follows its source, two line
    // numbers and three bytes; replace it with 2^60.
    let body = HEADER.len() + 16 + 4 + 1;
    let mut bad = c[..body + 1 + 1 + 1 + 3].to_vec();
    bad.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]);
    bad.extend_from_slice(&[0; 64]);
    assert_eq!(undump(&bad, b"=s").unwrap_err().message, "s: bad binary format (truncated chunk)");
}

#[test]
fn corrupted_code_is_rejected_by_the_verifier() {
    let mut p = compile(b"local a = 1; return a", b"=s").unwrap();
    p.code[1] = p.code[1].with_a(200);
    let e = undump(&dump(&p, false), b"=s").unwrap_err().message;
    assert!(e.starts_with("s: bad binary format (bad bytecode:"), "{e}");
}

#[test]
fn nested_sources_are_written_once() {
    let name = format!("={}", "x".repeat(1000));
    let p = compile(b"return function(x) return function(y) return x + y end end", name.as_bytes())
        .unwrap();
    let c = dump(&p, false);
    assert!(c.len() > 1000 && c.len() < 1200, "{}", c.len());
    let q = undump(&c, b"=x").unwrap();
    assert_eq!(q.protos[0].protos[0].source, name.as_bytes());
    assert!(dump(&p, true).len() < 300);
    assert_eq!(undump(&dump(&p, true), b"=x").unwrap().protos[0].source, b"=?");
}
