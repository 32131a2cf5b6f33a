//! Expressions and table constructors: `lparser.c`'s `expr`, `subexpr`,
//! `simpleexp`, `suffixedexp`, `funcargs` and `constructor`, building
//! [`ast::Expr`]s.
//!
//! As in `stat.rs`, each function reads the tokens its namesake reads and
//! returns its node with the node's depth. Operator precedence is
//! `subexpr`'s: it recurses for a unary operator's operand and a binary
//! operator's right operand (each call entering a C level, so the
//! recursion is bounded) and loops over a chain of operators of the same
//! left-associative priority, building the chain's left-nested nodes as it
//! goes. The suffixes of a suffixed expression (`.name`, `[k]`, calls) are a
//! loop too. `..` and `^` are right-associative and `^` binds tighter than
//! a unary operator on its left (`2^-3` parses, `-x^2` is `-(x^2)`).
//!
//! A table constructor's fields are packed as they are read (see
//! `ast/fields.rs`), so a big constructor's tree never exists; only a
//! constructor met outside any other (`Parser::in_fields` is false), such
//! as a statement's `{id=1, v=2}`, keeps its first few fields unpacked.
//!
//! Costs: every node is returned by value through each level above it, so
//! the rare steps (a unary operator, a binary one) are functions of their
//! own rather than arms of `subexpr`, whose frame, small, is what the
//! common operand (a literal, a name, a constructor) goes through.
//!
//! Lines (see `parser.rs`): an operator's own token; a call's or method
//! call's, the first token of its whole suffixed expression; an index's,
//! its last token (the name, or `]`); other nodes, their first token.

use super::check::{Parser, Res};
use crate::ast::{BinOp, Expr, ExprKind, Field, Fields, UnOp};
use crate::lexer::Tok;
use crate::number::Number;

/// `UNARY_PRIORITY`.
const UNARY_PRIORITY: u8 = 12;

/// A binary operator with its left and right priorities.
type Prio = (BinOp, u8, u8);

impl Parser<'_> {
    /// `explist`: appends the expressions to `exprs`; returns their depth.
    pub(super) fn explist(&mut self, exprs: &mut Vec<Expr>) -> Res<u32> {
        let (e, mut d) = self.expr()?;
        exprs.push(e);
        while self.testnext(&Tok::Comma)? {
            let (e, de) = self.expr()?;
            exprs.push(e);
            d = d.max(de);
        }
        Ok(d)
    }

    /// `expr`.
    pub(super) fn expr(&mut self) -> Res<(Expr, u32)> {
        self.subexpr(0)
    }

    /// `subexpr`: an operand with its unary operators, then the binary
    /// operators whose left priority is above `limit`, as a tree with its
    /// depth. (`lparser.c` also returns the first operator not taken: it is
    /// the current token, read again by the caller.)
    fn subexpr(&mut self, limit: u8) -> Res<(Expr, u32)> {
        self.enter()?;
        let mut r = match unop(&self.cur.tok) {
            Some(op) => self.unary(op)?,
            None => self.simpleexp()?,
        };
        while let Some((bin, _, right)) = binop(&self.cur.tok).filter(|&(_, left, _)| left > limit)
        {
            r = self.binary(r, bin, right)?;
        }
        self.leave();
        Ok(r)
    }

    /// A unary operator (the current token) and its operand.
    fn unary(&mut self, op: UnOp) -> Res<(Expr, u32)> {
        let line = self.line();
        self.next()?;
        let (operand, d) = self.subexpr(UNARY_PRIORITY)?;
        let d = self.node(d)?;
        Ok((Expr::new(ExprKind::Un(op, Box::new(operand)), line), d))
    }

    /// A binary operator (the current token) and its right operand,
    /// applied to `left`.
    fn binary(&mut self, left: (Expr, u32), op: BinOp, right: u8) -> Res<(Expr, u32)> {
        let line = self.line();
        self.next()?;
        let (rhs, d2) = self.subexpr(right)?;
        let d = self.node(left.1.max(d2))?;
        Ok((Expr::new(ExprKind::Bin(op, Box::new((left.0, rhs))), line), d))
    }

    /// `simpleexp`.
    fn simpleexp(&mut self) -> Res<(Expr, u32)> {
        let line = self.line();
        let kind = match self.cur.tok {
            Tok::Num(_) => match self.take_number()? {
                Number::Int(i) => ExprKind::Int(i),
                Number::Float(f) => ExprKind::Float(f),
            },
            Tok::Str(_) => ExprKind::Str(self.take_string()?),
            Tok::Nil => {
                self.next()?;
                ExprKind::Nil
            }
            Tok::True => {
                self.next()?;
                ExprKind::True
            }
            Tok::False => {
                self.next()?;
                ExprKind::False
            }
            Tok::Dots => {
                if !self.vararg {
                    return Err(self.syntax_error("cannot use '...' outside a vararg function"));
                }
                self.next()?;
                ExprKind::VarArg
            }
            Tok::LBrace => return self.constructor(),
            Tok::Function => {
                self.next()?;
                let (body, d) = self.body(false, self.linenumber)?;
                let d = self.node(d)?;
                return Ok((Expr::new(ExprKind::Function(body), line), d));
            }
            _ => return self.suffixedexp(),
        };
        Ok((Expr::new(kind, line), 1))
    }

    /// `primaryexp`.
    fn primaryexp(&mut self) -> Res<(Expr, u32)> {
        let tline = self.line();
        match self.cur.tok {
            Tok::LParen => {
                let line = self.linenumber;
                self.next()?;
                let (e, d) = self.expr()?;
                self.check_match(&Tok::RParen, &Tok::LParen, line)?;
                let d = self.node(d)?;
                Ok((Expr::new(ExprKind::Paren(Box::new(e)), tline), d))
            }
            Tok::Name(_) => Ok((Expr::new(ExprKind::Name(self.checkname()?), tline), 1)),
            _ => Err(self.syntax_error("unexpected symbol")),
        }
    }

    /// `suffixedexp`: a primary expression and its suffixes, in a loop.
    pub(super) fn suffixedexp(&mut self) -> Res<(Expr, u32)> {
        // `line` as `lparser.c`'s (for messages), `tline` for the tree
        let line = self.linenumber;
        let tline = self.line();
        let (mut e, mut d) = self.primaryexp()?;
        loop {
            match self.cur.tok {
                Tok::Dot => {
                    self.next()?;
                    let kline = self.line();
                    let name = self.checkname()?;
                    d = self.node(d)?;
                    let key = Expr::new(ExprKind::Str(name), kline);
                    e = Expr::new(ExprKind::Index(Box::new((e, key))), kline);
                }
                Tok::LBracket => {
                    self.next()?;
                    let (key, dk) = self.expr()?;
                    let rline = self.line();
                    self.checknext(&Tok::RBracket)?;
                    d = self.node(d.max(dk))?;
                    e = Expr::new(ExprKind::Index(Box::new((e, key))), rline);
                }
                Tok::Colon => {
                    self.next()?;
                    let name = self.checkname()?;
                    let (args, da) = self.funcargs(line)?;
                    d = self.node(d.max(da))?;
                    let call = ExprKind::MethodCall(Box::new(e), Box::new((name, args)));
                    e = Expr::new(call, tline);
                }
                Tok::LParen | Tok::Str(_) | Tok::LBrace => {
                    let (args, da) = self.funcargs(line)?;
                    d = self.node(d.max(da))?;
                    e = Expr::new(ExprKind::Call(Box::new(e), args), tline);
                }
                _ => return Ok((e, d)),
            }
        }
    }

    /// `funcargs`: the arguments of a call whose suffixed expression starts
    /// at `line`.
    fn funcargs(&mut self, line: crate::ast::Line) -> Res<(Vec<Expr>, u32)> {
        match self.cur.tok {
            Tok::LParen => {
                self.next()?;
                let mut args = Vec::new();
                let mut d = 0;
                if !matches!(self.cur.tok, Tok::RParen) {
                    d = self.explist(&mut args)?;
                }
                self.check_match(&Tok::RParen, &Tok::LParen, line)?;
                Ok((args, d))
            }
            Tok::LBrace => {
                let (t, d) = self.constructor()?;
                Ok((vec![t], d))
            }
            Tok::Str(_) => {
                let sline = self.line();
                let s = self.take_string()?;
                Ok((vec![Expr::new(ExprKind::Str(s), sline)], 1))
            }
            _ => Err(self.syntax_error("function arguments expected")),
        }
    }

    /// `constructor`.
    fn constructor(&mut self) -> Res<(Expr, u32)> {
        let line = self.linenumber;
        let tline = self.line();
        self.checknext(&Tok::LBrace)?;
        // packed at once if nested in a constructor (see `ast/fields.rs`)
        let mut fields = if self.in_fields { Fields::new() } else { Fields::small() };
        let mut d = 0;
        loop {
            if matches!(self.cur.tok, Tok::RBrace) {
                break;
            }
            d = d.max(self.field(&mut fields)?);
            if !self.testnext(&Tok::Comma)? && !self.testnext(&Tok::Semi)? {
                break;
            }
        }
        self.check_match(&Tok::RBrace, &Tok::LBrace, line)?;
        let d = self.node(d)?;
        Ok((Expr::new(ExprKind::Table(fields), tline), d))
    }

    /// `field`: `name = exp`, `[exp] = exp` or `exp`, appended to `fields`.
    fn field(&mut self, fields: &mut Fields) -> Res<u32> {
        let outer = std::mem::replace(&mut self.in_fields, true);
        let d = self.field_in(fields);
        self.in_fields = outer;
        d
    }

    /// [`Parser::field`] with `in_fields` set.
    fn field_in(&mut self, fields: &mut Fields) -> Res<u32> {
        match self.cur.tok {
            Tok::Name(_) => {
                if matches!(self.peek()?, Tok::Assign) {
                    let name = self.checkname()?;
                    self.next()?; // '='
                    let (v, d) = self.expr()?;
                    fields.push(Field::Named(name, v));
                    Ok(d)
                } else {
                    let (v, d) = self.expr()?;
                    fields.push(Field::Positional(v));
                    Ok(d)
                }
            }
            Tok::LBracket => {
                self.next()?;
                let (k, dk) = self.expr()?;
                self.checknext(&Tok::RBracket)?;
                self.checknext(&Tok::Assign)?;
                let (v, dv) = self.expr()?;
                fields.push(Field::Keyed(k, v));
                Ok(dk.max(dv))
            }
            _ => {
                let (v, d) = self.expr()?;
                fields.push(Field::Positional(v));
                Ok(d)
            }
        }
    }
}

/// The unary operator a token is (`getunopr`).
fn unop(t: &Tok) -> Option<UnOp> {
    Some(match t {
        Tok::Not => UnOp::Not,
        Tok::Minus => UnOp::Neg,
        Tok::Tilde => UnOp::BNot,
        Tok::Hash => UnOp::Len,
        _ => return None,
    })
}

/// The binary operator a token is, with its left and right priorities
/// (`getbinopr` and `priority[]`).
fn binop(t: &Tok) -> Option<Prio> {
    use BinOp::*;
    Some(match t {
        Tok::Plus => (Add, 10, 10),
        Tok::Minus => (Sub, 10, 10),
        Tok::Star => (Mul, 11, 11),
        Tok::Percent => (Mod, 11, 11),
        Tok::Slash => (Div, 11, 11),
        Tok::IDiv => (IDiv, 11, 11),
        Tok::Caret => (Pow, 14, 13),
        Tok::Amp => (BAnd, 6, 6),
        Tok::Pipe => (BOr, 4, 4),
        Tok::Tilde => (BXor, 5, 5),
        Tok::Shl => (Shl, 7, 7),
        Tok::Shr => (Shr, 7, 7),
        Tok::Concat => (Concat, 9, 8),
        Tok::Eq => (Eq, 3, 3),
        Tok::Lt => (Lt, 3, 3),
        Tok::Le => (Le, 3, 3),
        Tok::Ne => (Ne, 3, 3),
        Tok::Gt => (Gt, 3, 3),
        Tok::Ge => (Ge, 3, 3),
        Tok::And => (And, 2, 2),
        Tok::Or => (Or, 1, 1),
        _ => return None,
    })
}
