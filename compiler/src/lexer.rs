//! The Lua 5.4 lexer: source bytes to a stream ([`Tokens`]) or a vector of [`Token`]s.
//!
//! # Design
//!
//! [`Tok`] derives [`logos::Logos`]: logos dispatches on the first bytes of
//! each token and handles the fixed symbols, keywords, names and horizontal
//! white space by itself. Everything whose syntax is not regular, or whose
//! exact reading must mirror the reference lexer (`llex.c`), is read by a
//! hand-written callback that scans `lex.remainder()` and then `bump`s past
//! what it consumed: newlines (line counting), comments, short strings with
//! their escapes, long brackets `[==[ ... ]==]` and numerals (read exactly as
//! `read_numeral`, then converted by `crate::number::str_to_number`, Lua's
//! `luaO_str2num`).
//!
//! The reference lexer is lazy: it reads a token only when the parser asks
//! for it, so a lexical error is reported only if the parser gets that far
//! without a syntax error. [`Tokens`] (and [`tokenize`], which collects it)
//! therefore never fails: it yields the tokens read before the first lexical
//! error, and then the error itself as the end of the stream; the parser
//! reports the error when it reaches that position.
//!
//! # Invariants
//!
//! * `Token::line` is the line the lexer was on *after* reading the token
//!   (`ls->linenumber` while the token is current in `llex.c`); it differs
//!   from the start line only for long strings and strings with escaped
//!   newlines. `\n`, `\r`, `\r\n` and `\n\r` each count as one line break.
//! * Every error carries the line and the "near" text `llex.c` would report:
//!   the contents of its token buffer (processed escapes included) or
//!   `<eof>`.
//! * No input makes the lexer panic: callbacks read through `get` (or slice
//!   only at positions just checked), never bump past the end of the input,
//!   and all arithmetic on input-controlled values is checked, wrapping or
//!   clamped.

use logos::{FilterResult, Lexer, Logos};

use crate::ast::{Line, Name};
use crate::number::{hex_digit, is_c_space, str_to_number, Number};

/// A lexical error, with the text of `llex.c`'s message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LexError {
    /// The message without position or "near" part, e.g. `unfinished string`.
    pub msg: String,
    /// What the message is "near".
    pub near: Near,
    /// The line the lexer was on when it found the error.
    pub line: Line,
}

/// The "near" part of an error message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Near {
    /// No "near" part at all.
    #[default]
    Nothing,
    /// `near <eof>`.
    Eof,
    /// `near 'text'` (the text is cut at its first NUL byte when printed,
    /// as C's `%s` does).
    Text(Vec<u8>),
}

/// State carried by the logos lexer: the current line number.
#[derive(Clone, Copy, Debug)]
pub struct Extras {
    /// The current line (1-based).
    pub line: Line,
}

impl Default for Extras {
    fn default() -> Self {
        Extras { line: 1 }
    }
}

/// A Lua token.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(utf8 = false)]
#[logos(extras = Extras)]
#[logos(error = Box<LexError>)]
#[logos(skip r"[ \t\x0B\x0C]+")]
#[logos(skip(r"\r\n|\n\r|\n|\r", callback = newline))]
#[logos(skip(r"--", callback = comment))]
pub enum Tok {
    /// `and`
    #[token("and")]
    And,
    /// `break`
    #[token("break")]
    Break,
    /// `do`
    #[token("do")]
    Do,
    /// `else`
    #[token("else")]
    Else,
    /// `elseif`
    #[token("elseif")]
    Elseif,
    /// `end`
    #[token("end")]
    End,
    /// `false`
    #[token("false")]
    False,
    /// `for`
    #[token("for")]
    For,
    /// `function`
    #[token("function")]
    Function,
    /// `goto`
    #[token("goto")]
    Goto,
    /// `if`
    #[token("if")]
    If,
    /// `in`
    #[token("in")]
    In,
    /// `local`
    #[token("local")]
    Local,
    /// `nil`
    #[token("nil")]
    Nil,
    /// `not`
    #[token("not")]
    Not,
    /// `or`
    #[token("or")]
    Or,
    /// `repeat`
    #[token("repeat")]
    Repeat,
    /// `return`
    #[token("return")]
    Return,
    /// `then`
    #[token("then")]
    Then,
    /// `true`
    #[token("true")]
    True,
    /// `until`
    #[token("until")]
    Until,
    /// `while`
    #[token("while")]
    While,
    /// `//`
    #[token("//")]
    IDiv,
    /// `..`
    #[token("..")]
    Concat,
    /// `...`
    #[token("...")]
    Dots,
    /// `==`
    #[token("==")]
    Eq,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `<=`
    #[token("<=")]
    Le,
    /// `~=`
    #[token("~=")]
    Ne,
    /// `<<`
    #[token("<<")]
    Shl,
    /// `>>`
    #[token(">>")]
    Shr,
    /// `::`
    #[token("::")]
    DbColon,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `^`
    #[token("^")]
    Caret,
    /// `#`
    #[token("#")]
    Hash,
    /// `&`
    #[token("&")]
    Amp,
    /// `~`
    #[token("~")]
    Tilde,
    /// `|`
    #[token("|")]
    Pipe,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `=`
    #[token("=")]
    Assign,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `[` (a `[` that opens a long string is read as [`Tok::Str`]).
    #[token("[", bracket)]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `,`
    #[token(",")]
    Comma,
    /// `.`
    #[token(".")]
    Dot,
    /// Any other single byte (`$`, `!`, a control character, a non-ASCII
    /// byte...): always a syntax error, but a token all the same, as in
    /// `llex.c`.
    #[regex(r"(?-u:[\x00-\xFF])", |lex| lex.slice().first().copied().unwrap_or(0), priority = 0)]
    Other(u8),
    /// A name (identifier).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| Name::new(lex.slice()))]
    Name(Name),
    /// A string literal (short or long), escapes processed.
    #[token("\"", short_string)]
    #[token("'", short_string)]
    Str(Name),
    /// A numeral.
    #[regex(r"\.?[0-9]", numeral)]
    Num(Number),
    /// End of input. Never produced by logos; [`tokenize`] appends it.
    Eof,
}

/// One token with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// The line the lexer is on after reading it (see the module doc).
    pub line: Line,
    /// Byte offsets of the token in the source.
    pub span: std::ops::Range<usize>,
}

/// The result of [`tokenize`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lexed {
    /// The tokens, ending with a [`Tok::Eof`] token unless `error` is set.
    pub tokens: Vec<Token>,
    /// The lexical error that stopped the lexer, if any. It belongs after
    /// the last token of `tokens`.
    pub error: Option<LexError>,
}

/// Largest line number, as `MAX_INT` in `llex.c`'s `inclinenumber`.
const MAX_LINE: Line = i32::MAX as Line;

/// Reads all tokens of `source` (see the module doc for errors).
pub fn tokenize(source: &[u8]) -> Lexed {
    let mut stream = Tokens::new(source);
    let mut tokens = Vec::new();
    for item in &mut stream {
        match item {
            Ok(t) => tokens.push(t),
            Err(error) => return Lexed { tokens, error: Some(error) },
        }
    }
    Lexed { tokens, error: None }
}

/// The tokens of a source one at a time, as [`tokenize`] would list them:
/// `Ok` tokens ending with a [`Tok::Eof`] token, or with one `Err` (the
/// lexical error), after which the stream is over. The parser reads the
/// source through one of these (with [`Tokens::read`]) rather than keeping
/// a token vector, so a big source never has all its tokens in memory at
/// once.
pub struct Tokens<'s> {
    lex: Lexer<'s, Tok>,
    /// True once `Eof` or an error was returned (by the iterator).
    done: bool,
}

impl<'s> Tokens<'s> {
    /// A stream over `source`.
    pub fn new(source: &'s [u8]) -> Tokens<'s> {
        Tokens { lex: Tok::lexer(source), done: false }
    }

    /// Reads the next token into `t` (overwriting it in place: a token is
    /// not moved through the layers of an iterator), or fails with the
    /// lexical error found there. At the end of the source, `t` becomes a
    /// [`Tok::Eof`] token, and stays one on further reads. After an error
    /// the stream must not be read again.
    #[inline]
    pub fn read(&mut self, t: &mut Token) -> Result<(), Box<LexError>> {
        match self.lex.next() {
            Some(Ok(tok)) => {
                t.tok = tok;
                t.span = self.lex.span();
            }
            Some(Err(e)) => return Err(e),
            None => {
                t.tok = Tok::Eof;
                let end = self.lex.source().len();
                t.span = end..end;
            }
        }
        t.line = self.lex.extras.line;
        Ok(())
    }
}

impl Iterator for Tokens<'_> {
    type Item = Result<Token, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut t = Token { tok: Tok::Eof, line: 1, span: 0..0 };
        let read = self.read(&mut t);
        self.done = read.is_err() || t.tok == Tok::Eof;
        Some(read.map(|()| t).map_err(|e| *e))
    }
}

/// Builds an error at the lexer's current line.
fn error(lex: &Lexer<'_, Tok>, msg: impl Into<String>, near: Near) -> Box<LexError> {
    Box::new(LexError { msg: msg.into(), near, line: lex.extras.line })
}

/// Counts one line break, as `inclinenumber`.
fn inc_line(line: &mut Line) -> Result<(), Box<LexError>> {
    *line += 1;
    if *line >= MAX_LINE {
        return Err(Box::new(LexError {
            msg: "chunk has too many lines".into(),
            near: Near::Nothing,
            line: *line,
        }));
    }
    Ok(())
}

/// Length of the line break at the start of `s` (0 if none): one of `\n`,
/// `\r`, `\n\r`, `\r\n`.
fn newline_len(s: &[u8]) -> usize {
    match (s.first(), s.get(1)) {
        (Some(b'\n'), Some(b'\r')) | (Some(b'\r'), Some(b'\n')) => 2,
        (Some(b'\n' | b'\r'), _) => 1,
        _ => 0,
    }
}

/// Skip callback for a line break.
fn newline(lex: &mut Lexer<'_, Tok>) -> Result<(), Box<LexError>> {
    inc_line(&mut lex.extras.line)
}

/// Skip callback for `--`: a short comment, or a long one if a well-formed
/// long bracket follows.
fn comment(lex: &mut Lexer<'_, Tok>) -> Result<(), Box<LexError>> {
    let rest = lex.remainder();
    let after_bracket = rest.strip_prefix(b"[").unwrap_or_default();
    if let (Some(b'['), Sep::Long(level)) = (rest.first(), skip_sep(after_bracket)) {
        let mut line = lex.extras.line;
        let start_line = line;
        let read = read_long(after_bracket, level, &mut line, false);
        lex.extras.line = line;
        return match read {
            Some((used, _)) => {
                lex.bump(used + 1);
                Ok(())
            }
            None => {
                let msg = format!("unfinished long comment (starting at line {start_line})");
                Err(error(lex, msg, Near::Eof))
            }
        };
    }
    let len = rest.iter().position(|&c| c == b'\n' || c == b'\r').unwrap_or(rest.len());
    lex.bump(len);
    Ok(())
}

/// What follows a `[` (or `]`), as `skip_sep` classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sep {
    /// `[=*[`: a long bracket with this many `=`.
    Long(usize),
    /// A single bracket.
    Single,
    /// `[=` followed by something other than `[`, with this many `=`.
    Bad(usize),
}

/// Classifies what follows a bracket; `rest` starts right after it, and
/// `delim` is the bracket that must close the sequence.
fn skip_sep_with(rest: &[u8], delim: u8) -> Sep {
    let count = rest.iter().take_while(|&&c| c == b'=').count();
    match rest.get(count) {
        Some(&c) if c == delim => Sep::Long(count),
        _ if count == 0 => Sep::Single,
        _ => Sep::Bad(count),
    }
}

/// [`skip_sep_with`] for an opening bracket.
fn skip_sep(rest: &[u8]) -> Sep {
    skip_sep_with(rest, b'[')
}

/// Reads the body of a long string or comment; `rest` starts right after
/// the first `[` and `level` is the number of `=`. Returns the bytes used
/// (up to and including the closing bracket) and, if `keep`, the contents;
/// `None` at end of input. Advances `line` past every line break.
fn read_long(rest: &[u8], level: usize, line: &mut Line, keep: bool) -> Option<(usize, Vec<u8>)> {
    let mut i = level + 1; // the '='s and the second '['
    let mut out = Vec::new();
    let nl = newline_len(rest.get(i..).unwrap_or_default());
    if nl > 0 {
        i += nl;
        inc_line(line).ok()?;
    }
    loop {
        let c = *rest.get(i)?;
        match c {
            b']' => {
                let tail = rest.get(i + 1..).unwrap_or_default();
                match skip_sep_with(tail, b']') {
                    Sep::Long(n) if n == level => return Some((i + n + 2, out)),
                    Sep::Long(n) | Sep::Bad(n) => {
                        // the ']' and '='s are contents; rescan from the next byte
                        if keep {
                            out.push(b']');
                            out.extend(std::iter::repeat_n(b'=', n));
                        }
                        i += 1 + n;
                    }
                    Sep::Single => {
                        if keep {
                            out.push(b']');
                        }
                        i += 1;
                    }
                }
            }
            b'\n' | b'\r' => {
                i += newline_len(&rest[i..]);
                if keep {
                    out.push(b'\n');
                }
                inc_line(line).ok()?;
            }
            _ => {
                if keep {
                    out.push(c);
                }
                i += 1;
            }
        }
    }
}

/// Callback for `[`: a plain bracket or a long string.
fn bracket(lex: &mut Lexer<'_, Tok>) -> FilterResult<Tok, Box<LexError>> {
    let rest = lex.remainder();
    match skip_sep(rest) {
        Sep::Single => FilterResult::Emit(Tok::LBracket),
        Sep::Bad(n) => {
            let mut near = vec![b'['];
            near.extend(std::iter::repeat_n(b'=', n));
            FilterResult::Error(error(lex, "invalid long string delimiter", Near::Text(near)))
        }
        Sep::Long(level) => {
            let mut line = lex.extras.line;
            let start_line = line;
            let read = read_long(rest, level, &mut line, true);
            lex.extras.line = line;
            match read {
                Some((used, contents)) => {
                    lex.bump(used);
                    FilterResult::Emit(Tok::Str(contents.into()))
                }
                None => {
                    let msg = format!("unfinished long string (starting at line {start_line})");
                    FilterResult::Error(error(lex, msg, Near::Eof))
                }
            }
        }
    }
}

/// Reader of a short string: the state of `read_string` in `llex.c`.
struct StrReader<'a> {
    /// The input after the opening delimiter.
    rest: &'a [u8],
    /// Position in `rest`.
    pos: usize,
    /// The string's value so far.
    val: Vec<u8>,
    /// The opening delimiter.
    delim: u8,
    /// The current line.
    line: Line,
}

impl StrReader<'_> {
    /// The current byte (`None` at end of input).
    fn cur(&self) -> Option<u8> {
        self.rest.get(self.pos).copied()
    }

    /// An error "near" the lexer buffer: the delimiter, the value so far,
    /// and `extra` (the unprocessed escape text the buffer still holds).
    fn fail(&self, msg: &str, extra: &[u8]) -> Box<LexError> {
        let mut near = vec![self.delim];
        near.extend_from_slice(&self.val);
        near.extend_from_slice(extra);
        Box::new(LexError { msg: msg.into(), near: Near::Text(near), line: self.line })
    }

    /// An escape error as `esccheck`: the buffer also holds the current byte.
    fn esc_fail(&self, msg: &str, saved: &[u8]) -> Box<LexError> {
        let mut extra = saved.to_vec();
        extra.extend(self.cur());
        self.fail(msg, &extra)
    }

    /// Reads the string up to its closing delimiter.
    fn read(&mut self) -> Result<(), Box<LexError>> {
        loop {
            match self.cur() {
                None => {
                    return Err(Box::new(LexError {
                        msg: "unfinished string".into(),
                        near: Near::Eof,
                        line: self.line,
                    }))
                }
                Some(c) if c == self.delim => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\n' | b'\r') => return Err(self.fail("unfinished string", &[])),
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape()?;
                }
                Some(c) => {
                    self.val.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Reads an escape sequence; the backslash is already skipped.
    fn escape(&mut self) -> Result<(), Box<LexError>> {
        let Some(c) = self.cur() else { return Ok(()) }; // "unfinished string" next
        let simple = match c {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0C),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0B),
            b'\\' | b'"' | b'\'' => Some(c),
            _ => None,
        };
        if let Some(byte) = simple {
            self.val.push(byte);
            self.pos += 1;
            return Ok(());
        }
        match c {
            b'x' => self.hex_escape(),
            b'u' => self.utf8_escape(),
            b'z' => self.zap(),
            b'\n' | b'\r' => {
                self.pos += newline_len(&self.rest[self.pos..]);
                inc_line(&mut self.line)?;
                self.val.push(b'\n');
                Ok(())
            }
            b'0'..=b'9' => self.decimal_escape(),
            _ => Err(self.esc_fail("invalid escape sequence", b"\\")),
        }
    }

    /// `\xXX`: exactly two hexadecimal digits.
    fn hex_escape(&mut self) -> Result<(), Box<LexError>> {
        self.pos += 1; // 'x'
        let mut r = 0u32;
        let mut saved = b"\\x".to_vec();
        for _ in 0..2 {
            let Some(d) = self.cur().and_then(hex_digit) else {
                return Err(self.esc_fail("hexadecimal digit expected", &saved));
            };
            saved.extend(self.cur());
            r = (r << 4) | d;
            self.pos += 1;
        }
        // Two hexadecimal digits: at most 0xFF.
        self.val.push(r as u8);
        Ok(())
    }

    /// `\u{XXX}`: a code point up to 2^31-1, in extended UTF-8.
    fn utf8_escape(&mut self) -> Result<(), Box<LexError>> {
        self.pos += 1; // 'u'
        if self.cur() != Some(b'{') {
            return Err(self.esc_fail("missing '{'", b"\\u"));
        }
        self.pos += 1;
        let mut saved = b"\\u{".to_vec();
        let Some(first) = self.cur().and_then(hex_digit) else {
            return Err(self.esc_fail("hexadecimal digit expected", &saved));
        };
        let mut r = first;
        saved.extend(self.cur());
        self.pos += 1;
        while let Some(d) = self.cur().and_then(hex_digit) {
            if r > (0x7FFF_FFFF >> 4) {
                return Err(self.esc_fail("UTF-8 value too large", &saved));
            }
            r = (r << 4) | d;
            saved.extend(self.cur());
            self.pos += 1;
        }
        if self.cur() != Some(b'}') {
            return Err(self.esc_fail("missing '}'", &saved));
        }
        self.pos += 1;
        utf8_encode(r, &mut self.val);
        Ok(())
    }

    /// `\z`: skips the following white space, line breaks included.
    fn zap(&mut self) -> Result<(), Box<LexError>> {
        self.pos += 1; // 'z'
        while let Some(c) = self.cur().filter(|&c| is_c_space(c)) {
            if c == b'\n' || c == b'\r' {
                self.pos += newline_len(&self.rest[self.pos..]);
                inc_line(&mut self.line)?;
            } else {
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// `\ddd`: up to three decimal digits, at most 255.
    fn decimal_escape(&mut self) -> Result<(), Box<LexError>> {
        let mut r = 0u32;
        let mut saved = b"\\".to_vec();
        for _ in 0..3 {
            let Some(c) = self.cur().filter(u8::is_ascii_digit) else { break };
            r = r * 10 + u32::from(c - b'0');
            saved.push(c);
            self.pos += 1;
        }
        match u8::try_from(r) {
            Ok(byte) => {
                self.val.push(byte);
                Ok(())
            }
            Err(_) => Err(self.esc_fail("decimal escape too large", &saved)),
        }
    }
}

/// Callback for `"` and `'`: a short string.
fn short_string(lex: &mut Lexer<'_, Tok>) -> Result<Name, Box<LexError>> {
    let delim = lex.slice().first().copied().unwrap_or(b'"');
    // the usual string, with no escape or line break: its bytes as they are
    let rest = lex.remainder();
    if let Some(end) = rest.iter().position(|&c| c == delim || matches!(c, b'\\' | b'\n' | b'\r')) {
        if rest[end] == delim {
            let s = Name::new(&rest[..end]);
            lex.bump(end + 1);
            return Ok(s);
        }
    }
    let mut reader =
        StrReader { rest: lex.remainder(), pos: 0, val: Vec::new(), delim, line: lex.extras.line };
    let result = reader.read();
    lex.extras.line = reader.line;
    result?;
    lex.bump(reader.pos);
    Ok(reader.val.into())
}

/// Appends `x` (at most 2^31-1) in Lua's extended UTF-8 (`luaO_utf8esc`):
/// up to six bytes.
pub fn utf8_encode(x: u32, out: &mut Vec<u8>) {
    if x < 0x80 {
        out.push(x as u8);
        return;
    }
    let mut tail = [0u8; 6];
    let mut n = 0;
    let mut x = x;
    let mut mfb = 0x3Fu32; // largest value that fits in the first byte
    loop {
        tail[n] = 0x80 | (x & 0x3F) as u8;
        n += 1;
        x >>= 6;
        mfb >>= 1;
        if x <= mfb {
            break;
        }
    }
    out.push(((!mfb << 1) | x) as u8);
    out.extend(tail[..n].iter().rev());
}

/// Callback for a digit (or `.` and a digit): a numeral, read exactly as
/// `read_numeral`: hexadecimal digits, dots and exponent marks (with an
/// optional sign right after the mark), plus one letter if a letter touches
/// the numeral (to force an error).
fn numeral(lex: &mut Lexer<'_, Tok>) -> Result<Number, Box<LexError>> {
    let start = lex.span().start;
    let src = lex.source();
    let body = src.get(start..).unwrap_or_default();
    if let Some((len, n)) = simple_numeral(body) {
        lex.bump(len.saturating_sub(lex.span().len()));
        return Ok(n);
    }
    let len = numeral_len(body);
    let text = body.get(..len).unwrap_or_default();
    lex.bump(len.saturating_sub(lex.span().len()));
    str_to_number(text).ok_or_else(|| error(lex, "malformed number", Near::Text(text.to_vec())))
}

/// Powers of ten exactly representable as `f64`.
const POW10: [f64; 16] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/// The numerals data files are made of, read directly: decimal digits
/// (at most 18, so no overflow), optionally followed by `.` and more digits
/// (at most 15 digits in all), and not followed by anything `numeral_len`
/// would take into the numeral. Returns the length and the value, or
/// `None` for any other numeral (read by `numeral_len` and
/// `str_to_number`). The float is correctly rounded, as `strtod`'s: the
/// digits as an integer below 2^53 and the power of ten are both exact, and
/// one division rounds correctly.
fn simple_numeral(s: &[u8]) -> Option<(usize, Number)> {
    let ends =
        |i: usize| !s.get(i).is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
    let (int_n, m) = digits(s, 0, 0, 18)?;
    if int_n == 0 {
        return None;
    }
    if ends(int_n) {
        return Some((int_n, Number::Int(m as i64)));
    }
    if s.get(int_n) != Some(&b'.') || int_n > 15 {
        return None;
    }
    let (len, m) = digits(s, int_n + 1, m, 15 - int_n)?;
    if !ends(len) {
        return None;
    }
    Some((len, Number::Float(m as f64 / POW10[len - int_n - 1])))
}

/// Reads the decimal digits of `s` from `i` on into `m` (ten times `m` plus
/// the digit, for each), at most `max` of them: the position after them and
/// the value, or `None` if there are more.
fn digits(s: &[u8], mut i: usize, mut m: u64, max: usize) -> Option<(usize, u64)> {
    let start = i;
    while let Some(&c) = s.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        if i - start == max {
            return None;
        }
        m = m * 10 + u64::from(c - b'0');
        i += 1;
    }
    Some((i, m))
}

/// Length of the numeral at the start of `s` (which starts with a digit or
/// a dot and a digit).
fn numeral_len(s: &[u8]) -> usize {
    let mut i = usize::from(s.first() == Some(&b'.'));
    let hex = s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X'));
    i += if hex { 2 } else { 1 };
    let (lower, upper) = if hex { (b'p', b'P') } else { (b'e', b'E') };
    while let Some(&c) = s.get(i) {
        if c == lower || c == upper {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
        } else if c.is_ascii_hexdigit() || c == b'.' {
            i += 1;
        } else {
            break;
        }
    }
    if s.get(i).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        i += 1;
    }
    i
}

impl Tok {
    /// The text of a keyword or symbol token (`and`, `+`, `...`), as
    /// messages quote it; `None` for the tokens whose text is not fixed
    /// (names, strings, numerals, other bytes, end of input).
    pub fn symbol(&self) -> Option<&'static str> {
        Some(match self {
            Tok::And => "and",
            Tok::Break => "break",
            Tok::Do => "do",
            Tok::Else => "else",
            Tok::Elseif => "elseif",
            Tok::End => "end",
            Tok::False => "false",
            Tok::For => "for",
            Tok::Function => "function",
            Tok::Goto => "goto",
            Tok::If => "if",
            Tok::In => "in",
            Tok::Local => "local",
            Tok::Nil => "nil",
            Tok::Not => "not",
            Tok::Or => "or",
            Tok::Repeat => "repeat",
            Tok::Return => "return",
            Tok::Then => "then",
            Tok::True => "true",
            Tok::Until => "until",
            Tok::While => "while",
            Tok::IDiv => "//",
            Tok::Concat => "..",
            Tok::Dots => "...",
            Tok::Eq => "==",
            Tok::Ge => ">=",
            Tok::Le => "<=",
            Tok::Ne => "~=",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::DbColon => "::",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            Tok::Hash => "#",
            Tok::Amp => "&",
            Tok::Tilde => "~",
            Tok::Pipe => "|",
            Tok::Lt => "<",
            Tok::Gt => ">",
            Tok::Assign => "=",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::Other(_) | Tok::Name(_) | Tok::Str(_) | Tok::Num(_) | Tok::Eof => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let lexed = tokenize(s.as_bytes());
        assert_eq!(lexed.error, None, "{s}");
        lexed.tokens.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numerals() {
        assert_eq!(toks("3"), vec![Tok::Num(Number::Int(3)), Tok::Eof]);
        assert_eq!(toks("0x10"), vec![Tok::Num(Number::Int(16)), Tok::Eof]);
        assert_eq!(toks(".5"), vec![Tok::Num(Number::Float(0.5)), Tok::Eof]);
        assert_eq!(toks("3."), vec![Tok::Num(Number::Float(3.0)), Tok::Eof]);
        assert_eq!(toks("1e-2+"), vec![Tok::Num(Number::Float(0.01)), Tok::Plus, Tok::Eof]);
        assert_eq!(toks("0xe+1")[..2], [Tok::Num(Number::Int(14)), Tok::Plus]);
    }

    #[test]
    fn utf8_extended() {
        let mut v = Vec::new();
        utf8_encode(0x7FFF_FFFF, &mut v);
        assert_eq!(v, [253, 191, 191, 191, 191, 191]);
        v.clear();
        utf8_encode(0x800, &mut v);
        assert_eq!(v, [224, 160, 128]);
    }

    #[test]
    fn simple_numerals_read_as_str_to_number() {
        let cases = [
            "0",
            "7",
            "007",
            "123456789012345678",
            "1234567890123456789",
            "2.5",
            "0.1",
            "5.",
            "123456789.012345",
            "1234567890.12345678",
            "9007199254740993.0",
            "0.30000000000000004",
            "1e5",
            "0x10",
            "3.5e2",
            "12ab",
            "1_",
            "1..2",
            "4.5.6",
        ];
        for c in cases {
            let via_slow = str_to_number(&c.as_bytes()[..numeral_len(c.as_bytes())]);
            match simple_numeral(c.as_bytes()) {
                Some((len, n)) => {
                    assert_eq!(len, numeral_len(c.as_bytes()), "{c}");
                    assert_eq!(Some(n), via_slow, "{c}");
                }
                None => assert!(!c.starts_with('0') || c.len() > 3 || c.contains('x'), "{c}"),
            }
        }
        for i in 0..20_000u64 {
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 50 + 14);
            let text = format!("{}.{}", x / 1000, x % 100_000);
            let digits = text.len() - 1;
            match simple_numeral(text.as_bytes()) {
                Some((len, n)) => {
                    assert_eq!(len, text.len(), "{text}");
                    assert_eq!(Some(n), str_to_number(text.as_bytes()), "{text}");
                }
                None => assert!(digits > 15, "{text}"),
            }
        }
    }
}
