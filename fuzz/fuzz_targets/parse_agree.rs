//! Fuzz target: the checker (which mirrors `lparser.c` and produces the
//! error messages) and the LR grammar (which builds the tree) must accept
//! exactly the same chunks; the parser itself must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = luprex_compiler::parser::parse(data, b"=fuzz");
    assert!(
        luprex_compiler::parser::parser_and_grammar_agree(data),
        "parser and grammar disagree on {:?}",
        String::from_utf8_lossy(data)
    );
});
