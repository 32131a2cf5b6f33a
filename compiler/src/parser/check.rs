//! The checker: a recognizer that mirrors `lparser.c` function by function.
//!
//! # Why it exists
//!
//! The LR parser generated from `grammar.lalrpop` builds the tree, but an LR
//! parser fails at a different moment, with a different idea of what was
//! expected, than Lua's recursive-descent parser. Messages must read exactly
//! like the reference, so every chunk is first run through this checker,
//! which reads the token stream exactly as `lparser.c` reads it (holding
//! the current token and at most one token of lookahead): the same functions, the same `check`/`checknext`/`check_match`
//! calls, the same one-token lookahead in table constructors, and therefore
//! the same first error with the same wording, line and "near" token. It
//! builds nothing; when it accepts a chunk, the LR parser accepts it too
//! (the two agree on the language; the fuzz target `parse_agree` checks it).
//!
//! # Limits
//!
//! * **C levels.** `lparser.c` counts nesting in `statement`, `subexpr` and
//!   each extra target of a multiple assignment (`enterlevel`), on top of
//!   the C calls already active, and fails with `C stack overflow` when the
//!   count reaches `LUAI_MAXCCALLS` (200). The count starts at
//!   [`BASE_LEVEL`], the value it has when `load` is called from a Lua
//!   chunk, so the same sources fail as with the reference's `load`.
//! * **Tree depth.** Lua accepts unbounded left-associative chains
//!   (`1+1+...`, `a.b.c...`, `f()()...`), which nest only in the tree. The
//!   checker computes the depth of the tree the parser will build (counting
//!   `Expr` and `Stat` nodes) and rejects a chunk whose tree would be deeper
//!   than [`MAX_TREE_DEPTH`], so that no consumer of the tree (codegen's
//!   recursion, the tree's own `Drop`) can overflow the stack.
//! * **Locals.** `new_localvar`'s limit of 200 active locals per function is
//!   checked here, with `lparser.c`'s scoping.
//!
//! The checker itself recurses only through the C levels, so its recursion
//! is bounded by 200 levels; every loop in `lparser.c` is a loop here.

use crate::ast::{Line, Name};
use crate::lexer::{LexError, Near, Tok, Token};
use crate::number::Number;

/// `LUAI_MAXCCALLS`.
pub const MAX_C_LEVELS: u32 = 200;
/// The C-call count when the parser starts (under `load` from Lua code).
pub const BASE_LEVEL: u32 = 2;
/// Deepest tree the parser may build, in nested `Expr`/`Stat` nodes.
pub const MAX_TREE_DEPTH: u32 = 1000;
/// `MAXVARS`: active local variables per function.
const MAX_VARS: u32 = 200;
/// `UNARY_PRIORITY`.
const UNARY_PRIORITY: u8 = 12;

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

/// Result of the checking functions.
type Res<T> = Result<T, Failure>;

/// What a suffixed expression turned out to be (`vkisvar` and `VCALL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A name or an indexed expression: assignable.
    Var,
    /// A call.
    Call,
    /// A parenthesized expression.
    Other,
}

/// Checks a chunk, reading its tokens from `tokens` (a [`Tokens`] stream;
/// at most two tokens are held at a time).
pub fn check<I>(tokens: I, source: &[u8]) -> Res<()>
where
    I: Iterator<Item = Result<Token, LexError>>,
{
    let mut checker = Checker {
        toks: tokens,
        cur: None,
        ahead: None,
        lex_error: None,
        source,
        lookahead: false,
        linenumber: 1,
        level: BASE_LEVEL,
        vararg: true,
        linedefined: 0,
        nactvar: 0,
    };
    checker.mainfunc()
}

/// The checker's state: the lexer position and `FuncState`'s relevant part.
struct Checker<'a, I> {
    /// The rest of the token stream.
    toks: I,
    /// The current token (`None` before the first one, or when the stream
    /// ended with a lexical error there).
    cur: Option<Token>,
    /// The token after the current one, once read (`luaX_lookahead`).
    ahead: Option<Token>,
    /// The lexical error that ended the stream, once read.
    lex_error: Option<LexError>,
    source: &'a [u8],
    /// True when the token after the current one was looked at.
    lookahead: bool,
    /// `ls->linenumber`.
    linenumber: Line,
    /// `nCcalls`.
    level: u32,
    /// Whether the current function is vararg.
    vararg: bool,
    /// The current function's `linedefined` (0 for the main function).
    linedefined: Line,
    /// Local variables declared and in scope in the current function.
    nactvar: u32,
}

impl<I: Iterator<Item = Result<Token, LexError>>> Checker<'_, I> {
    // ----- tokens -----------------------------------------------------------

    /// The current token.
    fn cur(&self) -> &Tok {
        self.cur.as_ref().map_or(&Tok::Eof, |t| &t.tok)
    }

    /// The next token of the stream (`None` at its end, the lexical error
    /// being kept in `lex_error`).
    fn pull(&mut self) -> Option<Token> {
        match self.toks.next()? {
            Ok(t) => Some(t),
            Err(e) => {
                self.lex_error = Some(e);
                None
            }
        }
    }

    /// The token after the current one, read from the stream if needed.
    fn fill_ahead(&mut self) -> Option<&Token> {
        if self.ahead.is_none() {
            self.ahead = self.pull();
        }
        self.ahead.as_ref()
    }

    /// The lexical error at the end of the token stream.
    fn lex_failure(&self) -> Failure {
        match &self.lex_error {
            Some(e) => Failure::Syntax { msg: e.msg.clone(), near: e.near.clone(), line: e.line },
            None => Failure::Syntax {
                msg: "unexpected end of token stream".into(),
                near: Near::Eof,
                line: self.linenumber,
            },
        }
    }

    /// Reads the first token (`luaX_next` at the start of `mainfunc`).
    fn start(&mut self) -> Res<()> {
        match self.pull() {
            Some(t) => {
                self.linenumber = t.line;
                self.cur = Some(t);
                Ok(())
            }
            None => Err(self.lex_failure()),
        }
    }

    /// `luaX_next`: moves to the next token (a lexical error is raised when
    /// the lexer reaches it).
    fn next(&mut self) -> Res<()> {
        if matches!(self.cur(), Tok::Eof) {
            return Ok(());
        }
        // straight from the stream unless a lookahead read it (a token is
        // moved once, not through `ahead`)
        let Some(t) = self.ahead.take().or_else(|| self.pull()) else {
            return Err(self.lex_failure());
        };
        self.linenumber = t.line;
        self.cur = Some(t);
        self.lookahead = false;
        Ok(())
    }

    /// `luaX_lookahead`: the token after the current one.
    fn peek(&mut self) -> Res<&Tok> {
        if matches!(self.cur(), Tok::Eof) {
            return Ok(&Tok::Eof);
        }
        match self.fill_ahead().map(|t| t.line) {
            Some(line) => {
                self.lookahead = true;
                self.linenumber = line;
                Ok(self.ahead.as_ref().map_or(&Tok::Eof, |t| &t.tok))
            }
            None => Err(self.lex_failure()),
        }
    }

    /// `testnext`.
    fn testnext(&mut self, t: &Tok) -> Res<bool> {
        if self.cur() == t {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `check`.
    fn check(&self, t: &Tok) -> Res<()> {
        if self.cur() == t {
            return Ok(());
        }
        Err(self.error_expected(t))
    }

    /// `checknext`.
    fn checknext(&mut self, t: &Tok) -> Res<()> {
        self.check(t)?;
        self.next()
    }

    /// `check_match`: `what` closes `who`, opened at line `line`.
    fn check_match(&mut self, what: &Tok, who: &Tok, line: Line) -> Res<()> {
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

    /// `str_checkname` (the name itself is not needed).
    fn checkname(&mut self) -> Res<()> {
        match self.cur() {
            Tok::Name(_) => self.next(),
            _ => Err(self.error_expected(&Tok::Name(Name::default()))),
        }
    }

    // ----- errors -----------------------------------------------------------

    /// `luaX_syntaxerror`: an error near the current token.
    fn syntax_error(&self, msg: impl Into<String>) -> Failure {
        let near = match &self.cur {
            Some(t) => near_token(t, self.source),
            None => Near::Eof,
        };
        Failure::Syntax { msg: msg.into(), near, line: self.linenumber }
    }

    /// `luaK_semerror`: an error without "near" part.
    fn sem_error(&self, msg: impl Into<String>) -> Failure {
        Failure::Syntax { msg: msg.into(), near: Near::Nothing, line: self.linenumber }
    }

    /// `error_expected`.
    fn error_expected(&self, t: &Tok) -> Failure {
        self.syntax_error(format!("{} expected", token2str(t)))
    }

    /// `errorlimit`.
    fn error_limit(&self, limit: u32, what: &str) -> Failure {
        let place = match self.linedefined {
            0 => "main function".to_string(),
            line => format!("function at line {line}"),
        };
        self.syntax_error(format!("too many {what} (limit is {limit}) in {place}"))
    }

    // ----- limits -----------------------------------------------------------

    /// `enterlevel`.
    fn enter(&mut self) -> Res<()> {
        self.level += 1;
        if self.level >= MAX_C_LEVELS {
            return Err(Failure::CStack);
        }
        Ok(())
    }

    /// `leavelevel`.
    fn leave(&mut self) {
        self.level -= 1;
    }

    /// The depth of a node over children of depth `d`.
    fn node(&self, d: u32) -> Res<u32> {
        let d = d + 1;
        if d > MAX_TREE_DEPTH {
            return Err(self.error_limit(MAX_TREE_DEPTH, "syntax levels"));
        }
        Ok(d)
    }

    /// `new_localvar` (the name is already read).
    fn new_localvar(&mut self) -> Res<()> {
        if self.nactvar + 1 > MAX_VARS {
            return Err(self.error_limit(MAX_VARS, "local variables"));
        }
        self.nactvar += 1;
        Ok(())
    }

    // ----- blocks and functions --------------------------------------------

    /// `mainfunc`.
    fn mainfunc(&mut self) -> Res<()> {
        self.start()?;
        self.statlist()?;
        self.check(&Tok::Eof)
    }

    /// `block_follow`.
    fn block_follow(&self, with_until: bool) -> bool {
        match self.cur() {
            Tok::Else | Tok::Elseif | Tok::End | Tok::Eof => true,
            Tok::Until => with_until,
            _ => false,
        }
    }

    /// `statlist`.
    fn statlist(&mut self) -> Res<u32> {
        let mut depth = 0;
        while !self.block_follow(true) {
            let last = matches!(self.cur(), Tok::Return);
            depth = depth.max(self.statement()?);
            if last {
                break;
            }
        }
        Ok(depth)
    }

    /// `block`: a statement list in its own scope.
    fn block(&mut self) -> Res<u32> {
        let saved = self.nactvar;
        let d = self.statlist()?;
        self.nactvar = saved;
        Ok(d)
    }

    /// `body`: parameters, block, `end`; a method gets a `self` parameter.
    fn body(&mut self, is_method: bool, line: Line) -> Res<u32> {
        let saved = (self.vararg, self.linedefined, self.nactvar);
        self.vararg = false;
        self.linedefined = line;
        self.nactvar = 0;
        self.checknext(&Tok::LParen)?;
        if is_method {
            self.new_localvar()?;
        }
        self.parlist()?;
        self.checknext(&Tok::RParen)?;
        let d = self.statlist()?;
        self.check_match(&Tok::End, &Tok::Function, line)?;
        (self.vararg, self.linedefined, self.nactvar) = saved;
        self.node(d)
    }

    /// `parlist`.
    fn parlist(&mut self) -> Res<()> {
        if matches!(self.cur(), Tok::RParen) {
            return Ok(());
        }
        loop {
            match self.cur() {
                Tok::Name(_) => {
                    self.next()?;
                    self.new_localvar()?;
                }
                Tok::Dots => {
                    self.next()?;
                    self.vararg = true;
                }
                _ => return Err(self.syntax_error("<name> or '...' expected")),
            }
            if self.vararg || !self.testnext(&Tok::Comma)? {
                return Ok(());
            }
        }
    }

    // ----- statements -------------------------------------------------------

    /// `statement`.
    fn statement(&mut self) -> Res<u32> {
        let line = self.linenumber;
        self.enter()?;
        let d = match self.cur() {
            Tok::Semi => {
                self.next()?;
                0
            }
            Tok::If => self.ifstat(line)?,
            Tok::While => self.whilestat(line)?,
            Tok::Do => {
                self.next()?;
                let d = self.block()?;
                self.check_match(&Tok::End, &Tok::Do, line)?;
                d
            }
            Tok::For => self.forstat(line)?,
            Tok::Repeat => self.repeatstat(line)?,
            Tok::Function => self.funcstat(line)?,
            Tok::Local => {
                self.next()?;
                if self.testnext(&Tok::Function)? {
                    self.localfunc()?
                } else {
                    self.localstat()?
                }
            }
            Tok::DbColon => {
                self.next()?;
                self.checkname()?;
                self.labelstat()?
            }
            Tok::Return => {
                self.next()?;
                self.retstat()?
            }
            Tok::Break => {
                self.next()?;
                0
            }
            Tok::Goto => {
                self.next()?;
                self.checkname()?;
                0
            }
            _ => self.exprstat()?,
        };
        self.leave();
        self.node(d)
    }

    /// `ifstat`.
    fn ifstat(&mut self, line: Line) -> Res<u32> {
        let mut d = self.test_then_block()?;
        while matches!(self.cur(), Tok::Elseif) {
            d = d.max(self.test_then_block()?);
        }
        if self.testnext(&Tok::Else)? {
            d = d.max(self.block()?);
        }
        self.check_match(&Tok::End, &Tok::If, line)?;
        Ok(d)
    }

    /// `test_then_block` (including its shortcut for `then break`).
    fn test_then_block(&mut self) -> Res<u32> {
        self.next()?;
        let d = self.expr()?;
        self.checknext(&Tok::Then)?;
        let saved = self.nactvar;
        if matches!(self.cur(), Tok::Break) {
            self.next()?;
            while self.testnext(&Tok::Semi)? {}
            if self.block_follow(false) {
                return Ok(d);
            }
        }
        let d = d.max(self.statlist()?);
        self.nactvar = saved;
        Ok(d)
    }

    /// `whilestat`.
    fn whilestat(&mut self, line: Line) -> Res<u32> {
        self.next()?;
        let d = self.expr()?;
        self.checknext(&Tok::Do)?;
        let d = d.max(self.block()?);
        self.check_match(&Tok::End, &Tok::While, line)?;
        Ok(d)
    }

    /// `repeatstat`.
    fn repeatstat(&mut self, line: Line) -> Res<u32> {
        let saved = self.nactvar;
        self.next()?;
        let d = self.statlist()?;
        self.check_match(&Tok::Until, &Tok::Repeat, line)?;
        let d = d.max(self.expr()?);
        self.nactvar = saved;
        Ok(d)
    }

    /// `forstat`.
    fn forstat(&mut self, line: Line) -> Res<u32> {
        let saved = self.nactvar;
        self.next()?;
        self.checkname()?;
        let d = match self.cur() {
            Tok::Assign => self.fornum()?,
            Tok::Comma | Tok::In => self.forlist()?,
            _ => return Err(self.syntax_error("'=' or 'in' expected")),
        };
        self.check_match(&Tok::End, &Tok::For, line)?;
        self.nactvar = saved;
        Ok(d)
    }

    /// `fornum`.
    fn fornum(&mut self) -> Res<u32> {
        for _ in 0..4 {
            self.new_localvar()?;
        }
        self.checknext(&Tok::Assign)?;
        let mut d = self.expr()?;
        self.checknext(&Tok::Comma)?;
        d = d.max(self.expr()?);
        if self.testnext(&Tok::Comma)? {
            d = d.max(self.expr()?);
        }
        Ok(d.max(self.forbody()?))
    }

    /// `forlist`.
    fn forlist(&mut self) -> Res<u32> {
        for _ in 0..5 {
            self.new_localvar()?;
        }
        while self.testnext(&Tok::Comma)? {
            self.checkname()?;
            self.new_localvar()?;
        }
        self.checknext(&Tok::In)?;
        let d = self.explist()?;
        Ok(d.max(self.forbody()?))
    }

    /// `forbody`.
    fn forbody(&mut self) -> Res<u32> {
        self.checknext(&Tok::Do)?;
        self.block()
    }

    /// `funcstat`.
    fn funcstat(&mut self, line: Line) -> Res<u32> {
        self.next()?;
        self.checkname()?;
        while matches!(self.cur(), Tok::Dot) {
            self.next()?;
            self.checkname()?;
        }
        let is_method = matches!(self.cur(), Tok::Colon);
        if is_method {
            self.next()?;
            self.checkname()?;
        }
        self.body(is_method, line)
    }

    /// `localfunc`.
    fn localfunc(&mut self) -> Res<u32> {
        self.checkname()?;
        self.new_localvar()?;
        let line = self.linenumber;
        self.body(false, line)
    }

    /// `localstat` with `getlocalattribute`.
    fn localstat(&mut self) -> Res<u32> {
        let mut has_close = false;
        loop {
            self.checkname()?;
            self.new_localvar()?;
            if self.testnext(&Tok::Lt)? {
                // the name's bytes are its span (see `Tokens::without_names`)
                let attr = match &self.cur {
                    Some(t @ Token { tok: Tok::Name(_), .. }) => {
                        self.source.get(t.span.clone()).unwrap_or_default().to_vec()
                    }
                    _ => Vec::new(),
                };
                self.checkname()?;
                self.checknext(&Tok::Gt)?;
                match attr.as_slice() {
                    b"const" => {}
                    b"close" => {
                        if has_close {
                            let msg = "multiple to-be-closed variables in local list";
                            return Err(self.sem_error(msg));
                        }
                        has_close = true;
                    }
                    _ => {
                        let name = String::from_utf8_lossy(&attr);
                        return Err(self.sem_error(format!("unknown attribute '{name}'")));
                    }
                }
            }
            if !self.testnext(&Tok::Comma)? {
                break;
            }
        }
        if self.testnext(&Tok::Assign)? {
            return self.explist();
        }
        Ok(0)
    }

    /// `labelstat` (the name is already read).
    fn labelstat(&mut self) -> Res<u32> {
        self.checknext(&Tok::DbColon)?;
        let mut d = 0;
        while matches!(self.cur(), Tok::Semi | Tok::DbColon) {
            d = d.max(self.statement()?);
        }
        Ok(d)
    }

    /// `retstat` (`return` is already read).
    fn retstat(&mut self) -> Res<u32> {
        let mut d = 0;
        if !self.block_follow(true) && !matches!(self.cur(), Tok::Semi) {
            d = self.explist()?;
        }
        self.testnext(&Tok::Semi)?;
        Ok(d)
    }

    /// `exprstat`: a call or an assignment.
    fn exprstat(&mut self) -> Res<u32> {
        let (d, kind) = self.suffixedexp()?;
        if matches!(self.cur(), Tok::Assign | Tok::Comma) {
            return self.restassign(d, kind);
        }
        if kind != Kind::Call {
            return Err(self.syntax_error("syntax error"));
        }
        Ok(d)
    }

    /// `restassign`, with its recursion (one C level per extra target)
    /// turned into a loop.
    fn restassign(&mut self, first_depth: u32, first: Kind) -> Res<u32> {
        let mut d = first_depth;
        let mut kind = first;
        let mut entered = 0;
        loop {
            if kind != Kind::Var {
                return Err(self.syntax_error("syntax error"));
            }
            if !self.testnext(&Tok::Comma)? {
                break;
            }
            let (dt, k) = self.suffixedexp()?;
            d = d.max(dt);
            kind = k;
            self.enter()?;
            entered += 1;
        }
        self.checknext(&Tok::Assign)?;
        d = d.max(self.explist()?);
        self.level -= entered;
        Ok(d)
    }

    // ----- expressions ------------------------------------------------------

    /// `explist`.
    fn explist(&mut self) -> Res<u32> {
        let mut d = self.expr()?;
        while self.testnext(&Tok::Comma)? {
            d = d.max(self.expr()?);
        }
        Ok(d)
    }

    /// `expr`.
    fn expr(&mut self) -> Res<u32> {
        Ok(self.subexpr(0)?.0)
    }

    /// `subexpr`: returns the depth and the first operator not taken.
    fn subexpr(&mut self, limit: u8) -> Res<(u32, Option<(u8, u8)>)> {
        self.enter()?;
        let mut d = if is_unop(self.cur()) {
            self.next()?;
            let (d, _) = self.subexpr(UNARY_PRIORITY)?;
            self.node(d)?
        } else {
            self.simpleexp()?
        };
        let mut op = binop_priority(self.cur());
        while let Some((_, right)) = op.filter(|&(left, _)| left > limit) {
            self.next()?;
            let (d2, next) = self.subexpr(right)?;
            d = self.node(d.max(d2))?;
            op = next;
        }
        self.leave();
        Ok((d, op))
    }

    /// `simpleexp`.
    fn simpleexp(&mut self) -> Res<u32> {
        match self.cur() {
            Tok::Num(_) | Tok::Str(_) | Tok::Nil | Tok::True | Tok::False => {
                self.next()?;
                Ok(1)
            }
            Tok::Dots => {
                if !self.vararg {
                    return Err(self.syntax_error("cannot use '...' outside a vararg function"));
                }
                self.next()?;
                Ok(1)
            }
            Tok::LBrace => self.constructor(),
            Tok::Function => {
                self.next()?;
                let line = self.linenumber;
                let d = self.body(false, line)?;
                self.node(d)
            }
            _ => Ok(self.suffixedexp()?.0),
        }
    }

    /// `primaryexp`.
    fn primaryexp(&mut self) -> Res<(u32, Kind)> {
        match self.cur() {
            Tok::LParen => {
                let line = self.linenumber;
                self.next()?;
                let d = self.expr()?;
                self.check_match(&Tok::RParen, &Tok::LParen, line)?;
                Ok((self.node(d)?, Kind::Other))
            }
            Tok::Name(_) => {
                self.next()?;
                Ok((1, Kind::Var))
            }
            _ => Err(self.syntax_error("unexpected symbol")),
        }
    }

    /// `suffixedexp`.
    fn suffixedexp(&mut self) -> Res<(u32, Kind)> {
        let line = self.linenumber;
        let (mut d, mut kind) = self.primaryexp()?;
        loop {
            match self.cur() {
                Tok::Dot => {
                    self.next()?;
                    self.checkname()?;
                    d = self.node(d)?;
                    kind = Kind::Var;
                }
                Tok::LBracket => {
                    self.next()?;
                    let dk = self.expr()?;
                    self.checknext(&Tok::RBracket)?;
                    d = self.node(d.max(dk))?;
                    kind = Kind::Var;
                }
                Tok::Colon => {
                    self.next()?;
                    self.checkname()?;
                    let da = self.funcargs(line)?;
                    d = self.node(d.max(da))?;
                    kind = Kind::Call;
                }
                Tok::LParen | Tok::Str(_) | Tok::LBrace => {
                    let da = self.funcargs(line)?;
                    d = self.node(d.max(da))?;
                    kind = Kind::Call;
                }
                _ => return Ok((d, kind)),
            }
        }
    }

    /// `funcargs`.
    fn funcargs(&mut self, line: Line) -> Res<u32> {
        match self.cur() {
            Tok::LParen => {
                self.next()?;
                let d = if matches!(self.cur(), Tok::RParen) { 0 } else { self.explist()? };
                self.check_match(&Tok::RParen, &Tok::LParen, line)?;
                Ok(d)
            }
            Tok::LBrace => self.constructor(),
            Tok::Str(_) => {
                self.next()?;
                Ok(1)
            }
            _ => Err(self.syntax_error("function arguments expected")),
        }
    }

    /// `constructor`.
    fn constructor(&mut self) -> Res<u32> {
        let line = self.linenumber;
        self.checknext(&Tok::LBrace)?;
        let mut d = 0;
        loop {
            if matches!(self.cur(), Tok::RBrace) {
                break;
            }
            d = d.max(self.field()?);
            if !self.testnext(&Tok::Comma)? && !self.testnext(&Tok::Semi)? {
                break;
            }
        }
        self.check_match(&Tok::RBrace, &Tok::LBrace, line)?;
        self.node(d)
    }

    /// `field`: `name = exp`, `[exp] = exp` or `exp`.
    fn field(&mut self) -> Res<u32> {
        match self.cur() {
            Tok::Name(_) => {
                if matches!(self.peek()?, Tok::Assign) {
                    self.next()?; // the name
                    self.next()?; // '='
                    self.expr()
                } else {
                    self.expr()
                }
            }
            Tok::LBracket => {
                self.next()?;
                let dk = self.expr()?;
                self.checknext(&Tok::RBracket)?;
                self.checknext(&Tok::Assign)?;
                Ok(dk.max(self.expr()?))
            }
            _ => self.expr(),
        }
    }
}

/// Whether a token is a unary operator (`getunopr`).
fn is_unop(t: &Tok) -> bool {
    matches!(t, Tok::Not | Tok::Minus | Tok::Tilde | Tok::Hash)
}

/// Left and right priorities of a binary operator (`priority[]`).
fn binop_priority(t: &Tok) -> Option<(u8, u8)> {
    Some(match t {
        Tok::Plus | Tok::Minus => (10, 10),
        Tok::Star | Tok::Percent | Tok::Slash | Tok::IDiv => (11, 11),
        Tok::Caret => (14, 13),
        Tok::Amp => (6, 6),
        Tok::Pipe => (4, 4),
        Tok::Tilde => (5, 5),
        Tok::Shl | Tok::Shr => (7, 7),
        Tok::Concat => (9, 8),
        Tok::Eq | Tok::Lt | Tok::Le | Tok::Ne | Tok::Gt | Tok::Ge => (3, 3),
        Tok::And => (2, 2),
        Tok::Or => (1, 1),
        _ => return None,
    })
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
        // the span, not the token's bytes (see `Tokens::without_names`)
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
