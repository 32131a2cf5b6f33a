//! Bytecode verification: proves that a function's code is safe to run
//! before it runs (binary chunks from `load`, snapshots read from bytes).
//!
//! The interpreter trusts its code: it indexes registers, constants,
//! upvalues and nested prototypes without checks of its own, follows jumps
//! blindly and reads the word after `LOADKX`, `NEWTABLE` and `SETLIST` as
//! an `EXTRAARG`. Code from the compiler satisfies all of that by
//! construction; code from a binary chunk is hostile until proved
//! otherwise. `verify_function` proves it, per function, in three passes:
//!
//! 1. **Operands.** Every instruction is decoded (an opcode outside the
//!    table is an error) and its operands are checked as the dispatch loop
//!    uses them: registers (and register *ranges*: `CALL A..A+B-1`,
//!    `LOADNIL A..A+B`, `FORPREP A..A+3`, `TFORCALL A..A+6`, ...) below
//!    `max_stack`, constants below the table's length and of the kind the
//!    instruction assumes (field names are strings, arithmetic constants
//!    numbers, bitwise ones integers), upvalues below the function's count,
//!    `CLOSURE` operands below the number of nested prototypes, each nested
//!    upvalue descriptor valid against this function. Table size hints are
//!    bounded by what the code could fill (a hostile `NEWTABLE` must not
//!    allocate gigabytes): an array hint by 50 items per `SETLIST` of the
//!    function, a hash hint by the number of stores.
//! 2. **Control flow.** Every successor of every instruction is inside the
//!    code; the code ends in a return; a test is followed by a `JMP`;
//!    `EXTRAARG` appears exactly after the instructions that read one and is
//!    never a jump target.
//!    Instructions that read the "top" left by the previous instruction
//!    (`CALL`/`TAILCALL`/`RETURN`/`SETLIST` with B = 0) must follow, by
//!    fall-through only, one that sets it (`CALL` with C = 0, `VARARG` with
//!    C = 0, `TAILCALL`), at a register that keeps the count non-negative.
//! 3. **Open upvalues.** A forward data-flow pass computes, at each pc, the
//!    registers that may hold an open upvalue (captured by a `CLOSURE`,
//!    released by `CLOSE`) and those marked to be closed (`TBC`, the
//!    `TFORPREP` slot A+3, also released by `CLOSE`). The VM keeps its stack a `Vec` whose length
//!    follows the frames, so a call truncates the caller's registers above
//!    the callee: a register captured at or above a call's function slot
//!    would leave an open upvalue past the end of the stack. So every call
//!    (`CALL`, `TAILCALL`, `TFORCALL` at A+4) must have no captured (or
//!    to-be-closed) register at or above its function slot, and every
//!    return that does not close (`RETURN` without k, `RETURN0`, `RETURN1`,
//!    `TAILCALL` without k) must have none at all. A `TAILCALL` closes
//!    upvalues only, so none may be pending to be closed there (the
//!    compiler never makes a tail call in the scope of a `<close>`
//!    variable). Stale to-be-closed entries would not crash the VM, but
//!    would call `__close` on whatever a later frame keeps in the slot.
//!
//! `verify_proto` adds the checks of debug information (line info is
//! absent or one entry per instruction, local variables' pc ranges inside
//! the code, upvalue kinds) and recurses into nested prototypes, with a
//! depth bound.
//!
//! **Invariant:** both functions are total: any input gives `Ok` or `Err`,
//! never a panic, and run in time linear in the code size times the number
//! of registers.

use crate::opcodes::{Instruction, OpCode, FIELDS_PER_FLUSH};
use crate::proto::{Constant, Proto, UpvalDesc};

/// The kind of a constant, as the verifier sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstKind {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool,
    /// An integer.
    Int,
    /// A float.
    Float,
    /// A string.
    Str,
}

impl ConstKind {
    /// The kind of a compiler constant.
    pub fn of(c: &Constant) -> ConstKind {
        match c {
            Constant::Nil => ConstKind::Nil,
            Constant::Bool(_) => ConstKind::Bool,
            Constant::Int(_) => ConstKind::Int,
            Constant::Float(_) => ConstKind::Float,
            Constant::Str(_) => ConstKind::Str,
        }
    }
}

/// What the verifier needs to know about one function.
#[derive(Clone, Copy, Debug)]
pub struct FnView<'a> {
    /// The code.
    pub code: &'a [Instruction],
    /// Number of fixed parameters.
    pub num_params: u8,
    /// Whether the function is vararg.
    pub is_vararg: bool,
    /// Registers used.
    pub max_stack: u8,
    /// The kinds of the constants, in order.
    pub constants: &'a [ConstKind],
    /// Number of upvalues of the function itself.
    pub num_upvalues: usize,
    /// For each nested prototype (the operand of `CLOSURE`), its upvalue
    /// descriptors (checked against this function's registers/upvalues).
    pub nested_upvalues: &'a [&'a [UpvalDesc]],
}

/// Why code was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad bytecode: {0}")]
pub struct VerifyError(pub String);

/// Largest number of upvalues a function may have (`MAXUPVAL`).
pub const MAX_UPVALUES: usize = 255;

/// Deepest nesting of prototypes `verify_proto` accepts (the parser's own
/// limit on nested functions is lower).
pub const MAX_NESTING: usize = 250;

type R = Result<(), VerifyError>;

fn err<T>(msg: String) -> Result<T, VerifyError> {
    Err(VerifyError(msg))
}

/// A set of registers (0..=255) as a bitset.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct RegSet([u64; 4]);

impl RegSet {
    fn insert(&mut self, r: u32) {
        let r = (r & 0xFF) as usize;
        self.0[r / 64] |= 1 << (r % 64);
    }
    /// Removes every register `>= r`.
    fn remove_from(&mut self, r: u32) {
        for (w, word) in self.0.iter_mut().enumerate() {
            let lo = (w * 64) as u32;
            if r <= lo {
                *word = 0;
            } else if r < lo + 64 {
                *word &= (1u64 << (r - lo)) - 1;
            }
        }
    }
    /// True if some register `>= r` is in the set.
    fn any_from(&self, r: u32) -> bool {
        let mut s = *self;
        let before = s;
        s.remove_from(r);
        s != before
    }
    fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
    fn union(&mut self, o: &RegSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
}

/// The checker of one function: its view and the error context.
struct Checker<'a, 'b> {
    f: &'b FnView<'a>,
    pc: usize,
    op: OpCode,
}

impl Checker<'_, '_> {
    fn fail<T>(&self, what: impl std::fmt::Display) -> Result<T, VerifyError> {
        err(format!("{} at pc {}: {what}", self.op.name(), self.pc))
    }

    /// Registers `first..first+count` exist (count may be 0).
    fn regs(&self, first: u32, count: u32) -> R {
        let end = first as u64 + count as u64;
        if end > self.f.max_stack as u64 {
            return self.fail(format!(
                "register range {first}..{end} outside the frame of {}",
                self.f.max_stack
            ));
        }
        Ok(())
    }

    fn reg(&self, r: u32) -> R {
        self.regs(r, 1)
    }

    /// Constant `k` exists and, if `kinds` is not empty, is of one of them.
    fn konst(&self, k: u32, kinds: &[ConstKind]) -> R {
        let Some(&kind) = self.f.constants.get(k as usize) else {
            return self.fail(format!("constant {k} out of range"));
        };
        if !kinds.is_empty() && !kinds.contains(&kind) {
            return self.fail(format!("constant {k} is {kind:?}, expected {kinds:?}"));
        }
        Ok(())
    }

    fn upval(&self, u: u32) -> R {
        if u as usize >= self.f.num_upvalues {
            return self.fail(format!("upvalue {u} out of range"));
        }
        Ok(())
    }

    /// `RK(C)`: a constant with the k bit, else a register.
    fn rk(&self, i: Instruction, kinds: &[ConstKind]) -> R {
        if i.k() {
            self.konst(i.c(), kinds)
        } else {
            self.reg(i.c())
        }
    }

    /// The `EXTRAARG` after this instruction.
    fn extra(&self) -> Result<u32, VerifyError> {
        match self.f.code.get(self.pc + 1) {
            Some(n) if n.opcode() == Some(OpCode::ExtraArg) => Ok(n.ax_field()),
            _ => self.fail("missing EXTRAARG"),
        }
    }
}

const STR: &[ConstKind] = &[ConstKind::Str];
const NUM: &[ConstKind] = &[ConstKind::Int, ConstKind::Float];
const INT: &[ConstKind] = &[ConstKind::Int];
const ANY: &[ConstKind] = &[];

/// Counts used to bound table size hints.
struct Counts {
    setlists: u64,
    stores: u64,
}

fn counts(code: &[Instruction]) -> Counts {
    let mut c = Counts { setlists: 0, stores: 0 };
    for i in code {
        match i.opcode() {
            Some(OpCode::SetList) => c.setlists += 1,
            Some(OpCode::SetField | OpCode::SetTable | OpCode::SetI) => c.stores += 1,
            _ => {}
        }
    }
    c
}

/// Pass 1: the operands of one instruction.
fn check_operands(ck: &Checker<'_, '_>, i: Instruction, n: &Counts) -> R {
    use OpCode::*;
    let (a, b, c) = (i.a(), i.b(), i.c());
    let f = ck.f;
    match ck.op {
        Move | Unm | BNot | Not | Len => {
            ck.reg(a)?;
            ck.reg(b)
        }
        LoadI | LoadF | LoadFalse | LFalseSkip | LoadTrue | Close | Tbc | Test | Return1 => {
            ck.reg(a)
        }
        LoadK => {
            ck.reg(a)?;
            ck.konst(i.bx(), ANY)
        }
        LoadKX => {
            ck.reg(a)?;
            ck.konst(ck.extra()?, ANY)
        }
        LoadNil => ck.regs(a, b + 1),
        GetUpval => {
            ck.reg(a)?;
            ck.upval(b)
        }
        SetUpval => {
            ck.reg(a)?;
            ck.upval(b)
        }
        GetTabUp => {
            ck.reg(a)?;
            ck.upval(b)?;
            ck.konst(c, STR)
        }
        GetTable => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.reg(c)
        }
        GetI => {
            ck.reg(a)?;
            ck.reg(b)
        }
        GetField => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.konst(c, STR)
        }
        SetTabUp => {
            ck.upval(a)?;
            ck.konst(b, STR)?;
            ck.rk(i, ANY)
        }
        SetTable => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.rk(i, ANY)
        }
        SetI => {
            ck.reg(a)?;
            ck.rk(i, ANY)
        }
        SetField => {
            ck.reg(a)?;
            ck.konst(b, STR)?;
            ck.rk(i, ANY)
        }
        NewTable => {
            ck.reg(a)?;
            let extra = ck.extra()? as u64;
            let narr = c as u64 + if i.k() { extra * 256 } else { 0 };
            if narr > FIELDS_PER_FLUSH as u64 * n.setlists {
                return ck.fail(format!("array size hint {narr} larger than the code fills"));
            }
            if b > 0 && (b > 40 || (1u64 << (b - 1)) >= 2 * n.stores) {
                return ck.fail(format!("hash size hint {b} larger than the code fills"));
            }
            Ok(())
        }
        SelfOp => {
            ck.regs(a, 2)?;
            ck.reg(b)?;
            ck.rk(i, STR)
        }
        AddI | ShrI | ShlI => {
            ck.reg(a)?;
            ck.reg(b)
        }
        AddK | SubK | MulK | ModK | PowK | DivK | IDivK => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.konst(c, NUM)
        }
        BAndK | BOrK | BXorK => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.konst(c, INT)
        }
        Add | Sub | Mul | Mod | Pow | Div | IDiv | BAnd | BOr | BXor | Shl | Shr => {
            ck.reg(a)?;
            ck.reg(b)?;
            ck.reg(c)
        }
        Concat => {
            if b < 2 {
                return ck.fail("CONCAT of fewer than two values");
            }
            ck.regs(a, b)
        }
        Jmp => Ok(()),
        Eq | Lt | Le => {
            ck.reg(a)?;
            ck.reg(b)
        }
        EqK => {
            ck.reg(a)?;
            ck.konst(b, ANY)
        }
        EqI | LtI | LeI | GtI | GeI => ck.reg(a),
        TestSet => {
            ck.reg(a)?;
            ck.reg(b)
        }
        Call | TailCall => {
            // The function and its arguments; B = 0: to the top.
            ck.regs(a, b.max(1))?;
            if ck.op == Call && c > 1 {
                ck.regs(a, c - 1)?;
            }
            Ok(())
        }
        Return => {
            // B = 1 returns nothing from A, which may be the frame's end.
            if b == 0 || b == 1 {
                if a > f.max_stack as u32 {
                    return ck.fail(format!("register {a} outside the frame"));
                }
                Ok(())
            } else {
                ck.regs(a, b - 1)
            }
        }
        Return0 => Ok(()),
        ForLoop | ForPrep => ck.regs(a, 4),
        TForPrep => ck.regs(a, 4),
        // The iterator is called at A+4 with two arguments; C results.
        TForCall => ck.regs(a, 4 + c.max(3)),
        TForLoop => ck.regs(a, 5),
        SetList => {
            ck.regs(a, b + 1)?;
            let last = c as u64 + if i.k() { ck.extra()? as u64 * 256 } else { 0 };
            if last > FIELDS_PER_FLUSH as u64 * n.setlists {
                return ck.fail(format!("list index {last} larger than the code fills"));
            }
            Ok(())
        }
        Closure => {
            ck.reg(a)?;
            let Some(ups) = f.nested_upvalues.get(i.bx() as usize) else {
                return ck.fail(format!("prototype {} out of range", i.bx()));
            };
            for (j, d) in ups.iter().enumerate() {
                let ok = if d.in_stack {
                    (d.index as u32) < f.max_stack as u32
                } else {
                    (d.index as usize) < f.num_upvalues
                };
                if !ok {
                    return ck.fail(format!("upvalue {j} of prototype {} is invalid", i.bx()));
                }
            }
            Ok(())
        }
        VarArg => {
            if !f.is_vararg {
                return ck.fail("VARARG in a function that is not vararg");
            }
            if c > 1 {
                ck.regs(a, c - 1)
            } else {
                ck.reg(a)
            }
        }
        VarArgPrep => {
            if !f.is_vararg {
                return ck.fail("VARARGPREP in a function that is not vararg");
            }
            Ok(())
        }
        ExtraArg => {
            let prev = ck.pc.checked_sub(1).and_then(|p| f.code.get(p)).copied();
            let ok = match prev.and_then(|p| p.opcode()) {
                Some(LoadKX | NewTable) => true,
                Some(SetList) => prev.is_some_and(|p| p.k()),
                _ => false,
            };
            if !ok {
                return ck.fail("EXTRAARG not after an instruction that reads one");
            }
            Ok(())
        }
    }
}

/// The successors of instruction `pc` (`None` entries for none), as the
/// dispatch loop computes them, unchecked.
fn successors(code: &[Instruction], pc: usize) -> [Option<i64>; 2] {
    use OpCode::*;
    let i = code[pc];
    let p = pc as i64;
    let Some(op) = i.opcode() else { return [None, None] };
    match op {
        Return | Return0 | Return1 => [None, None],
        Jmp => [Some(p + 1 + i.sj_field() as i64), None],
        LFalseSkip | LoadKX | NewTable => [Some(p + 2), None],
        SetList if i.k() => [Some(p + 2), None],
        _ if op.is_test() => [Some(p + 1), Some(p + 2)],
        ForPrep => [Some(p + 1), Some(p + 2 + i.bx() as i64)],
        ForLoop | TForLoop => [Some(p + 1), Some(p + 1 - i.bx() as i64)],
        TForPrep => [Some(p + 1 + i.bx() as i64), None],
        _ => [Some(p + 1), None],
    }
}

/// Instructions that set the stack top for the next one.
fn sets_top(i: Instruction) -> bool {
    match i.opcode() {
        Some(OpCode::Call | OpCode::VarArg) => i.c() == 0,
        Some(OpCode::TailCall) => true,
        _ => false,
    }
}

/// Instructions that read the top set by the previous one.
fn uses_top(i: Instruction) -> bool {
    matches!(i.opcode(), Some(OpCode::Call | OpCode::TailCall | OpCode::Return | OpCode::SetList))
        && i.b() == 0
}

/// Pass 2: control flow and instruction pairing. Returns, per pc, whether
/// it is the target of a jump (anything but plain fall-through).
fn check_flow(f: &FnView<'_>) -> Result<Vec<bool>, VerifyError> {
    let code = f.code;
    let len = code.len() as i64;
    let mut target = vec![false; code.len()];
    for pc in 0..code.len() {
        let i = code[pc];
        // Invariant: pass 1 decoded every opcode.
        let op = i.opcode().unwrap_or(OpCode::ExtraArg);
        let ck = Checker { f, pc, op };
        for (n, s) in successors(code, pc).into_iter().enumerate() {
            let Some(s) = s else { continue };
            if s < 0 || s >= len {
                return ck.fail(format!("jump to {s} outside the code"));
            }
            let fallthrough = n == 0 && s == pc as i64 + 1 && !op.is_test() && op != OpCode::Jmp;
            if !fallthrough {
                target[s as usize] = true;
            }
        }
        if op.is_test() && code[pc + 1].opcode() != Some(OpCode::Jmp) {
            return ck.fail("test not followed by JMP");
        }
        if op == OpCode::TailCall && code[pc + 1].opcode() != Some(OpCode::Return) {
            return ck.fail("TAILCALL not followed by RETURN");
        }
        if sets_top(i) && op != OpCode::TailCall && !uses_top(code[pc + 1]) {
            return ck.fail("open results not used by the next instruction");
        }
        if uses_top(i) {
            let prev = pc.checked_sub(1).map(|p| code[p]);
            let Some(prev) = prev.filter(|p| sets_top(*p)) else {
                return ck.fail("B = 0 without open results before");
            };
            // The count (top - first) must not be negative.
            let need = if op == OpCode::Return { i.a() } else { i.a() + 1 };
            if prev.a() < need {
                return ck.fail("open results below the instruction's registers");
            }
        }
    }
    match code.last().and_then(|i| i.opcode()) {
        Some(OpCode::Return | OpCode::Return0 | OpCode::Return1) => {}
        _ => return err("code does not end in a return".into()),
    }
    for (pc, &t) in target.iter().enumerate() {
        if t && (code[pc].opcode() == Some(OpCode::ExtraArg) || uses_top(code[pc])) {
            return err(format!("jump into the middle of an instruction pair at pc {pc}"));
        }
    }
    Ok(target)
}

/// What may be open at a pc: registers captured as upvalues, and
/// registers marked to be closed.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Open {
    up: RegSet,
    tbc: RegSet,
}

impl Open {
    fn union(&mut self, o: &Open) -> bool {
        let a = self.up.union(&o.up);
        let b = self.tbc.union(&o.tbc);
        a || b
    }
    fn any_from(&self, r: u32) -> bool {
        self.up.any_from(r) || self.tbc.any_from(r)
    }
}

/// Pass 3: open upvalues and to-be-closed variables (see the module
/// documentation).
fn check_upvalues(f: &FnView<'_>) -> R {
    use OpCode::*;
    let code = f.code;
    let mut state: Vec<Option<Open>> = vec![None; code.len()];
    let mut work: Vec<usize> = vec![0];
    state[0] = Some(Open::default());
    while let Some(pc) = work.pop() {
        let Some(mut s) = state[pc] else { continue };
        let i = code[pc];
        let op = i.opcode().unwrap_or(ExtraArg);
        let ck = Checker { f, pc, op };
        match op {
            Closure => {
                for d in f.nested_upvalues.get(i.bx() as usize).copied().unwrap_or(&[]) {
                    if d.in_stack {
                        s.up.insert(d.index as u32);
                    }
                }
            }
            Tbc => s.tbc.insert(i.a()),
            TForPrep => s.tbc.insert(i.a() + 3),
            Close => {
                s.up.remove_from(i.a());
                s.tbc.remove_from(i.a());
            }
            Call | TailCall if s.any_from(i.a()) => {
                return ck.fail("call above a captured or to-be-closed local");
            }
            TForCall if s.any_from(i.a() + 4) => {
                return ck.fail("call above a captured or to-be-closed local");
            }
            TailCall if !s.tbc.is_empty() || (!i.k() && !s.up.is_empty()) => {
                return ck.fail("tail call without closing locals");
            }
            Return if !i.k() && s != Open::default() => {
                return ck.fail("return without closing locals");
            }
            Return0 | Return1 if s != Open::default() => {
                return ck.fail("return without closing locals");
            }
            _ => {}
        }
        for succ in successors(code, pc).into_iter().flatten() {
            // Invariant: pass 2 bounded every successor.
            let Ok(t) = usize::try_from(succ) else { continue };
            let Some(slot) = state.get_mut(t) else { continue };
            let changed = match slot {
                None => {
                    *slot = Some(s);
                    true
                }
                Some(old) => old.union(&s),
            };
            if changed {
                work.push(t);
            }
        }
    }
    Ok(())
}

/// Checks one function's code against its shape.
pub fn verify_function(f: &FnView<'_>) -> Result<(), VerifyError> {
    if f.code.is_empty() {
        return err("empty code".into());
    }
    if f.num_params > f.max_stack {
        return err(format!("{} parameters in a frame of {}", f.num_params, f.max_stack));
    }
    if f.num_upvalues > MAX_UPVALUES {
        return err(format!("{} upvalues", f.num_upvalues));
    }
    let n = counts(f.code);
    for (pc, &i) in f.code.iter().enumerate() {
        let Some(op) = i.opcode() else {
            return err(format!("invalid opcode {} at pc {pc}", i.op_raw()));
        };
        check_operands(&Checker { f, pc, op }, i, &n)?;
    }
    check_flow(f)?;
    check_upvalues(f)
}

/// Checks a whole prototype tree, debug information included.
pub fn verify_proto(p: &Proto) -> Result<(), VerifyError> {
    verify_at(p, 0)
}

fn verify_at(p: &Proto, depth: usize) -> R {
    if depth > MAX_NESTING {
        return err("functions nested too deeply".into());
    }
    let kinds: Vec<ConstKind> = p.constants.iter().map(ConstKind::of).collect();
    let nested: Vec<&[UpvalDesc]> = p.protos.iter().map(|c| c.upvalues.as_slice()).collect();
    let view = FnView {
        code: &p.code,
        num_params: p.num_params,
        is_vararg: p.is_vararg,
        max_stack: p.max_stack,
        constants: &kinds,
        num_upvalues: p.upvalues.len(),
        nested_upvalues: &nested,
    };
    verify_function(&view)?;
    verify_debug(p)?;
    for c in &p.protos {
        verify_at(c, depth + 1)?;
    }
    Ok(())
}

/// Debug information: line info absent (stripped) or one line per
/// instruction, local variables inside the code, valid upvalue kinds.
fn verify_debug(p: &Proto) -> R {
    if !p.line_info.is_empty() && p.line_info.len() != p.code.len() {
        return err(format!("{} lines for {} instructions", p.line_info.len(), p.code.len()));
    }
    let len = p.code.len() as u64;
    for lv in &p.loc_vars {
        if lv.start_pc > lv.end_pc || lv.end_pc as u64 > len {
            return err(format!("local variable range {}..{}", lv.start_pc, lv.end_pc));
        }
    }
    if let Some(u) = p.upvalues.iter().find(|u| u.kind > 3) {
        return err(format!("upvalue kind {}", u.kind));
    }
    Ok(())
}
