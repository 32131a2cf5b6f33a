//! The test oracle: the LR grammar of `grammar.lalrpop`, never used to load.
//!
//! # Why it exists
//!
//! The parser (`check.rs`, `stat.rs`, `expr.rs`) is a hand port of
//! `lparser.c`. A second, independent description of the same language, an
//! LR(1) grammar that lalrpop turns into a table-driven parser, builds the
//! same tree by entirely different means (precedence climbing over a flat
//! operator list, reductions instead of calls, locations from its own
//! token positions). [`parser_and_grammar_agree`] runs both and requires
//! the same [`ast::Chunk`] (every node, every line), or both to reject the
//! chunk: the fuzz target `parse_agree` and the tests run it over random
//! and real sources. It is compiled into the library only so that the fuzz
//! target can call it; `compile`, `parse` and `parse_each` never do.
//!
//! The grammar expresses no limit and no semantic check (attributes, `...`
//! outside a vararg function, local and level limits), so a chunk the
//! parser rejects for one of those reasons, or with a lexical error,
//! counts as agreeing. The grammar's own error reports are not compared:
//! only the parser's reach users.

use super::check::Failure;
use crate::ast;
use crate::lexer::{self, Tok};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused, missing_docs, rust_2018_idioms)]
    grammar,
    "/grammar.rs"
);

/// The tree the LR grammar builds for `source`, or `None` if it rejects it
/// (or the source has a lexical error).
pub fn parse_with_grammar(source: &[u8]) -> Option<ast::Chunk> {
    let lexed = lexer::tokenize(source);
    if lexed.error.is_some() {
        return None;
    }
    let mut end_line = 1;
    let tokens = lexed.tokens.into_iter().filter(|t| t.tok != Tok::Eof).map(|t| {
        end_line = t.line;
        Ok((t.line, t.tok, t.line))
    });
    let stats = std::cell::RefCell::new(Vec::new());
    let top = std::cell::RefCell::new(|s| stats.borrow_mut().push(s));
    let ret = grammar::ChunkParser::new().parse(&top, tokens).ok()?;
    let stats = stats.take();
    Some(ast::Chunk { block: ast::Block { stats, ret: ret.map(Box::new) }, end_line })
}

/// Whether the parser and the LR grammar agree on `source`: both build the
/// same tree, or both reject it (see the module doc for what counts as
/// agreeing).
pub fn parser_and_grammar_agree(source: &[u8]) -> bool {
    if lexer::tokenize(source).error.is_some() {
        return true;
    }
    let parsed = super::parse_chunk(source);
    if let Err(failure) = &parsed {
        match &**failure {
            Failure::CStack => return true,
            Failure::Syntax { msg, .. } => {
                let semantic =
                    ["too many ", "unknown attribute", "multiple to-be-closed", "cannot use"];
                if semantic.iter().any(|s| msg.starts_with(s)) {
                    return true;
                }
            }
        }
    }
    match (parsed, parse_with_grammar(source)) {
        (Ok(tree), Some(other)) => tree == other,
        (Err(_), None) => true,
        _ => false,
    }
}

/// Small constructors used by the grammar's actions.
mod build {
    use crate::ast::{
        Attrib, BinOp, Block, Expr, ExprKind, Field, Fields, FuncBody, Line, Name, Stat, StatKind,
        UnOp,
    };

    /// Where the main chunk's statements go (see [`super::parse_each`]).
    pub type Top<'s> = std::cell::RefCell<dyn FnMut(Stat) + 's>;

    /// Hands a statement of the main chunk to its receiver.
    pub fn top(top: &Top<'_>, s: Stat) {
        (top.borrow_mut())(s)
    }

    /// Appends to a vector (for left-recursive list rules).
    pub fn push<T>(mut list: Vec<T>, item: T) -> Vec<T> {
        list.push(item);
        list
    }

    /// Appends a table constructor's field.
    pub fn push_field(mut list: Fields, field: Field) -> Fields {
        list.push(field);
        list
    }

    /// A statement (boxed while it is on the parser's stack).
    pub fn stat(kind: StatKind, line: Line) -> Box<Stat> {
        Box::new(Stat { kind, line })
    }

    /// A binary operation.
    pub fn bin(op: BinOp, a: Expr, b: Expr, line: Line) -> Expr {
        Expr::new(ExprKind::Bin(op, Box::new((a, b))), line)
    }

    /// An element of an expression read flat (see `Exp` in the grammar).
    pub enum Item {
        /// A unary operator and its line.
        Un(UnOp, Line),
        /// An operand.
        Atom(Expr),
        /// A binary operator and its line.
        Bin(BinOp, Line),
    }

    /// Appends an operand and the binary operator after it.
    pub fn atom_op(mut list: Vec<Item>, e: Expr, op: BinOp, line: Line) -> Vec<Item> {
        // room for the usual short expression (`#t + 1`) in one allocation
        list.reserve(if list.is_empty() { 8 } else { 2 });
        list.push(Item::Atom(e));
        list.push(Item::Bin(op, line));
        list
    }

    /// `UNARY_PRIORITY` of `lparser.c`.
    const UNARY_PRIORITY: u8 = 12;

    /// Left and right priorities of a binary operator (`priority` in
    /// `lparser.c`).
    fn priority(op: BinOp) -> (u8, u8) {
        use BinOp::*;
        match op {
            Add | Sub => (10, 10),
            Mul | Mod | Div | IDiv => (11, 11),
            Pow => (14, 13),
            BAnd => (6, 6),
            BOr => (4, 4),
            BXor => (5, 5),
            Shl | Shr => (7, 7),
            Concat => (9, 8),
            Eq | Lt | Le | Ne | Gt | Ge => (3, 3),
            And => (2, 2),
            Or => (1, 1),
        }
    }

    /// Builds the tree of an expression read flat: `seq` (ending with an
    /// operator) then the last operand `last`. The same algorithm as
    /// `subexpr` in `lparser.c`; it recurses where that does (a unary
    /// operator, the right operand of a binary operator), so no deeper than
    /// the checker's bound on `subexpr`'s C levels, and loops over a chain
    /// of operators of the same left-associative priority.
    pub fn climb(mut seq: Vec<Item>, last: Expr) -> Expr {
        seq.push(Item::Atom(last));
        let mut items = seq.into_iter().peekable();
        subexpr(&mut items, 0)
    }

    /// `subexpr`: an operand with its unary operators, then the binary
    /// operators whose left priority is above `limit`.
    fn subexpr(items: &mut std::iter::Peekable<std::vec::IntoIter<Item>>, limit: u8) -> Expr {
        let mut e = match items.next() {
            Some(Item::Un(op, line)) => {
                let operand = subexpr(items, UNARY_PRIORITY);
                Expr::new(ExprKind::Un(op, Box::new(operand)), line)
            }
            Some(Item::Atom(e)) => e,
            // cannot happen: the grammar alternates operands and operators
            Some(Item::Bin(..)) | None => Expr::new(ExprKind::Nil, 0),
        };
        while let Some(&Item::Bin(op, line)) = items.peek() {
            let (left, right) = priority(op);
            if left <= limit {
                break;
            }
            items.next();
            let rhs = subexpr(items, right);
            e = bin(op, e, rhs, line);
        }
        e
    }

    /// An index expression.
    pub fn index(prefix: Expr, key: Expr, line: Line) -> Expr {
        Expr::new(ExprKind::Index(Box::new((prefix, key))), line)
    }

    /// The attribute named in `<name>` (the checker only lets `const` and
    /// `close` through).
    pub fn attrib(name: Option<Name>) -> Attrib {
        match name.as_deref() {
            Some(b"const") => Attrib::Const,
            Some(b"close") => Attrib::Close,
            _ => Attrib::None,
        }
    }

    /// The parts of a `funcname`: the dotted path and the method name.
    pub fn func_name(
        first: Name,
        rest: Vec<Name>,
        method: Option<Name>,
    ) -> (Vec<Name>, Option<Name>) {
        let mut path = Vec::with_capacity(rest.len() + 1);
        path.push(first);
        path.extend(rest);
        (path, method)
    }

    /// A `function funcname body` statement: its body's `linedefined` is
    /// the line of the `function` keyword.
    pub fn function_stat(
        (path, method): (Vec<Name>, Option<Name>),
        mut func: Box<FuncBody>,
        line: Line,
    ) -> Box<Stat> {
        func.line = line;
        stat(StatKind::Function { path, method, func }, line)
    }

    /// A numeric `for` statement.
    pub fn numeric_for(
        var: Name,
        start: Expr,
        limit: Expr,
        step: Option<Expr>,
        body: Block,
        line: Line,
    ) -> Box<Stat> {
        let (start, limit, step) = (Box::new(start), Box::new(limit), step.map(Box::new));
        stat(StatKind::NumericFor { var, start, limit, step, body }, line)
    }

    /// An `if` statement.
    pub fn if_stat(
        first: (Expr, Line, Block),
        elseifs: Vec<(Expr, Line, Block)>,
        else_block: Option<Block>,
        line: Line,
    ) -> Box<Stat> {
        let mut conds = Vec::with_capacity(elseifs.len() + 1);
        let mut then_lines = Vec::with_capacity(elseifs.len() + 1);
        for (c, tl, b) in std::iter::once(first).chain(elseifs) {
            conds.push((c, b));
            then_lines.push(tl);
        }
        stat(StatKind::If { conds, else_block, then_lines }, line)
    }
}
