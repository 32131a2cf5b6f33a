//! The parser's state and its checks: tokens, errors and limits.
//!
//! # Design
//!
//! The parser is a port of the recursive-descent parser of `lparser.c`,
//! function by function (`stat.rs`: blocks, statements and function bodies;
//! `expr.rs`: expressions and table constructors), that builds the [`ast`]
//! as it recognizes it instead of emitting code. This module holds what
//! those functions share, and it is where everything that decides *how* a
//! chunk is rejected lives:
//!
//! * **Tokens.** [`Parser`] reads a [`Tokens`] stream exactly as `llex.c`
//!   is driven: it holds the current token and at most one token of
//!   lookahead (`luaX_lookahead`, used only by table constructors), moves
//!   with `next` (`luaX_next`), and reports a lexical error only when it
//!   reads the token where the lexer failed, as the lazy reference lexer
//!   would. The source is lexed once.
//! * **Errors.** `check`, `checknext`, `check_match`, `error_expected`,
//!   `syntax_error` and `sem_error` are those of `lparser.c`, so the first
//!   error has the reference's wording, line and "near" token. Messages use
//!   `linenumber`, which (as `ls->linenumber`) a lookahead moves to the
//!   next token; the tree uses each token's own line instead (see
//!   `parser.rs` on the one place where they differ).
//! * **C levels.** `lparser.c` counts nesting in `statement`, `subexpr` and
//!   each extra target of a multiple assignment (`enterlevel`), on top of
//!   the C calls already active, and fails with `C stack overflow` when the
//!   count reaches `LUAI_MAXCCALLS` (200). The count starts at
//!   [`BASE_LEVEL`], the value it has when `load` is called from a Lua
//!   chunk, so the same sources fail as with the reference's `load`. The
//!   parser recurses only where `lparser.c` enters a level (or in a
//!   function `body`, always under a `statement` or `subexpr` level), so
//!   its own recursion is bounded by these 200 levels; every loop of
//!   `lparser.c` (statement lists, suffixes, left-associative operator
//!   chains, fields, multiple assignment) is a loop here.
//! * **Tree depth.** Lua accepts unbounded left-associative chains
//!   (`1+1+...`, `a.b.c...`, `f()()...`), which nest only in the tree. Each
//!   parsing function returns, with its node, the depth of the tree it
//!   built (counting `Expr` and `Stat` nodes, through [`Parser::node`]),
//!   and a chunk whose tree would be deeper than [`MAX_TREE_DEPTH`] is
//!   rejected, so that no consumer of the tree (codegen's recursion, the
//!   tree's own `Drop`) can overflow the stack.
//! * **Locals.** `new_localvar`'s limit of 200 active locals per function is
//!   checked here, with `lparser.c`'s scoping.
//!
//! Every failure is a [`Failure`]: no input makes the parser panic.

use crate::ast::{Line, Name};
use crate::lexer::{LexError, Near, Tok, Token, Tokens};
use crate::number::Number;

/// `LUAI_MAXCCALLS`.
pub const MAX_C_LEVELS: u32 = 200;
/// The C-call count when the parser starts (under `load` from Lua code).
pub const BASE_LEVEL: u32 = 2;
/// Deepest tree the parser may build, in nested `Expr`/`Stat` nodes.
pub const MAX_TREE_DEPTH: u32 = 1000;
/// `MAXVARS`: active local variables per function.
const MAX_VARS: u32 = 200;

/// Why a chunk was rejected.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// A syntax or lexical error: `chunk:line: msg near tok`.
    Syntax {
        /// The message proper.
        msg: String,
        /// The "near" part.
        near: Near,
        /// The line.
        line: Line,
    },
    /// `C stack overflow` (no position, as the reference's runtime error).
    CStack,
}

/// Result of the parsing functions (the failure boxed, so that a result
/// carrying a node stays small).
pub type Res<T> = Result<T, Box<Failure>>;

/// The parser's state: the lexer position and `FuncState`'s relevant part.
pub struct Parser<'s> {
    /// The rest of the token stream.
    toks: Tokens<'s>,
    /// The current token (a `Tok::Eof` token before the first one is read).
    pub(super) cur: Token,
    /// The token after the current one, when `has_ahead` (`luaX_lookahead`;
    /// a slot read in place and swapped with `cur`, not an `Option` a
    /// token would be moved in and out of).
    ahead: Token,
    /// Whether `ahead` holds the next token.
    has_ahead: bool,
    /// The source, for the text of names in messages.
    source: &'s [u8],
    /// `ls->linenumber`: the current token's line, or the lookahead's once
    /// it is read. Only for messages (the tree takes `cur.line`).
    pub(super) linenumber: Line,
    /// The line of the token before the current one (1 before the second
    /// token): at the end of the chunk, the line of its last token.
    pub(super) prev_line: Line,
    /// `nCcalls`.
    level: u32,
    /// Whether the current function is vararg.
    pub(super) vararg: bool,
    /// The current function's `linedefined` (0 for the main function).
    pub(super) linedefined: Line,
    /// Local variables declared and in scope in the current function.
    pub(super) nactvar: u32,
    /// True while reading the fields of a table constructor: a constructor
    /// met there is packed at once (see `ast/fields.rs`).
    pub(super) in_fields: bool,
}

impl<'s> Parser<'s> {
    /// A parser at the start of `source` (no token read yet).
    pub fn new(source: &'s [u8]) -> Parser<'s> {
        Parser {
            toks: Tokens::new(source),
            cur: Token { tok: Tok::Eof, line: 1, span: 0..0 },
            ahead: Token { tok: Tok::Eof, line: 1, span: 0..0 },
            has_ahead: false,
            source,
            linenumber: 1,
            prev_line: 1,
            level: BASE_LEVEL,
            vararg: true,
            linedefined: 0,
            nactvar: 0,
            in_fields: false,
        }
    }

    // ----- tokens -----------------------------------------------------------

    /// Reads the first token (`luaX_next` at the start of `mainfunc`).
    pub(super) fn start(&mut self) -> Res<()> {
        self.toks.read(&mut self.cur).map_err(|e| lex_failure(*e))?;
        self.linenumber = self.cur.line;
        Ok(())
    }

    /// `luaX_next`: moves to the next token (a lexical error is raised when
    /// the lexer reaches it). At the end of the chunk it stays there.
    pub(super) fn next(&mut self) -> Res<()> {
        if matches!(self.cur.tok, Tok::Eof) {
            return Ok(());
        }
        self.prev_line = self.cur.line;
        if self.has_ahead {
            // a lookahead read it
            std::mem::swap(&mut self.cur, &mut self.ahead);
            self.has_ahead = false;
        } else {
            // the stream reads it in place (at the end, `Eof` again)
            self.toks.read(&mut self.cur).map_err(|e| lex_failure(*e))?;
        }
        self.linenumber = self.cur.line;
        Ok(())
    }

    /// `luaX_lookahead`: the token after the current one.
    pub(super) fn peek(&mut self) -> Res<&Tok> {
        if matches!(self.cur.tok, Tok::Eof) {
            return Ok(&Tok::Eof);
        }
        if !self.has_ahead {
            self.toks.read(&mut self.ahead).map_err(|e| lex_failure(*e))?;
            self.has_ahead = true;
        }
        self.linenumber = self.ahead.line;
        Ok(&self.ahead.tok)
    }

    /// The current token's line (for the tree).
    pub(super) fn line(&self) -> Line {
        self.cur.line
    }

    /// Whether the current token is `t`, a token without a value (keyword,
    /// symbol or end of input: what `check` and `testnext` are given).
    fn is(&self, t: &Tok) -> bool {
        std::mem::discriminant(&self.cur.tok) == std::mem::discriminant(t)
    }

    /// `testnext`.
    pub(super) fn testnext(&mut self, t: &Tok) -> Res<bool> {
        if self.is(t) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `check`.
    pub(super) fn check(&self, t: &Tok) -> Res<()> {
        if self.is(t) {
            return Ok(());
        }
        Err(self.error_expected(t))
    }

    /// `checknext`.
    pub(super) fn checknext(&mut self, t: &Tok) -> Res<()> {
        self.check(t)?;
        self.next()
    }

    /// `check_match`: `what` closes `who`, opened at line `line`.
    pub(super) fn check_match(&mut self, what: &Tok, who: &Tok, line: Line) -> Res<()> {
        if self.testnext(what)? {
            return Ok(());
        }
        if line == self.linenumber {
            return Err(self.error_expected(what));
        }
        let msg =
            format!("{} expected (to close {} at line {})", token2str(what), token2str(who), line);
        Err(self.syntax_error(msg))
    }

    /// `str_checkname`: the name, which is then skipped.
    pub(super) fn checkname(&mut self) -> Res<Name> {
        match &mut self.cur.tok {
            Tok::Name(name) => {
                let name = std::mem::take(name);
                self.next()?;
                Ok(name)
            }
            _ => Err(self.error_expected(&Tok::Name(Name::default()))),
        }
    }

    /// The value of the current token, a string, which is then skipped.
    pub(super) fn take_string(&mut self) -> Res<Name> {
        let s = match &mut self.cur.tok {
            Tok::Str(s) => std::mem::take(s),
            _ => Name::default(),
        };
        self.next()?;
        Ok(s)
    }

    /// The value of the current token, a numeral, which is then skipped.
    pub(super) fn take_number(&mut self) -> Res<Number> {
        let n = match self.cur.tok {
            Tok::Num(n) => n,
            _ => Number::Int(0),
        };
        self.next()?;
        Ok(n)
    }

    // ----- errors -----------------------------------------------------------

    /// `luaX_syntaxerror`: an error near the current token.
    pub(super) fn syntax_error(&self, msg: impl Into<String>) -> Box<Failure> {
        let near = near_token(&self.cur, self.source);
        Box::new(Failure::Syntax { msg: msg.into(), near, line: self.linenumber })
    }

    /// `luaK_semerror`: an error without "near" part.
    pub(super) fn sem_error(&self, msg: impl Into<String>) -> Box<Failure> {
        Box::new(Failure::Syntax { msg: msg.into(), near: Near::Nothing, line: self.linenumber })
    }

    /// `error_expected`.
    pub(super) fn error_expected(&self, t: &Tok) -> Box<Failure> {
        self.syntax_error(format!("{} expected", token2str(t)))
    }

    /// `errorlimit`.
    fn error_limit(&self, limit: u32, what: &str) -> Box<Failure> {
        let place = match self.linedefined {
            0 => "main function".to_string(),
            line => format!("function at line {line}"),
        };
        self.syntax_error(format!("too many {what} (limit is {limit}) in {place}"))
    }

    // ----- limits -----------------------------------------------------------

    /// `enterlevel`.
    pub(super) fn enter(&mut self) -> Res<()> {
        self.level += 1;
        if self.level >= MAX_C_LEVELS {
            return Err(Box::new(Failure::CStack));
        }
        Ok(())
    }

    /// `leavelevel`.
    pub(super) fn leave(&mut self) {
        self.level -= 1;
    }

    /// Leaves `n` levels at once (those of a multiple assignment).
    pub(super) fn leave_n(&mut self, n: u32) {
        self.level -= n;
    }

    /// The depth of a node over children of depth `d`.
    pub(super) fn node(&self, d: u32) -> Res<u32> {
        let d = d + 1;
        if d > MAX_TREE_DEPTH {
            return Err(self.error_limit(MAX_TREE_DEPTH, "syntax levels"));
        }
        Ok(d)
    }

    /// `new_localvar` (the name is already read).
    pub(super) fn new_localvar(&mut self) -> Res<()> {
        if self.nactvar + 1 > MAX_VARS {
            return Err(self.error_limit(MAX_VARS, "local variables"));
        }
        self.nactvar += 1;
        Ok(())
    }
}

/// A lexical error as a failure.
fn lex_failure(e: LexError) -> Box<Failure> {
    Box::new(Failure::Syntax { msg: e.msg, near: e.near, line: e.line })
}

/// `luaX_token2str`: how an expected token is named in messages.
fn token2str(t: &Tok) -> String {
    match t {
        Tok::Name(_) => "<name>".into(),
        Tok::Str(_) => "<string>".into(),
        Tok::Num(Number::Int(_)) => "<integer>".into(),
        Tok::Num(Number::Float(_)) => "<number>".into(),
        Tok::Eof => "<eof>".into(),
        Tok::Other(c) => other_text(*c),
        _ => format!("'{}'", t.symbol().unwrap_or("?")),
    }
}

/// How a single-byte token is shown: `'c'` if printable, else `'<\N>'`.
fn other_text(c: u8) -> String {
    if (0x20..0x7F).contains(&c) {
        format!("'{}'", char::from(c))
    } else {
        format!("'<\\{c}>'")
    }
}

/// `txtToken`: the "near" part for a token.
pub fn near_token(t: &Token, source: &[u8]) -> Near {
    match &t.tok {
        Tok::Eof => Near::Eof,
        Tok::Other(0) => Near::Nothing, // token 0: `lexerror` prints no "near"
        Tok::Other(c) => {
            let text = other_text(*c);
            Near::Text(text.as_bytes()[1..text.len() - 1].to_vec())
        }
        // the span: a name's value may have been taken into the tree
        Tok::Name(_) => Near::Text(source.get(t.span.clone()).unwrap_or_default().to_vec()),
        Tok::Num(_) => Near::Text(source.get(t.span.clone()).unwrap_or_default().to_vec()),
        Tok::Str(s) => Near::Text(string_text(s, source.get(t.span.clone()).unwrap_or_default())),
        other => Near::Text(other.symbol().unwrap_or("?").as_bytes().to_vec()),
    }
}

/// The lexer buffer for a string token: its delimiters around its value.
fn string_text(value: &[u8], raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 4);
    match raw.first() {
        Some(b'[') => {
            let level = raw.iter().skip(1).take_while(|&&c| c == b'=').count();
            out.push(b'[');
            out.extend(std::iter::repeat_n(b'=', level));
            out.push(b'[');
            out.extend_from_slice(value);
            out.push(b']');
            out.extend(std::iter::repeat_n(b'=', level));
            out.push(b']');
        }
        first => {
            let delim = first.copied().unwrap_or(b'"');
            out.push(delim);
            out.extend_from_slice(value);
            out.push(delim);
        }
    }
    out
}
