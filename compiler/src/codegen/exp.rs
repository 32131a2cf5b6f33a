//! Expression descriptors and their discharge (the middle of `lcode.c`).
//!
//! An [`ExpDesc`] describes an expression whose code has been (partly)
//! generated: a constant not yet in any register, a value sitting in a
//! register, an instruction whose destination register is still open
//! (`Reloc`), a variable (local, upvalue, indexed), an open call or vararg
//! whose number of results is not yet fixed, or a comparison whose outcome
//! is a pending conditional jump. Each expression also carries two jump
//! lists, `t` and `f`, of jumps taken when it is true or false (from `and`,
//! `or`, `not` and comparisons).
//!
//! Delaying the decision of where a value goes is what lets the compiler
//! emit `GETFIELD 3 0 1` straight into the right register, use constants
//! directly as RK operands, and turn `if a < b` into a test and a jump
//! without materialising a boolean. The functions here are faithful ports
//! of `luaK_dischargevars`, `exp2reg`, `luaK_exp2anyreg`, `luaK_exp2RK`,
//! `luaK_storevar`, `luaK_goiftrue`, `luaK_indexed` and friends, so that
//! the generated code has the same shape as PUC Lua's.
//!
//! Invariant: a descriptor of kind `Reloc`, `Call`, `VarArg` or `Jmp`
//! refers to an instruction of the *current* function, and a `NonReloc`
//! register is either a local's or the top temporary (`freereg - 1`) at the
//! time it is freed, so temporaries are released in stack order.

use crate::ast::Name;
use crate::opcodes::{Instruction, OpCode};
use crate::proto::Constant;

use super::state::{Compiler, CtValue, JList, MAX_INDEX_RK, MAX_SHORT_LEN, MULTRET, R};

/// The kinds of expression (`expkind`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExpKind {
    /// No value (empty expression list).
    Void,
    Nil,
    True,
    False,
    /// Constant at this index of the constant table.
    K(u32),
    /// Float numeral.
    KFlt(f64),
    /// Integer numeral.
    KInt(i64),
    /// String literal not yet in the constant table.
    KStr(Name),
    /// Value in a fixed register.
    NonReloc(u32),
    /// Local variable: its register and its index among the function's locals.
    Local {
        ridx: u32,
        vidx: usize,
    },
    /// Upvalue.
    Upval(u32),
    /// Compile-time constant: absolute index in `Compiler::actvar`.
    Const(usize),
    /// `R[t][R[idx]]`.
    Indexed {
        t: u32,
        idx: u32,
    },
    /// `UpValue[t][K[idx]]`.
    IndexUp {
        t: u32,
        idx: u32,
    },
    /// `R[t][idx]` (integer key).
    IndexI {
        t: u32,
        idx: u32,
    },
    /// `R[t][K[idx]]` (short string key).
    IndexStr {
        t: u32,
        idx: u32,
    },
    /// Comparison: the jump at this position.
    Jmp(usize),
    /// Instruction at this position whose destination A is still open.
    Reloc(usize),
    /// Open call at this position.
    Call(usize),
    /// Open vararg at this position.
    VarArg(usize),
}

/// An expression descriptor (`expdesc`).
#[derive(Clone, Debug)]
pub(crate) struct ExpDesc {
    pub k: ExpKind,
    /// Jumps taken when the expression is true.
    pub t: JList,
    /// Jumps taken when the expression is false.
    pub f: JList,
}

impl ExpDesc {
    /// A descriptor without pending jumps.
    pub fn new(k: ExpKind) -> ExpDesc {
        ExpDesc { k, t: None, f: None }
    }

    /// True if it has pending jumps (`hasjumps`).
    pub fn has_jumps(&self) -> bool {
        self.t != self.f
    }

    /// True for open calls and varargs (`hasmultret`).
    pub fn is_multret(&self) -> bool {
        matches!(self.k, ExpKind::Call(_) | ExpKind::VarArg(_))
    }

    /// True for the kinds that can be assigned to (`vkisvar`).
    pub fn is_var(&self) -> bool {
        matches!(
            self.k,
            ExpKind::Local { .. }
                | ExpKind::Upval(_)
                | ExpKind::Const(_)
                | ExpKind::Indexed { .. }
                | ExpKind::IndexUp { .. }
                | ExpKind::IndexI { .. }
                | ExpKind::IndexStr { .. }
        )
    }

    /// True for indexed kinds (`vkisindexed`).
    pub fn is_indexed(&self) -> bool {
        matches!(
            self.k,
            ExpKind::Indexed { .. }
                | ExpKind::IndexUp { .. }
                | ExpKind::IndexI { .. }
                | ExpKind::IndexStr { .. }
        )
    }

    /// The register of a `NonReloc` or the index of a `K` (`u.info`).
    pub fn info(&self) -> u32 {
        match self.k {
            ExpKind::NonReloc(r) | ExpKind::K(r) => r,
            _ => 0,
        }
    }

    /// A literal integer without jumps (`luaK_isKint`).
    pub fn as_kint(&self) -> Option<i64> {
        match self.k {
            ExpKind::KInt(i) if !self.has_jumps() => Some(i),
            _ => None,
        }
    }
}

/// Converts a compile-time constant's value into an expression kind.
pub(crate) fn const_to_exp(v: &CtValue) -> ExpKind {
    match v {
        CtValue::Nil => ExpKind::Nil,
        CtValue::Bool(true) => ExpKind::True,
        CtValue::Bool(false) => ExpKind::False,
        CtValue::Int(i) => ExpKind::KInt(*i),
        CtValue::Flt(f) => ExpKind::KFlt(*f),
        CtValue::Str(s) => ExpKind::KStr(Name::new(s)),
    }
}

impl Compiler<'_> {
    /// Frees the register of `e`, if it holds a temporary.
    pub fn free_exp(&mut self, e: &ExpDesc) {
        if let ExpKind::NonReloc(r) = e.k {
            self.free_reg(r);
        }
    }

    /// Frees the registers of two expressions in the proper order.
    pub fn free_exps(&mut self, e1: &ExpDesc, e2: &ExpDesc) {
        match (&e1.k, &e2.k) {
            (ExpKind::NonReloc(r1), ExpKind::NonReloc(r2)) => self.free_regs(*r1, *r2),
            (ExpKind::NonReloc(r1), _) => self.free_reg(*r1),
            (_, ExpKind::NonReloc(r2)) => self.free_reg(*r2),
            _ => {}
        }
    }

    /// Fixes an open call or vararg to produce `nresults` values
    /// (`luaK_setreturns`; -1 for all of them).
    pub fn set_returns(&mut self, e: &mut ExpDesc, nresults: i32) -> R<()> {
        let c = (nresults + 1) as u32;
        match e.k {
            ExpKind::Call(pc) => {
                let i = self.ins(pc).with_c(c);
                self.set_ins(pc, i);
            }
            ExpKind::VarArg(pc) => {
                let i = self.ins(pc).with_c(c).with_a(self.fs.freereg);
                self.set_ins(pc, i);
                self.reserve_regs(1)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `luaK_setmultret`.
    pub fn set_multret(&mut self, e: &mut ExpDesc) -> R<()> {
        self.set_returns(e, MULTRET)
    }

    /// Fixes an open call or vararg to produce one value (`luaK_setoneret`).
    pub fn set_one_ret(&mut self, e: &mut ExpDesc) {
        match e.k {
            ExpKind::Call(pc) => e.k = ExpKind::NonReloc(self.ins(pc).a()),
            ExpKind::VarArg(pc) => {
                let i = self.ins(pc).with_c(2);
                self.set_ins(pc, i);
                e.k = ExpKind::Reloc(pc);
            }
            _ => {}
        }
    }

    /// Makes `e` not a variable (`luaK_dischargevars`).
    pub fn discharge_vars(&mut self, e: &mut ExpDesc) {
        e.k = match e.k {
            ExpKind::Const(i) => match self.actvar.get(i).and_then(|v| v.value.as_ref()) {
                Some(v) => const_to_exp(v),
                None => ExpKind::Nil,
            },
            ExpKind::Local { ridx, .. } => ExpKind::NonReloc(ridx),
            ExpKind::Upval(u) => ExpKind::Reloc(self.code_abc(OpCode::GetUpval, 0, u, 0)),
            ExpKind::IndexUp { t, idx } => {
                ExpKind::Reloc(self.code_abc(OpCode::GetTabUp, 0, t, idx))
            }
            ExpKind::IndexI { t, idx } => {
                self.free_reg(t);
                ExpKind::Reloc(self.code_abc(OpCode::GetI, 0, t, idx))
            }
            ExpKind::IndexStr { t, idx } => {
                self.free_reg(t);
                ExpKind::Reloc(self.code_abc(OpCode::GetField, 0, t, idx))
            }
            ExpKind::Indexed { t, idx } => {
                self.free_regs(t, idx);
                ExpKind::Reloc(self.code_abc(OpCode::GetTable, 0, t, idx))
            }
            ExpKind::VarArg(_) | ExpKind::Call(_) => {
                self.set_one_ret(e);
                return;
            }
            _ => return,
        };
    }

    /// Puts the value of `e` in register `reg` (`discharge2reg`).
    fn discharge_to_reg(&mut self, e: &mut ExpDesc, reg: u32) -> R<()> {
        self.discharge_vars(e);
        match std::mem::replace(&mut e.k, ExpKind::Void) {
            ExpKind::Nil => self.load_nil(reg, 1),
            ExpKind::False => {
                self.code_abc(OpCode::LoadFalse, reg, 0, 0);
            }
            ExpKind::True => {
                self.code_abc(OpCode::LoadTrue, reg, 0, 0);
            }
            ExpKind::KStr(s) => {
                let k = self.string_k(&s)?;
                self.code_k(reg, k);
            }
            ExpKind::K(k) => {
                self.code_k(reg, k);
            }
            ExpKind::KFlt(f) => self.load_float(reg, f)?,
            ExpKind::KInt(i) => self.load_int(reg, i)?,
            ExpKind::Reloc(pc) => {
                let i = self.ins(pc).with_a(reg);
                self.set_ins(pc, i);
            }
            ExpKind::NonReloc(r) => {
                if r != reg {
                    self.code_abc(OpCode::Move, reg, r, 0);
                }
            }
            other => {
                // Jmp (nothing to do) or Void (no value).
                e.k = other;
                return Ok(());
            }
        }
        e.k = ExpKind::NonReloc(reg);
        Ok(())
    }

    /// Puts `e` in some register (`discharge2anyreg`), without resolving jumps.
    pub fn discharge_to_any_reg(&mut self, e: &mut ExpDesc) -> R<()> {
        if !matches!(e.k, ExpKind::NonReloc(_)) {
            self.reserve_regs(1)?;
            let reg = self.fs.freereg - 1;
            self.discharge_to_reg(e, reg)?;
        }
        Ok(())
    }

    /// Emits a boolean load that may be a jump target.
    fn code_load_bool(&mut self, a: u32, op: OpCode) -> usize {
        self.get_label();
        self.code_abc(op, a, 0, 0)
    }

    /// Puts the final value of `e`, jumps included, in `reg` (`exp2reg`).
    pub fn exp_to_reg(&mut self, e: &mut ExpDesc, reg: u32) -> R<()> {
        self.discharge_to_reg(e, reg)?;
        if let ExpKind::Jmp(pc) = e.k {
            let mut t = e.t;
            self.concat(&mut t, Some(pc))?;
            e.t = t;
        }
        if e.has_jumps() {
            let mut p_f = None;
            let mut p_t = None;
            if self.need_value(e.t) || self.need_value(e.f) {
                let fj = if matches!(e.k, ExpKind::Jmp(_)) { None } else { Some(self.jump()) };
                p_f = Some(self.code_load_bool(reg, OpCode::LFalseSkip));
                p_t = Some(self.code_load_bool(reg, OpCode::LoadTrue));
                self.patch_to_here(fj)?;
            }
            let end = self.get_label();
            self.patch_list_aux(e.f, end, reg, p_f.unwrap_or(end))?;
            self.patch_list_aux(e.t, end, reg, p_t.unwrap_or(end))?;
        }
        e.t = None;
        e.f = None;
        e.k = ExpKind::NonReloc(reg);
        Ok(())
    }

    /// Puts `e` in the next free register (`luaK_exp2nextreg`).
    pub fn exp_to_next_reg(&mut self, e: &mut ExpDesc) -> R<()> {
        self.discharge_vars(e);
        self.free_exp(e);
        self.reserve_regs(1)?;
        let reg = self.fs.freereg - 1;
        self.exp_to_reg(e, reg)
    }

    /// Puts `e` in some register and returns it (`luaK_exp2anyreg`).
    pub fn exp_to_any_reg(&mut self, e: &mut ExpDesc) -> R<u32> {
        self.discharge_vars(e);
        if let ExpKind::NonReloc(r) = e.k {
            if !e.has_jumps() {
                return Ok(r);
            }
            if r >= self.nvarstack() {
                self.exp_to_reg(e, r)?;
                return Ok(r);
            }
        }
        self.exp_to_next_reg(e)?;
        Ok(e.info())
    }

    /// Puts `e` in a register or leaves it as an upvalue (`luaK_exp2anyregup`).
    pub fn exp_to_any_reg_up(&mut self, e: &mut ExpDesc) -> R<()> {
        if !matches!(e.k, ExpKind::Upval(_)) || e.has_jumps() {
            self.exp_to_any_reg(e)?;
        }
        Ok(())
    }

    /// Puts `e` in a register or leaves it as a constant (`luaK_exp2val`).
    pub fn exp_to_val(&mut self, e: &mut ExpDesc) -> R<()> {
        if e.has_jumps() {
            self.exp_to_any_reg(e)?;
        } else {
            self.discharge_vars(e);
        }
        Ok(())
    }

    /// Tries to make `e` a constant usable as an RK operand (`luaK_exp2K`).
    pub fn exp_to_k(&mut self, e: &mut ExpDesc) -> R<bool> {
        if e.has_jumps() {
            return Ok(false);
        }
        let info = match &e.k {
            ExpKind::True => self.bool_k(true)?,
            ExpKind::False => self.bool_k(false)?,
            ExpKind::Nil => self.nil_k()?,
            ExpKind::KInt(i) => self.int_k(*i)?,
            ExpKind::KFlt(f) => self.number_k(*f)?,
            ExpKind::KStr(s) => self.string_k(s)?,
            ExpKind::K(k) => *k,
            _ => return Ok(false),
        };
        if info <= MAX_INDEX_RK {
            e.k = ExpKind::K(info);
            return Ok(true);
        }
        Ok(false)
    }

    /// Makes `e` a register or an RK constant; true if constant (`luaK_exp2RK`).
    pub fn exp_to_rk(&mut self, e: &mut ExpDesc) -> R<bool> {
        if self.exp_to_k(e)? {
            Ok(true)
        } else {
            self.exp_to_any_reg(e)?;
            Ok(false)
        }
    }

    /// Emits `op a b RK(ec)` (`codeABRK`).
    fn code_abrk(&mut self, op: OpCode, a: u32, b: u32, ec: &mut ExpDesc) -> R<()> {
        let k = self.exp_to_rk(ec)?;
        self.code_abck(op, a, b, ec.info(), k);
        Ok(())
    }

    /// Stores `ex` into the variable `var` (`luaK_storevar`).
    pub fn store_var(&mut self, var: &ExpDesc, ex: &mut ExpDesc) -> R<()> {
        match var.k {
            ExpKind::Local { ridx, .. } => {
                self.free_exp(ex);
                return self.exp_to_reg(ex, ridx);
            }
            ExpKind::Upval(u) => {
                let e = self.exp_to_any_reg(ex)?;
                self.code_abc(OpCode::SetUpval, e, u, 0);
            }
            ExpKind::IndexUp { t, idx } => self.code_abrk(OpCode::SetTabUp, t, idx, ex)?,
            ExpKind::IndexI { t, idx } => self.code_abrk(OpCode::SetI, t, idx, ex)?,
            ExpKind::IndexStr { t, idx } => self.code_abrk(OpCode::SetField, t, idx, ex)?,
            ExpKind::Indexed { t, idx } => self.code_abrk(OpCode::SetTable, t, idx, ex)?,
            _ => {}
        }
        self.free_exp(ex);
        Ok(())
    }

    /// Emits `SELF`: `e:key` becomes function and self in two registers.
    pub fn self_op(&mut self, e: &mut ExpDesc, key: &mut ExpDesc) -> R<()> {
        let ereg = self.exp_to_any_reg(e)?;
        self.free_exp(e);
        let base = self.fs.freereg;
        e.k = ExpKind::NonReloc(base);
        self.reserve_regs(2)?;
        self.code_abrk(OpCode::SelfOp, base, ereg, key)?;
        self.free_exp(key);
        Ok(())
    }

    /// Inverts the condition of a comparison.
    pub fn negate_condition(&mut self, pc: usize) {
        let ctl = self.jump_control(pc);
        let i = self.ins(ctl);
        self.set_ins(ctl, i.with_k(!i.k()));
    }

    /// Emits a jump taken when `e` is `cond`, folding a preceding `NOT`.
    fn jump_on_cond(&mut self, e: &mut ExpDesc, cond: bool) -> R<usize> {
        if let ExpKind::Reloc(pc) = e.k {
            let ie = self.ins(pc);
            if ie.opcode() == Some(OpCode::Not) && pc + 1 == self.fs.pc() {
                self.remove_last_instruction();
                return Ok(self.cond_jump(OpCode::Test, ie.b(), 0, 0, !cond));
            }
        }
        self.discharge_to_any_reg(e)?;
        self.free_exp(e);
        Ok(self.cond_jump(OpCode::TestSet, super::state::NO_REG, e.info(), 0, cond))
    }

    /// Falls through when `e` is true, jumps otherwise (`luaK_goiftrue`).
    pub fn go_if_true(&mut self, e: &mut ExpDesc) -> R<()> {
        self.discharge_vars(e);
        let pc = match e.k {
            ExpKind::Jmp(pc) => {
                self.negate_condition(pc);
                Some(pc)
            }
            ExpKind::K(_) | ExpKind::KFlt(_) | ExpKind::KInt(_) | ExpKind::KStr(_) => None,
            ExpKind::True => None,
            _ => Some(self.jump_on_cond(e, false)?),
        };
        let mut f = e.f;
        self.concat(&mut f, pc)?;
        e.f = f;
        self.patch_to_here(e.t)?;
        e.t = None;
        Ok(())
    }

    /// Falls through when `e` is false, jumps otherwise (`luaK_goiffalse`).
    pub fn go_if_false(&mut self, e: &mut ExpDesc) -> R<()> {
        self.discharge_vars(e);
        let pc = match e.k {
            ExpKind::Jmp(pc) => Some(pc),
            ExpKind::Nil | ExpKind::False => None,
            _ => Some(self.jump_on_cond(e, true)?),
        };
        let mut t = e.t;
        self.concat(&mut t, pc)?;
        e.t = t;
        self.patch_to_here(e.f)?;
        e.f = None;
        Ok(())
    }

    /// `not e`, folding constants and comparisons (`codenot`).
    pub fn code_not(&mut self, e: &mut ExpDesc) -> R<()> {
        match e.k {
            ExpKind::Nil | ExpKind::False => e.k = ExpKind::True,
            ExpKind::K(_)
            | ExpKind::KFlt(_)
            | ExpKind::KInt(_)
            | ExpKind::KStr(_)
            | ExpKind::True => e.k = ExpKind::False,
            ExpKind::Jmp(pc) => self.negate_condition(pc),
            ExpKind::Reloc(_) | ExpKind::NonReloc(_) => {
                self.discharge_to_any_reg(e)?;
                self.free_exp(e);
                e.k = ExpKind::Reloc(self.code_abc(OpCode::Not, 0, e.info(), 0));
            }
            _ => {}
        }
        std::mem::swap(&mut e.t, &mut e.f);
        self.remove_values(e.f);
        self.remove_values(e.t);
        Ok(())
    }

    /// A short string constant usable as a `B`/`C` key (`isKstr`).
    pub fn is_kstr(&self, e: &ExpDesc) -> bool {
        match e.k {
            ExpKind::K(i) if !e.has_jumps() && i <= 255 => matches!(
                self.fs.f.constants.get(i as usize),
                Some(Constant::Str(s)) if s.len() <= MAX_SHORT_LEN
            ),
            _ => false,
        }
    }

    /// Turns a string literal into a constant-table reference (`str2K`).
    pub fn str_to_k(&mut self, e: &mut ExpDesc) -> R<()> {
        if let ExpKind::KStr(s) = &e.k {
            e.k = ExpKind::K(self.string_k(s)?);
        }
        Ok(())
    }

    /// Makes `t` the indexed expression `t[k]` (`luaK_indexed`).
    pub fn indexed(&mut self, t: &mut ExpDesc, k: &mut ExpDesc) -> R<()> {
        self.str_to_k(k)?;
        let ok_table =
            matches!(t.k, ExpKind::Local { .. } | ExpKind::NonReloc(_) | ExpKind::Upval(_));
        if t.has_jumps() || !ok_table || (matches!(t.k, ExpKind::Upval(_)) && !self.is_kstr(k)) {
            self.exp_to_any_reg(t)?;
        }
        if let ExpKind::Upval(u) = t.k {
            t.k = ExpKind::IndexUp { t: u, idx: k.info() };
            return Ok(());
        }
        let treg = match t.k {
            ExpKind::Local { ridx, .. } => ridx,
            _ => t.info(),
        };
        t.k = if self.is_kstr(k) {
            ExpKind::IndexStr { t: treg, idx: k.info() }
        } else if let Some(i) = k.as_kint().filter(|i| (*i as u64) <= 255) {
            ExpKind::IndexI { t: treg, idx: i as u32 }
        } else {
            ExpKind::Indexed { t: treg, idx: self.exp_to_any_reg(k)? }
        };
        Ok(())
    }

    /// Sets field C of the call at `pc` (used for call statements).
    pub fn set_call_results(&mut self, pc: usize, c: u32) {
        let i: Instruction = self.ins(pc).with_c(c);
        self.set_ins(pc, i);
    }
}
