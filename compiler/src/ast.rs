//! The abstract syntax tree produced by the parser and consumed by codegen.
//!
//! The tree is a faithful picture of Lua 5.4 source: nothing is desugared
//! except what the grammar itself makes irrelevant (parentheses around an
//! expression survive as [`ExprKind::Paren`], because they truncate multiple
//! results to one). Every node that can raise a runtime error or whose
//! position appears in debug information carries the source line it starts
//! on; codegen uses these lines for the line table, so error messages and
//! tracebacks point at the same lines as the reference implementation.
//!
//! Names and string literals are byte strings: Lua source is not required to
//! be UTF-8, and string escapes can produce any byte.
//!
//! One node is not a plain tree: the fields of a table constructor are kept
//! packed ([`Fields`], `ast/fields.rs`; a small one only once it grows),
//! because data files are made of huge constructors and a tree node per
//! field would take many times the size of the source.
//!
//! Sizes matter for loading big sources: every node is built, moved into
//! its parent and dropped once per construct of the source. So the big
//! parts of rare nodes are boxed (a block's `return`, the conditions and
//! bounds of loops, function bodies, a method call's name and arguments,
//! the rare expressions of a table constructor): an [`Expr`] is 48 bytes.

mod fields;
mod name;

pub use fields::Fields;
pub use name::Name;

/// A source line number (1-based).
pub type Line = u32;

/// A whole chunk: the body of the implicit main function (which is vararg).
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The statements of the chunk.
    pub block: Block,
    /// The line of the end of file (used for the final `RETURN`).
    pub end_line: Line,
}

/// A sequence of statements, optionally ending in a `return`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// The statements, in order.
    pub stats: Vec<Stat>,
    /// The trailing `return`, if any.
    pub ret: Option<Box<Return>>,
}

/// A `return explist` statement (always last in its block).
#[derive(Clone, Debug, PartialEq)]
pub struct Return {
    /// The returned expressions.
    pub exprs: Vec<Expr>,
    /// Line of the `return` keyword.
    pub line: Line,
}

/// A statement together with the line it starts on. The big parts of the
/// rarer statements are boxed, so that a statement (moved into its block,
/// or handed to codegen) stays small.
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    /// What the statement is.
    pub kind: StatKind,
    /// The line of its first token.
    pub line: Line,
}

/// Attribute of a local variable declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attrib {
    /// No attribute.
    None,
    /// `<const>`.
    Const,
    /// `<close>`.
    Close,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StatKind {
    /// `varlist = explist`. Targets are `Name`, `Index` expressions only.
    Assign {
        /// The assigned places.
        targets: Vec<Expr>,
        /// The values.
        exprs: Vec<Expr>,
    },
    /// A function call used as a statement (`Call` or `MethodCall` expression).
    Call(Expr),
    /// `local attnamelist [= explist]`.
    Local {
        /// The declared names with their attributes.
        names: Vec<(Name, Attrib)>,
        /// The initial values.
        exprs: Vec<Expr>,
    },
    /// `do block end`.
    Do(Block),
    /// `while exp do block end`.
    While {
        /// The loop condition.
        cond: Box<Expr>,
        /// The loop body.
        body: Block,
    },
    /// `repeat block until exp` (the condition sees the block's locals).
    Repeat {
        /// The loop body.
        body: Block,
        /// The exit condition.
        cond: Box<Expr>,
    },
    /// `if exp then block {elseif exp then block} [else block] end`.
    If {
        /// The `if` and `elseif` arms.
        conds: Vec<(Expr, Block)>,
        /// The `else` block.
        else_block: Option<Block>,
        /// Line of the `then` of each arm (the arm's test and jump carry it,
        /// as PUC's do: it is the last token read when they are emitted).
        then_lines: Vec<Line>,
    },
    /// `for Name = exp, exp [, exp] do block end`.
    NumericFor {
        /// The control variable.
        var: Name,
        /// Initial value.
        start: Box<Expr>,
        /// Limit.
        limit: Box<Expr>,
        /// Step (default 1).
        step: Option<Box<Expr>>,
        /// The loop body.
        body: Block,
    },
    /// `for namelist in explist do block end`.
    GenericFor {
        /// The loop variables.
        names: Vec<Name>,
        /// The iterator expressions.
        exprs: Vec<Expr>,
        /// The loop body.
        body: Block,
        /// Line of the closing `end` (the loop scope's `CLOSE` carries it).
        end_line: Line,
    },
    /// `function funcname funcbody`. `path` is `a.b.c`, `method` is the `:m` part.
    Function {
        /// `a.b.c`: the first name is a variable, the rest are fields.
        path: Vec<Name>,
        /// The `:m` method name.
        method: Option<Name>,
        /// The function.
        func: Box<FuncBody>,
    },
    /// `local function Name funcbody`.
    LocalFunction {
        /// The local's name.
        name: Name,
        /// The function.
        func: Box<FuncBody>,
    },
    /// `::Name::`.
    Label(Name),
    /// `goto Name`.
    Goto(Name),
    /// `break`.
    Break,
}

/// A function body: parameters and block.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncBody {
    /// Named parameters (for a method, `self` is NOT included; codegen adds it).
    pub params: Vec<Name>,
    /// True if the parameter list ends in `...`.
    pub is_vararg: bool,
    /// The body.
    pub block: Block,
    /// Line of the `function` keyword.
    pub line: Line,
    /// Line of the closing `end`.
    pub end_line: Line,
}

/// An expression together with the line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// The line used for the instruction that evaluates it (for a binary
    /// operator, the line of the operator; for a call, the line where the
    /// whole call expression starts, as PUC's `luaK_fixline`).
    pub line: Line,
}

/// Binary operators, in no particular order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    IDiv,
    /// `%`
    Mod,
    /// `^`
    Pow,
    /// `..`
    Concat,
    /// `==`
    Eq,
    /// `~=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and`
    And,
    /// `or`
    Or,
    /// `&`
    BAnd,
    /// `|`
    BOr,
    /// `~` (binary)
    BXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `not`
    Not,
    /// `#`
    Len,
    /// `~` (unary)
    BNot,
}

/// One field of a table constructor.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// `exp` (positional).
    Positional(Expr),
    /// `name = exp`.
    Named(Name, Expr),
    /// `[exp] = exp`.
    Keyed(Expr, Expr),
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `nil`
    Nil,
    /// `true`
    True,
    /// `false`
    False,
    /// `...`
    VarArg,
    /// An integer numeral (already range-checked by the lexer: a decimal
    /// integer numeral that overflows is a float, hex wraps around).
    Int(i64),
    /// A float numeral.
    Float(f64),
    /// A string literal, escapes already processed.
    Str(Name),
    /// A variable reference (local, upvalue or global is resolved by codegen).
    Name(Name),
    /// `prefix[key]`; `a.b` is `Index((a, Str("b")))`. (The two operands
    /// share one box: one allocation per node, not two.)
    Index(Box<(Expr, Expr)>),
    /// `f(args)`; `f"str"` and `f{...}` too.
    Call(Box<Expr>, Vec<Expr>),
    /// `obj:name(args)`.
    MethodCall(Box<Expr>, Box<(Name, Vec<Expr>)>),
    /// `function funcbody`.
    Function(Box<FuncBody>),
    /// `( exp )`: truncates to one value.
    Paren(Box<Expr>),
    /// `{ fields }` (packed: see [`Fields`]).
    Table(Fields),
    /// `a op b` (the operands in one box, as `Index`'s).
    Bin(BinOp, Box<(Expr, Expr)>),
    /// `op a`.
    Un(UnOp, Box<Expr>),
}

impl Expr {
    /// Builds an expression node.
    pub fn new(kind: ExprKind, line: Line) -> Expr {
        Expr { kind, line }
    }

    /// True for expressions that can produce multiple values (calls, `...`).
    pub fn is_multi(&self) -> bool {
        matches!(self.kind, ExprKind::Call(..) | ExprKind::MethodCall(..) | ExprKind::VarArg)
    }
}
