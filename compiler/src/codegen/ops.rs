//! Unary and binary operators (the end of `lcode.c`).
//!
//! A binary operation is compiled in two steps, exactly as PUC Lua does
//! while parsing: [`Compiler::infix`] prepares the first operand before the
//! second is compiled (puts it in a register, or keeps a numeral that may
//! be folded or used as an immediate, or starts the jump list of `and` and
//! `or`), then [`Compiler::posfix`] combines both. Operators pick the most
//! specific instruction available: constant folding first, then immediate
//! forms (`ADDI`, `SHRI`, `SHLI`, `EQI`, `LTI`, ...), then constant forms
//! (`ADDK`, `EQK`, ...), then the register-register form.
//!
//! Luprex has no `MMBIN*` instructions: an arithmetic instruction calls the
//! metamethod itself, so it must know the source operator and operand
//! order. That information lives in the k bit, which PUC leaves unused on
//! these instructions:
//!
//! * `ADDK`, `MULK`, `BANDK`, `BORK`, `BXORK` with k=1: the constant was the
//!   *left* operand in the source (`2 * x`), so a metamethod receives
//!   `(K[C], R[B])`;
//! * `ADDI` with k=1: the source was `R[B] - (-sC)` (PUC codes `x - 3` as
//!   `ADDI x -3`), so the metamethod is `__sub(R[B], -sC)`;
//! * `SHRI` with k=1: the source was `R[B] << (-sC)`, metamethod
//!   `__shl(R[B], -sC)`;
//! * `SHLI` always means `sC << R[B]`.
//!
//! Because `ADDI`'s k bit is taken by subtraction, a commutated immediate
//! addition (`1 + x`, which PUC codes as `ADDI x 1` plus a flipped
//! `MMBINI`) is coded as `ADDK x K(1)` with k=1 instead.

use crate::ast::{BinOp, UnOp};
use crate::number::{float_to_int, ArithOp, Number, F2I};
use crate::opcodes::OpCode;

use super::exp::{ExpDesc, ExpKind};
use super::fold::fold;
use super::state::{fits_c, int_to_sc, Compiler, R};

/// The numeric value of a numeral without jumps (`tonumeral`).
pub(crate) fn to_numeral(e: &ExpDesc) -> Option<Number> {
    if e.has_jumps() {
        return None;
    }
    match e.k {
        ExpKind::KInt(i) => Some(Number::Int(i)),
        ExpKind::KFlt(f) => Some(Number::Float(f)),
        _ => None,
    }
}

/// A literal integer fitting an `sC` operand (`isSCint`).
fn is_sc_int(e: &ExpDesc) -> bool {
    e.as_kint().is_some_and(fits_c)
}

/// `isSCnumber`: a numeral with an integral value fitting `sB`/`sC`.
/// Like PUC, sets `isfloat` for integral floats even when they do not fit.
fn is_sc_number(e: &ExpDesc, isfloat: &mut bool) -> Option<u32> {
    let i = match e.k {
        ExpKind::KInt(i) => i,
        ExpKind::KFlt(f) => {
            let i = float_to_int(f, F2I::Exact)?;
            *isfloat = true;
            i
        }
        _ => return None,
    };
    (!e.has_jumps() && fits_c(i)).then(|| int_to_sc(i))
}

/// The folding operation for an arithmetic or bitwise binary operator.
fn arith_op(op: BinOp) -> Option<ArithOp> {
    Some(match op {
        BinOp::Add => ArithOp::Add,
        BinOp::Sub => ArithOp::Sub,
        BinOp::Mul => ArithOp::Mul,
        BinOp::Mod => ArithOp::Mod,
        BinOp::Pow => ArithOp::Pow,
        BinOp::Div => ArithOp::Div,
        BinOp::IDiv => ArithOp::IDiv,
        BinOp::BAnd => ArithOp::BAnd,
        BinOp::BOr => ArithOp::BOr,
        BinOp::BXor => ArithOp::BXor,
        BinOp::Shl => ArithOp::Shl,
        BinOp::Shr => ArithOp::Shr,
        _ => return None,
    })
}

/// Register-register opcode of an arithmetic or bitwise operator.
fn rr_opcode(op: BinOp) -> OpCode {
    match op {
        BinOp::Add => OpCode::Add,
        BinOp::Sub => OpCode::Sub,
        BinOp::Mul => OpCode::Mul,
        BinOp::Mod => OpCode::Mod,
        BinOp::Pow => OpCode::Pow,
        BinOp::Div => OpCode::Div,
        BinOp::IDiv => OpCode::IDiv,
        BinOp::BAnd => OpCode::BAnd,
        BinOp::BOr => OpCode::BOr,
        BinOp::BXor => OpCode::BXor,
        BinOp::Shl => OpCode::Shl,
        _ => OpCode::Shr,
    }
}

/// Register-constant opcode of an arithmetic or bitwise operator.
fn k_opcode(op: BinOp) -> OpCode {
    match op {
        BinOp::Add => OpCode::AddK,
        BinOp::Sub => OpCode::SubK,
        BinOp::Mul => OpCode::MulK,
        BinOp::Mod => OpCode::ModK,
        BinOp::Pow => OpCode::PowK,
        BinOp::Div => OpCode::DivK,
        BinOp::IDiv => OpCode::IDivK,
        BinOp::BAnd => OpCode::BAndK,
        BinOp::BOr => OpCode::BOrK,
        _ => OpCode::BXorK,
    }
}

impl Compiler<'_> {
    /// Folds `e1 op e2` into `e1` if both are numerals and it is safe.
    fn const_folding(&mut self, op: ArithOp, e1: &mut ExpDesc, e2: &ExpDesc) -> bool {
        let (Some(v1), Some(v2)) = (to_numeral(e1), to_numeral(e2)) else {
            return false;
        };
        match fold(op, v1, v2) {
            Some(Number::Int(i)) => e1.k = ExpKind::KInt(i),
            Some(Number::Float(f)) => e1.k = ExpKind::KFlt(f),
            None => return false,
        }
        true
    }

    /// Applies a prefix operator (`luaK_prefix`).
    pub fn prefix(&mut self, op: UnOp, e: &mut ExpDesc, line: u32) -> R<()> {
        self.discharge_vars(e);
        let fake = ExpDesc::new(ExpKind::KInt(0));
        match op {
            UnOp::Neg if self.const_folding(ArithOp::Unm, e, &fake) => Ok(()),
            UnOp::BNot if self.const_folding(ArithOp::BNot, e, &fake) => Ok(()),
            UnOp::Neg => self.code_un_exp_val(OpCode::Unm, e, line),
            UnOp::BNot => self.code_un_exp_val(OpCode::BNot, e, line),
            UnOp::Len => self.code_un_exp_val(OpCode::Len, e, line),
            UnOp::Not => self.code_not(e),
        }
    }

    /// Emits a value-producing unary instruction (`codeunexpval`).
    fn code_un_exp_val(&mut self, op: OpCode, e: &mut ExpDesc, line: u32) -> R<()> {
        let r = self.exp_to_any_reg(e)?;
        self.free_exp(e);
        e.k = ExpKind::Reloc(self.code_abc(op, 0, r, 0));
        self.fix_line(line);
        Ok(())
    }

    /// Prepares the first operand of a binary operator (`luaK_infix`).
    pub fn infix(&mut self, op: BinOp, v: &mut ExpDesc) -> R<()> {
        self.discharge_vars(v);
        match op {
            BinOp::And => self.go_if_true(v)?,
            BinOp::Or => self.go_if_false(v)?,
            BinOp::Concat => self.exp_to_next_reg(v)?,
            BinOp::Eq | BinOp::Ne => {
                if to_numeral(v).is_none() {
                    self.exp_to_rk(v)?;
                }
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                if is_sc_number(v, &mut false).is_none() {
                    self.exp_to_any_reg(v)?;
                }
            }
            _ => {
                if to_numeral(v).is_none() {
                    self.exp_to_any_reg(v)?;
                }
            }
        }
        Ok(())
    }

    /// Completes a binary operation (`luaK_posfix`); the result is in `e1`.
    pub fn posfix(&mut self, op: BinOp, e1: &mut ExpDesc, e2: &mut ExpDesc, line: u32) -> R<()> {
        self.discharge_vars(e2);
        if let Some(aop) = arith_op(op) {
            if self.const_folding(aop, e1, e2) {
                return Ok(());
            }
        }
        match op {
            BinOp::And => {
                let mut f = e2.f;
                self.concat(&mut f, e1.f)?;
                e2.f = f;
                *e1 = e2.clone();
            }
            BinOp::Or => {
                let mut t = e2.t;
                self.concat(&mut t, e1.t)?;
                e2.t = t;
                *e1 = e2.clone();
            }
            BinOp::Concat => {
                self.exp_to_next_reg(e2)?;
                self.code_concat(e1, e2, line);
            }
            BinOp::Add | BinOp::Mul => self.code_commutative(op, e1, e2, line)?,
            BinOp::Sub => {
                if !self.finish_bin_exp_neg(e1, e2, OpCode::AddI, line)? {
                    self.code_arith(op, e1, e2, false, line)?;
                }
            }
            BinOp::Div | BinOp::IDiv | BinOp::Mod | BinOp::Pow => {
                self.code_arith(op, e1, e2, false, line)?;
            }
            BinOp::BAnd | BinOp::BOr | BinOp::BXor => self.code_bitwise(op, e1, e2, line)?,
            BinOp::Shl => self.code_shl(e1, e2, line)?,
            BinOp::Shr => {
                if is_sc_int(e2) {
                    self.code_bin_i(OpCode::ShrI, e1, e2, false, line)?;
                } else {
                    self.code_bin_exp_val(OpCode::Shr, e1, e2, line)?;
                }
            }
            BinOp::Eq | BinOp::Ne => self.code_eq(op, e1, e2)?,
            BinOp::Lt => self.code_order(OpCode::Lt, e1, e2)?,
            BinOp::Le => self.code_order(OpCode::Le, e1, e2)?,
            BinOp::Gt => {
                std::mem::swap(e1, e2);
                self.code_order(OpCode::Lt, e1, e2)?;
            }
            BinOp::Ge => {
                std::mem::swap(e1, e2);
                self.code_order(OpCode::Le, e1, e2)?;
            }
        }
        Ok(())
    }

    /// `e1 << e2`: `SHLI` for an immediate left operand, `SHRI` with the
    /// negated count for an immediate right one, else `SHL`.
    fn code_shl(&mut self, e1: &mut ExpDesc, e2: &mut ExpDesc, line: u32) -> R<()> {
        if is_sc_int(e1) {
            std::mem::swap(e1, e2);
            self.code_bin_i(OpCode::ShlI, e1, e2, false, line)
        } else if self.finish_bin_exp_neg(e1, e2, OpCode::ShrI, line)? {
            Ok(())
        } else {
            self.code_bin_exp_val(OpCode::Shl, e1, e2, line)
        }
    }

    /// Emits `op A=? B=R(e1) C=v2 k` as a relocatable result in `e1`
    /// (`finishbinexpval` without the `MMBIN`).
    fn finish_bin_exp_val(
        &mut self,
        e1: &mut ExpDesc,
        e2: &ExpDesc,
        op: OpCode,
        v2: u32,
        k: bool,
        line: u32,
    ) -> R<()> {
        let v1 = self.exp_to_any_reg(e1)?;
        let pc = self.code_abck(op, 0, v1, v2, k);
        self.free_exps(e1, e2);
        e1.k = ExpKind::Reloc(pc);
        self.fix_line(line);
        Ok(())
    }

    /// Register-register arithmetic (`codebinexpval`).
    fn code_bin_exp_val(
        &mut self,
        op: OpCode,
        e1: &mut ExpDesc,
        e2: &mut ExpDesc,
        line: u32,
    ) -> R<()> {
        let v2 = self.exp_to_any_reg(e2)?;
        self.finish_bin_exp_val(e1, e2, op, v2, false, line)
    }

    /// Arithmetic with an immediate second operand (`codebini`).
    fn code_bin_i(
        &mut self,
        op: OpCode,
        e1: &mut ExpDesc,
        e2: &ExpDesc,
        k: bool,
        line: u32,
    ) -> R<()> {
        let v2 = int_to_sc(e2.as_kint().unwrap_or(0));
        self.finish_bin_exp_val(e1, e2, op, v2, k, line)
    }

    /// `e1 - I` as `ADDI e1 -I` (and `e1 << I` as `SHRI e1 -I`), with k=1
    /// recording the original operator (`finishbinexpneg`).
    fn finish_bin_exp_neg(
        &mut self,
        e1: &mut ExpDesc,
        e2: &ExpDesc,
        op: OpCode,
        line: u32,
    ) -> R<bool> {
        let Some(i2) = e2.as_kint() else { return Ok(false) };
        if !(fits_c(i2) && fits_c(i2.wrapping_neg())) {
            return Ok(false);
        }
        self.finish_bin_exp_val(e1, e2, op, int_to_sc(-i2), true, line)?;
        Ok(true)
    }

    /// Arithmetic with a constant operand when possible (`codearith`).
    fn code_arith(
        &mut self,
        op: BinOp,
        e1: &mut ExpDesc,
        e2: &mut ExpDesc,
        flip: bool,
        line: u32,
    ) -> R<()> {
        if to_numeral(e2).is_some() && self.exp_to_k(e2)? {
            let v2 = e2.info();
            self.finish_bin_exp_val(e1, e2, k_opcode(op), v2, flip, line)
        } else {
            if flip {
                std::mem::swap(e1, e2);
            }
            self.code_bin_exp_val(rr_opcode(op), e1, e2, line)
        }
    }

    /// `+` and `*`: a numeral first operand is moved second (`codecommutative`).
    fn code_commutative(
        &mut self,
        op: BinOp,
        e1: &mut ExpDesc,
        e2: &mut ExpDesc,
        line: u32,
    ) -> R<()> {
        let mut flip = false;
        if to_numeral(e1).is_some() {
            std::mem::swap(e1, e2);
            flip = true;
        }
        if op == BinOp::Add && is_sc_int(e2) && !flip {
            self.code_bin_i(OpCode::AddI, e1, e2, false, line)
        } else {
            self.code_arith(op, e1, e2, flip, line)
        }
    }

    /// Bitwise operators, preferring an integer constant operand (`codebitwise`).
    fn code_bitwise(&mut self, op: BinOp, e1: &mut ExpDesc, e2: &mut ExpDesc, line: u32) -> R<()> {
        let mut flip = false;
        if matches!(e1.k, ExpKind::KInt(_)) && self.exp_to_rk(e1)? {
            std::mem::swap(e1, e2);
            flip = true;
        } else if !(matches!(e2.k, ExpKind::KInt(_)) && self.exp_to_rk(e2)?) {
            return self.code_bin_exp_val(rr_opcode(op), e1, e2, line);
        }
        let v2 = e2.info();
        self.finish_bin_exp_val(e1, e2, k_opcode(op), v2, flip, line)
    }

    /// Order comparisons, with immediate operands when possible (`codeorder`).
    fn code_order(&mut self, op: OpCode, e1: &mut ExpDesc, e2: &mut ExpDesc) -> R<()> {
        let mut isfloat = false;
        let (r1, r2, op) = if let Some(im) = is_sc_number(e2, &mut isfloat) {
            let r1 = self.exp_to_any_reg(e1)?;
            (r1, im, if op == OpCode::Lt { OpCode::LtI } else { OpCode::LeI })
        } else if let Some(im) = is_sc_number(e1, &mut isfloat) {
            let r1 = self.exp_to_any_reg(e2)?;
            (r1, im, if op == OpCode::Lt { OpCode::GtI } else { OpCode::GeI })
        } else {
            let r1 = self.exp_to_any_reg(e1)?;
            let r2 = self.exp_to_any_reg(e2)?;
            (r1, r2, op)
        };
        self.free_exps(e1, e2);
        e1.k = ExpKind::Jmp(self.cond_jump(op, r1, r2, u32::from(isfloat), true));
        Ok(())
    }

    /// `==` and `~=` (`codeeq`); `e1` was already made RK by `infix`.
    fn code_eq(&mut self, op: BinOp, e1: &mut ExpDesc, e2: &mut ExpDesc) -> R<()> {
        if !matches!(e1.k, ExpKind::NonReloc(_)) {
            std::mem::swap(e1, e2);
        }
        let r1 = self.exp_to_any_reg(e1)?;
        let mut isfloat = false;
        let (opc, r2) = if let Some(im) = is_sc_number(e2, &mut isfloat) {
            (OpCode::EqI, im)
        } else if self.exp_to_rk(e2)? {
            (OpCode::EqK, e2.info())
        } else {
            (OpCode::Eq, self.exp_to_any_reg(e2)?)
        };
        self.free_exps(e1, e2);
        let pc = self.cond_jump(opc, r1, r2, u32::from(isfloat), op == BinOp::Eq);
        e1.k = ExpKind::Jmp(pc);
        Ok(())
    }

    /// `e1 .. e2`, merging with a `CONCAT` just emitted for `e2` (`codeconcat`).
    fn code_concat(&mut self, e1: &ExpDesc, e2: &ExpDesc, line: u32) {
        if let Some(p) = self.previous_instruction() {
            let ie2 = self.ins(p);
            if ie2.opcode() == Some(OpCode::Concat) && ie2.a() == e1.info() + 1 {
                let n = ie2.b();
                self.free_exp(e2);
                self.set_ins(p, ie2.with_a(e1.info()).with_b(n + 1));
                return;
            }
        }
        self.code_abc(OpCode::Concat, e1.info(), 2, 0);
        self.free_exp(e2);
        self.fix_line(line);
    }
}
