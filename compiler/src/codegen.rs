//! Code generation: from the AST to register bytecode ([`Proto`]).
//!
//! This is a port of the code generator of PUC Lua 5.4 (`lcode.c` and the
//! code-emitting half of `lparser.c`), driven by the AST instead of by the
//! parser. The aim is *the same code*: for any program, the instructions,
//! constants, upvalues and debug information match what `luac -l -l` shows,
//! except that Luprex has no `MMBIN*` instructions (arithmetic instructions
//! handle their metamethods themselves, see `ops`). Mirroring the
//! reference keeps the VM honest (its tests can be compared instruction by
//! instruction) and inherits two decades of tuning.
//!
//! # Structure
//!
//! * `state`: the compiler state (function stack, active locals, labels,
//!   constant cache), instruction emission, registers, constants, jump
//!   lists, the final peephole pass;
//! * `exp`: expression descriptors and how they are discharged into
//!   registers, constants or jumps;
//! * `ops`: unary and binary operators, with constant folding (`fold`);
//! * `scope`: locals, upvalues, blocks, labels and gotos;
//! * `expr` and `stat`: the walk over expressions and statements.
//!
//! # Invariants
//!
//! * Registers are a stack: `freereg` is the first free register; locals
//!   occupy the lowest registers in declaration order and temporaries are
//!   released in LIFO order. A function never uses 255 registers or more.
//! * `loc_vars` gets one entry per local, pushed when the local becomes
//!   active, so the n-th active local at a pc lives in register n (locals
//!   that are compile-time constants have neither a register nor an entry).
//! * A conditional test is always immediately followed by a `JMP`.
//! * Every limit of the reference (200 locals, 255 registers, 255
//!   upvalues, jump and constant ranges) is checked and reported as a
//!   [`SyntaxError`] with the reference's message; no input makes code
//!   generation panic. Recursion follows the AST's nesting, which the
//!   parser bounds; long flat chains (`a+b+c+...`, `a.b.c.d...`) are
//!   iterated, not recursed.
//!
//! # Conventions for the VM beyond `opcodes.rs`
//!
//! * `RETURN A B C k` and `TAILCALL A B C k`: k set means the function has
//!   upvalues or to-be-closed variables to close before returning; C
//!   nonzero means the function is vararg and C-1 is its number of fixed
//!   parameters (the VM undoes `VARARGPREP`'s frame shift). A vararg or
//!   closing function's `RETURN0`/`RETURN1` are emitted as `RETURN`.
//! * `VARARGPREP A`: A is the number of fixed parameters; it is the first
//!   instruction of every vararg function.
//! * `NEWTABLE` is always followed by `EXTRAARG` (array size high bits).
//! * The k bit of `ADDI`, `SHRI` and the `*K` arithmetic instructions
//!   records the source operator and operand order (see `ops`).

mod exp;
mod expr;
mod fold;
mod ops;
mod scope;
mod stat;
mod state;

use crate::proto::UpvalDesc;
use crate::{ast, Proto, SyntaxError};

use state::Compiler;

/// Generates the main function of a chunk.
///
/// `chunkname` becomes the `source` of every prototype and prefixes error
/// messages (formatted by [`crate::chunkid`]).
pub fn generate(chunk: &ast::Chunk, chunkname: &[u8]) -> Result<Proto, SyntaxError> {
    let mut c = main_compiler(chunkname);
    let block = &chunk.block;
    c.stat_list(&block.stats, block.ret.as_deref(), false, chunk.end_line)?;
    finish_main(c, chunk.end_line)
}

/// Generates the main function of a chunk from its statements given one at
/// a time, as the parser produces them ([`crate::parser::parse_each`]):
/// the same code as [`generate`] on the whole tree, without holding it.
///
/// Each statement is compiled as soon as it arrives, except labels: a run
/// of labels waits for the statement after it (or the end of the chunk),
/// as `stat_list` needs to know what follows a label. After the first
/// error the statements are dropped; [`MainGen::finish`] reports it.
pub struct MainGen<'s> {
    c: Compiler<'s>,
    /// A run of labels not yet compiled, then at most one other statement.
    pending: Vec<ast::Stat>,
    failed: Option<SyntaxError>,
}

impl<'s> MainGen<'s> {
    /// A generator for the main function of `chunkname`.
    pub fn new(chunkname: &'s [u8]) -> MainGen<'s> {
        MainGen { c: main_compiler(chunkname), pending: Vec::new(), failed: None }
    }

    /// Compiles the next statement of the main chunk.
    pub fn stat(&mut self, s: ast::Stat) {
        if self.failed.is_some() {
            return;
        }
        let label = matches!(s.kind, ast::StatKind::Label(_));
        self.pending.push(s);
        if !label {
            // not a label: the run before it (if any) is complete and not
            // at the end of the block, so `end_line` is not used
            let done = self.c.stat_list(&self.pending, None, false, 0);
            self.pending.clear();
            if let Err(e) = done {
                self.failed = Some(e);
            }
        }
    }

    /// Compiles the main chunk's final `return` (if any) and closes the
    /// main function; `end_line` as `Chunk::end_line`.
    pub fn finish(
        mut self,
        ret: Option<&ast::Return>,
        end_line: u32,
    ) -> Result<Proto, SyntaxError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.c.stat_list(&self.pending, ret, false, end_line)?;
        finish_main(self.c, end_line)
    }
}

/// The compiler state at the start of a main function.
fn main_compiler(chunkname: &[u8]) -> Compiler<'_> {
    let mut c = Compiler::new(chunkname);
    c.enter_block(false);
    c.set_vararg(0);
    c.fs.f.upvalues.push(UpvalDesc { name: b"_ENV".to_vec(), in_stack: true, index: 0, kind: 0 });
    c
}

/// Closes a main function whose statements are compiled.
fn finish_main(mut c: Compiler<'_>, end_line: u32) -> Result<Proto, SyntaxError> {
    // The parser gives the line of the last token: where PUC's final RETURN goes.
    c.line = end_line.max(1);
    c.close_func(end_line)
}
