//! Blocks, statements and function bodies: `lparser.c`'s `statlist`,
//! `statement` and what it calls, building [`ast::Stat`]s.
//!
//! Each function reads exactly the tokens its namesake in `lparser.c`
//! reads, in the same order and with the same checks (see `check.rs`), and
//! returns the node it built with the node's depth (see [`Parser::node`]).
//! A statement appends its node(s) to the list of the block it is in: one
//! statement of the source may give none (`;`) or several (`labelstat`
//! reads the labels and `;` that follow a label, as `lparser.c` does, and
//! each label is a statement of the block). The main chunk's statements are
//! handed to the caller one at a time as they are completed
//! ([`Parser::mainfunc`]), so a big chunk never exists as a whole tree.
//!
//! Lines: a statement carries the line of its first token; see `parser.rs`
//! for the rest. `linenumber` (for messages and `linedefined`) and the
//! token lines (for the tree) are kept apart even where they agree.

use super::check::{Parser, Res};
use crate::ast::{Attrib, Block, Expr, ExprKind, FuncBody, Line, Name, Return, Stat, StatKind};
use crate::lexer::Tok;

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

/// The kind of a suffixed expression.
fn kind(e: &Expr) -> Kind {
    match e.kind {
        ExprKind::Name(_) | ExprKind::Index(..) => Kind::Var,
        ExprKind::Call(..) | ExprKind::MethodCall(..) => Kind::Call,
        _ => Kind::Other,
    }
}

impl Parser<'_> {
    // ----- blocks and functions --------------------------------------------

    /// `mainfunc`: the main chunk, whose statements go to `each` as soon as
    /// each is complete. Returns its final `return`, if any.
    pub(super) fn mainfunc(&mut self, each: &mut dyn FnMut(Stat)) -> Res<Option<Return>> {
        self.start()?;
        let mut done = Vec::new();
        let mut ret = None;
        while !self.block_follow(true) {
            if matches!(self.cur.tok, Tok::Return) {
                ret = Some(self.return_statement()?.0);
                break;
            }
            self.statement(&mut done)?;
            for s in done.drain(..) {
                each(s);
            }
        }
        self.check(&Tok::Eof)?;
        Ok(ret)
    }

    /// `block_follow`.
    pub(super) fn block_follow(&self, with_until: bool) -> bool {
        match self.cur.tok {
            Tok::Else | Tok::Elseif | Tok::End | Tok::Eof => true,
            Tok::Until => with_until,
            _ => false,
        }
    }

    /// `statlist`: the statements of a block, appended to `stats`, and its
    /// `return` (which ends the list), with their depth.
    fn statlist(&mut self, stats: &mut Vec<Stat>) -> Res<(Option<Box<Return>>, u32)> {
        let mut depth = 0;
        while !self.block_follow(true) {
            if matches!(self.cur.tok, Tok::Return) {
                let (ret, d) = self.return_statement()?;
                return Ok((Some(Box::new(ret)), depth.max(d)));
            }
            depth = depth.max(self.statement(stats)?);
        }
        Ok((None, depth))
    }

    /// A statement list as a [`Block`] (the scope is the caller's).
    fn stat_block(&mut self) -> Res<(Block, u32)> {
        let mut stats = Vec::new();
        let (ret, d) = self.statlist(&mut stats)?;
        Ok((Block { stats, ret }, d))
    }

    /// `block`: a statement list in its own scope.
    fn block(&mut self) -> Res<(Block, u32)> {
        let saved = self.nactvar;
        let b = self.stat_block()?;
        self.nactvar = saved;
        Ok(b)
    }

    /// `body`: parameters, block, `end`; a method gets a `self` parameter.
    /// `line` is `linedefined` (for messages); the tree's `line` is that of
    /// the `(` (a `function` statement sets its own).
    pub(super) fn body(&mut self, is_method: bool, line: Line) -> Res<(Box<FuncBody>, u32)> {
        let saved = (self.vararg, self.linedefined, self.nactvar, self.in_fields);
        self.vararg = false;
        self.linedefined = line;
        self.nactvar = 0;
        self.in_fields = false;
        let open_line = self.line();
        self.checknext(&Tok::LParen)?;
        if is_method {
            self.new_localvar()?;
        }
        let params = self.parlist()?;
        self.checknext(&Tok::RParen)?;
        let (block, d) = self.stat_block()?;
        let end_line = self.line();
        self.check_match(&Tok::End, &Tok::Function, line)?;
        let is_vararg = self.vararg;
        (self.vararg, self.linedefined, self.nactvar, self.in_fields) = saved;
        let d = self.node(d)?;
        Ok((Box::new(FuncBody { params, is_vararg, block, line: open_line, end_line }), d))
    }

    /// `parlist`: the named parameters (`vararg` is set by a `...`).
    fn parlist(&mut self) -> Res<Vec<Name>> {
        let mut params = Vec::new();
        if matches!(self.cur.tok, Tok::RParen) {
            return Ok(params);
        }
        loop {
            match &mut self.cur.tok {
                Tok::Name(name) => {
                    params.push(std::mem::take(name));
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
                return Ok(params);
            }
        }
    }

    // ----- statements -------------------------------------------------------

    /// `statement`: appends its node(s) to `stats` and returns its depth.
    /// (A `return` is read by [`Parser::return_statement`]: `statlist`
    /// sees it first.)
    fn statement(&mut self, stats: &mut Vec<Stat>) -> Res<u32> {
        let line = self.linenumber;
        let tline = self.line();
        self.enter()?;
        let (kind, d) = match self.cur.tok {
            Tok::Semi => {
                self.next()?;
                (None, 0)
            }
            Tok::If => self.ifstat(line)?,
            Tok::While => self.whilestat(line)?,
            Tok::Do => {
                self.next()?;
                let (b, d) = self.block()?;
                self.check_match(&Tok::End, &Tok::Do, line)?;
                (Some(StatKind::Do(b)), d)
            }
            Tok::For => self.forstat(line)?,
            Tok::Repeat => self.repeatstat(line)?,
            Tok::Function => self.funcstat(line, tline)?,
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
                let name = self.checkname()?;
                (None, self.labelstat(name, tline, stats)?)
            }
            Tok::Break => {
                self.next()?;
                (Some(StatKind::Break), 0)
            }
            Tok::Goto => {
                self.next()?;
                (Some(StatKind::Goto(self.checkname()?)), 0)
            }
            _ => self.exprstat()?,
        };
        self.leave();
        let d = self.node(d)?;
        if let Some(kind) = kind {
            stats.push(Stat { kind, line: tline });
        }
        Ok(d)
    }

    /// `statement` for `return` and `retstat`: the `return` statement
    /// that ends a block.
    fn return_statement(&mut self) -> Res<(Return, u32)> {
        let line = self.line();
        self.enter()?;
        self.next()?;
        let mut exprs = Vec::new();
        let mut d = 0;
        if !self.block_follow(true) && !matches!(self.cur.tok, Tok::Semi) {
            d = self.explist(&mut exprs)?;
        }
        self.testnext(&Tok::Semi)?;
        self.leave();
        let d = self.node(d)?;
        Ok((Return { exprs, line }, d))
    }

    /// `ifstat`.
    fn ifstat(&mut self, line: Line) -> Res<(Option<StatKind>, u32)> {
        let mut conds = Vec::with_capacity(1);
        let mut then_lines = Vec::with_capacity(1);
        let mut d = self.test_then_block(&mut conds, &mut then_lines)?;
        while matches!(self.cur.tok, Tok::Elseif) {
            d = d.max(self.test_then_block(&mut conds, &mut then_lines)?);
        }
        let mut else_block = None;
        if self.testnext(&Tok::Else)? {
            let (b, db) = self.block()?;
            else_block = Some(b);
            d = d.max(db);
        }
        self.check_match(&Tok::End, &Tok::If, line)?;
        Ok((Some(StatKind::If { conds, else_block, then_lines }), d))
    }

    /// `test_then_block` (including its shortcut for `then break`): appends
    /// the arm and the line of its `then`.
    fn test_then_block(
        &mut self,
        conds: &mut Vec<(Expr, Block)>,
        then_lines: &mut Vec<Line>,
    ) -> Res<u32> {
        self.next()?;
        let (cond, d) = self.expr()?;
        then_lines.push(self.line());
        self.checknext(&Tok::Then)?;
        let saved = self.nactvar;
        let mut stats = Vec::new();
        if matches!(self.cur.tok, Tok::Break) {
            stats.push(Stat { kind: StatKind::Break, line: self.line() });
            self.next()?;
            while self.testnext(&Tok::Semi)? {}
            if self.block_follow(false) {
                conds.push((cond, Block { stats, ret: None }));
                return Ok(d);
            }
        }
        let (ret, db) = self.statlist(&mut stats)?;
        self.nactvar = saved;
        conds.push((cond, Block { stats, ret }));
        Ok(d.max(db))
    }

    /// `whilestat`.
    fn whilestat(&mut self, line: Line) -> Res<(Option<StatKind>, u32)> {
        self.next()?;
        let (cond, d) = self.expr()?;
        self.checknext(&Tok::Do)?;
        let (body, db) = self.block()?;
        self.check_match(&Tok::End, &Tok::While, line)?;
        Ok((Some(StatKind::While { cond: Box::new(cond), body }), d.max(db)))
    }

    /// `repeatstat` (the condition is in the body's scope).
    fn repeatstat(&mut self, line: Line) -> Res<(Option<StatKind>, u32)> {
        let saved = self.nactvar;
        self.next()?;
        let (body, d) = self.stat_block()?;
        self.check_match(&Tok::Until, &Tok::Repeat, line)?;
        let (cond, dc) = self.expr()?;
        self.nactvar = saved;
        Ok((Some(StatKind::Repeat { body, cond: Box::new(cond) }), d.max(dc)))
    }

    /// `forstat`.
    fn forstat(&mut self, line: Line) -> Res<(Option<StatKind>, u32)> {
        let saved = self.nactvar;
        self.next()?;
        let var = self.checkname()?;
        let (kind, d) = match self.cur.tok {
            Tok::Assign => self.fornum(var)?,
            Tok::Comma | Tok::In => self.forlist(var)?,
            _ => return Err(self.syntax_error("'=' or 'in' expected")),
        };
        let end_line = self.line();
        self.check_match(&Tok::End, &Tok::For, line)?;
        self.nactvar = saved;
        let kind = match kind {
            StatKind::GenericFor { names, exprs, body, .. } => {
                StatKind::GenericFor { names, exprs, body, end_line }
            }
            kind => kind,
        };
        Ok((Some(kind), d))
    }

    /// `fornum`.
    fn fornum(&mut self, var: Name) -> Res<(StatKind, u32)> {
        for _ in 0..4 {
            self.new_localvar()?;
        }
        self.checknext(&Tok::Assign)?;
        let (start, mut d) = self.expr()?;
        self.checknext(&Tok::Comma)?;
        let (limit, dl) = self.expr()?;
        d = d.max(dl);
        let mut step = None;
        if self.testnext(&Tok::Comma)? {
            let (s, ds) = self.expr()?;
            step = Some(Box::new(s));
            d = d.max(ds);
        }
        let (body, db) = self.forbody()?;
        let (start, limit) = (Box::new(start), Box::new(limit));
        Ok((StatKind::NumericFor { var, start, limit, step, body }, d.max(db)))
    }

    /// `forlist` (its `end_line` is set by `forstat`).
    fn forlist(&mut self, first: Name) -> Res<(StatKind, u32)> {
        for _ in 0..5 {
            self.new_localvar()?;
        }
        let mut names = vec![first];
        while self.testnext(&Tok::Comma)? {
            names.push(self.checkname()?);
            self.new_localvar()?;
        }
        self.checknext(&Tok::In)?;
        let mut exprs = Vec::new();
        let d = self.explist(&mut exprs)?;
        let (body, db) = self.forbody()?;
        Ok((StatKind::GenericFor { names, exprs, body, end_line: 0 }, d.max(db)))
    }

    /// `forbody`.
    fn forbody(&mut self) -> Res<(Block, u32)> {
        self.checknext(&Tok::Do)?;
        self.block()
    }

    /// `funcstat`: the body's `linedefined` (`line`) and tree line
    /// (`tline`) are those of the `function` keyword.
    fn funcstat(&mut self, line: Line, tline: Line) -> Res<(Option<StatKind>, u32)> {
        self.next()?;
        let mut path = vec![self.checkname()?];
        while matches!(self.cur.tok, Tok::Dot) {
            self.next()?;
            path.push(self.checkname()?);
        }
        let mut method = None;
        if matches!(self.cur.tok, Tok::Colon) {
            self.next()?;
            method = Some(self.checkname()?);
        }
        let (mut func, d) = self.body(method.is_some(), line)?;
        func.line = tline;
        Ok((Some(StatKind::Function { path, method, func }), d))
    }

    /// `localfunc`.
    fn localfunc(&mut self) -> Res<(Option<StatKind>, u32)> {
        let name = self.checkname()?;
        self.new_localvar()?;
        let line = self.linenumber;
        let (func, d) = self.body(false, line)?;
        Ok((Some(StatKind::LocalFunction { name, func }), d))
    }

    /// `localstat` with `getlocalattribute`.
    fn localstat(&mut self) -> Res<(Option<StatKind>, u32)> {
        let mut has_close = false;
        let mut names = Vec::with_capacity(1);
        loop {
            let name = self.checkname()?;
            self.new_localvar()?;
            let mut attrib = Attrib::None;
            if self.testnext(&Tok::Lt)? {
                let attr = match &self.cur.tok {
                    Tok::Name(a) => a.clone(),
                    _ => Name::default(),
                };
                self.checkname()?;
                self.checknext(&Tok::Gt)?;
                match &*attr {
                    b"const" => attrib = Attrib::Const,
                    b"close" => {
                        if has_close {
                            let msg = "multiple to-be-closed variables in local list";
                            return Err(self.sem_error(msg));
                        }
                        has_close = true;
                        attrib = Attrib::Close;
                    }
                    _ => {
                        let name = String::from_utf8_lossy(&attr);
                        return Err(self.sem_error(format!("unknown attribute '{name}'")));
                    }
                }
            }
            names.push((name, attrib));
            if !self.testnext(&Tok::Comma)? {
                break;
            }
        }
        let mut exprs = Vec::new();
        let mut d = 0;
        if self.testnext(&Tok::Assign)? {
            d = self.explist(&mut exprs)?;
        }
        Ok((Some(StatKind::Local { names, exprs }), d))
    }

    /// `labelstat` (`::` and the name are already read): appends the label,
    /// then the statements `lparser.c` reads with it (`;` and labels).
    fn labelstat(&mut self, name: Name, line: Line, stats: &mut Vec<Stat>) -> Res<u32> {
        self.checknext(&Tok::DbColon)?;
        stats.push(Stat { kind: StatKind::Label(name), line });
        let mut d = 0;
        while matches!(self.cur.tok, Tok::Semi | Tok::DbColon) {
            d = d.max(self.statement(stats)?);
        }
        Ok(d)
    }

    /// `exprstat`: a call or an assignment.
    fn exprstat(&mut self) -> Res<(Option<StatKind>, u32)> {
        let (e, d) = self.suffixedexp()?;
        if matches!(self.cur.tok, Tok::Assign | Tok::Comma) {
            return self.restassign(e, d);
        }
        if kind(&e) != Kind::Call {
            return Err(self.syntax_error("syntax error"));
        }
        Ok((Some(StatKind::Call(e)), d))
    }

    /// `restassign`, with its recursion (one C level per extra target)
    /// turned into a loop.
    fn restassign(&mut self, first: Expr, first_depth: u32) -> Res<(Option<StatKind>, u32)> {
        let mut d = first_depth;
        let mut last = kind(&first);
        let mut targets = vec![first];
        let mut entered = 0;
        loop {
            if last != Kind::Var {
                return Err(self.syntax_error("syntax error"));
            }
            if !self.testnext(&Tok::Comma)? {
                break;
            }
            let (t, dt) = self.suffixedexp()?;
            d = d.max(dt);
            last = kind(&t);
            targets.push(t);
            self.enter()?;
            entered += 1;
        }
        self.checknext(&Tok::Assign)?;
        let mut exprs = Vec::new();
        d = d.max(self.explist(&mut exprs)?);
        self.leave_n(entered);
        Ok((Some(StatKind::Assign { targets, exprs }), d))
    }
}
