//! The parser against its oracle: the LR grammar of `grammar.lalrpop` must
//! build the very same tree (every node and line) as the parser, which
//! mirrors `lparser.c`, or both must reject the chunk. Checked on every
//! `.lua` file of the repository, on those files with their tokens moved to
//! other lines, cut short and with a few bytes removed, and on generated
//! token soup. (The fuzz target
//! `parse_agree` does the same on whatever it finds.)

use luprex_compiler::lexer::tokenize;
use luprex_compiler::parser::{parse, parse_with_grammar, parser_and_grammar_agree};

#[path = "support/lua_files.rs"]
mod support;
use support::repo_lua_files;

/// The source as `luaL_loadfilex` gives it to the parser (a first line
/// starting with `#` skipped, its line break kept).
fn skip_comment(src: Vec<u8>) -> Vec<u8> {
    if src.first() != Some(&b'#') {
        return src;
    }
    let nl = src.iter().position(|&c| c == b'\n').unwrap_or(src.len());
    src[nl..].to_vec()
}

/// A tiny deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// The tokens of `src` (comments dropped) separated by a space or a line
/// break at random.
fn respace(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    let lexed = tokenize(src);
    let mut out = Vec::with_capacity(src.len());
    for t in &lexed.tokens {
        out.extend_from_slice(src.get(t.span.clone()).unwrap_or_default());
        out.push(if rng.below(3) == 0 { b'\n' } else { b' ' });
    }
    out
}

#[test]
fn grammar_builds_the_same_tree_for_every_repository_file() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut files, mut variants) = (0, 0);
    for path in repo_lua_files() {
        let Ok(src) = std::fs::read(&path) else { continue };
        let src = skip_comment(src);
        let name = path.display();
        if parse(&src, b"=f").is_ok() {
            assert_eq!(parse(&src, b"=f").ok(), parse_with_grammar(&src), "{name}");
        }
        assert!(parser_and_grammar_agree(&src), "{name}");
        files += 1;
        // the same tokens on other lines: every node's line moves
        let respaced = respace(&src, &mut rng);
        assert!(parser_and_grammar_agree(&respaced), "{name} respaced");
        variants += 1;
        // cut short, and with a byte range (a token, or part of one) removed
        for _ in 0..3 {
            let cut = rng.below(src.len() + 1);
            assert!(parser_and_grammar_agree(&src[..cut]), "{name} cut at {cut}");
            let at = rng.below(src.len() + 1);
            let len = 1 + rng.below(6);
            let mut edited = src[..at].to_vec();
            edited.extend_from_slice(src.get(at + len..).unwrap_or_default());
            assert!(parser_and_grammar_agree(&edited), "{name} without {at}..{}", at + len);
            variants += 2;
        }
    }
    assert!(files >= 200, "only {files} files");
    eprintln!("{files} files and {variants} variants agree");
}

const FRAGMENTS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", "+", "-",
    "*", "/", "//", "%", "^", "#", "&", "~", "|", "<<", ">>", "..", "...", "==", "~=", "<=", ">=",
    "<", ">", "=", "(", ")", "{", "}", "[", "]", "::", ";", ":", ",", ".", "x", "y", "f", "t", "1",
    "2.5", "'s'", "[[s]]", "\n", "<const>", "<close>",
];

#[test]
fn grammar_agrees_on_generated_inputs() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for _ in 0..30_000 {
        let mut s = String::new();
        for _ in 0..1 + rng.below(14) {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
            s.push(' ');
        }
        assert!(parser_and_grammar_agree(s.as_bytes()), "{s:?}");
        accepted += usize::from(parse(s.as_bytes(), b"=s").is_ok());
    }
    assert!(accepted > 100, "only {accepted} accepted");
}
