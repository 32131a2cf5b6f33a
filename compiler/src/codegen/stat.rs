//! Statements (the statement rules of `lparser.c`).
//!
//! Each statement starts and ends with `freereg` equal to the number of
//! registers held by active locals: temporaries never outlive the
//! statement that created them. Loops are built as in PUC Lua 5.4:
//!
//! * `while`: test at the top, `JMP` back at the bottom;
//! * `repeat`: body and condition in one scope; if the body's locals are
//!   captured, the back edge goes through a `CLOSE`;
//! * numeric `for`: `FORPREP A` / `FORLOOP A` over `R[A..A+3]` = internal
//!   index, limit, step and the visible control variable;
//! * generic `for`: `TFORPREP A`, `TFORCALL A C`, `TFORLOOP A` over
//!   `R[A]` iterator, `R[A+1]` state, `R[A+2]` control, `R[A+3]` closing
//!   value, `R[A+4]..` the loop variables.
//!
//! The three (or four) hidden loop registers are locals named
//! `(for state)`, as in PUC 5.4, so debug information accounts for them.
//! A loop body is a block of its own: when it has captured locals, a
//! `CLOSE` at its end gives every iteration fresh upvalues.

use crate::ast::{Attrib, Block, Expr, FuncBody, Name, Return, Stat, StatKind};
use crate::opcodes::{OpCode, MAX_ARG_BX};

use super::exp::{ExpDesc, ExpKind};
use super::state::{Compiler, CtValue, JList, VarKind, MULTRET, R};

impl Compiler<'_> {
    /// Compiles a statement list followed by an optional `return`
    /// (`statlist`). `repeat_body`: the list is closed by `until` (labels
    /// before it are not at the end of their block). `end_line` is used for
    /// error positions when nothing follows.
    pub fn stat_list(
        &mut self,
        stats: &[Stat],
        ret: Option<&Return>,
        repeat_body: bool,
        end_line: u32,
    ) -> R<()> {
        let mut i = 0;
        while i < stats.len() {
            if let StatKind::Label(_) = stats[i].kind {
                i = self.label_run(stats, i, ret, repeat_body, end_line)?;
                continue;
            }
            self.statement(&stats[i])?;
            i += 1;
        }
        if let Some(r) = ret {
            self.ret_stat(r)?;
            self.fs.freereg = self.nvarstack();
        }
        Ok(())
    }

    /// A run of consecutive labels starting at `i`. PUC's `labelstat`
    /// skips the void statements after a label before creating it, so the
    /// labels of a run are created last to first. Returns the index after
    /// the run.
    fn label_run(
        &mut self,
        stats: &[Stat],
        i: usize,
        ret: Option<&Return>,
        repeat_body: bool,
        end_line: u32,
    ) -> R<usize> {
        let mut j = i;
        while j + 1 < stats.len() && matches!(stats[j + 1].kind, StatKind::Label(_)) {
            j += 1;
        }
        let last = j + 1 == stats.len() && ret.is_none() && !repeat_body;
        let errline = match (stats.get(j + 1), ret) {
            (Some(s), _) => s.line,
            (None, Some(r)) => r.line,
            (None, None) => end_line.max(stats[j].line),
        };
        for s in stats[i..=j].iter().rev() {
            if let StatKind::Label(name) = &s.kind {
                self.line = s.line;
                self.label_stat(name, s.line, last, errline)?;
                self.fs.freereg = self.nvarstack();
            }
        }
        Ok(j + 1)
    }

    /// Compiles one statement (`statement`).
    fn statement(&mut self, s: &Stat) -> R<()> {
        self.line = s.line;
        let line = s.line;
        match &s.kind {
            StatKind::Assign { targets, exprs } => self.assignment(targets, exprs, line)?,
            StatKind::Call(e) => self.call_stat(e)?,
            StatKind::Local { names, exprs } => self.local_stat(names, exprs, line)?,
            StatKind::Do(b) => self.block(b, line)?,
            StatKind::While { cond, body } => self.while_stat(cond, body, line)?,
            StatKind::Repeat { body, cond } => self.repeat_stat(body, cond, line)?,
            StatKind::If { conds, else_block, then_lines } => {
                self.if_stat(conds, then_lines, else_block.as_ref(), line)?
            }
            StatKind::NumericFor { var, start, limit, step, body } => {
                self.for_num(var, start, limit, step.as_deref(), body, line)?
            }
            StatKind::GenericFor { names, exprs, body, end_line } => {
                self.for_list(names, exprs, body, line, *end_line)?
            }
            StatKind::Function { path, method, func } => {
                self.func_stat(path, method.as_deref(), func, line)?
            }
            StatKind::LocalFunction { name, func } => self.local_func(name, func, line)?,
            StatKind::Label(name) => self.label_stat(name, line, false, line)?,
            StatKind::Goto(name) => self.goto_stat(name, line)?,
            StatKind::Break => {
                let j = self.jump();
                self.new_goto_entry(b"break", line, Some(j));
            }
        }
        self.fs.freereg = self.nvarstack();
        Ok(())
    }

    /// `do ... end` and other plain blocks (`block`).
    fn block(&mut self, b: &Block, line: u32) -> R<()> {
        self.enter_block(false);
        self.stat_list(&b.stats, b.ret.as_deref(), false, line)?;
        self.leave_block(self.line)?;
        Ok(())
    }

    /// A function call used as a statement: it keeps no results.
    fn call_stat(&mut self, e: &Expr) -> R<()> {
        let v = self.expr(e)?;
        match v.k {
            ExpKind::Call(pc) => {
                self.set_call_results(pc, 1);
                Ok(())
            }
            _ => Err(self.error(e.line, "syntax error")),
        }
    }

    // ----------------------------------------------------------------
    // Assignment

    /// `targets = exprs` (`restassign`, iteratively).
    fn assignment(&mut self, targets: &[Expr], exprs: &[Expr], line: u32) -> R<()> {
        if let [target] = targets {
            return self.single_assignment(target, exprs, line);
        }
        let mut lhs: Vec<ExpDesc> = Vec::with_capacity(targets.len());
        for t in targets {
            let v = self.expr(t)?;
            if !v.is_var() {
                return Err(self.error(t.line, "syntax error"));
            }
            if !lhs.is_empty() && !v.is_indexed() {
                self.check_conflict(&mut lhs, &v)?;
            }
            self.check_readonly(&v, t.line)?;
            lhs.push(v);
        }
        self.line = line;
        let nvars = lhs.len();
        let mut e = self.exp_list(exprs)?;
        let mut rest = nvars;
        if exprs.len() != nvars {
            self.adjust_assign(nvars, exprs.len(), &mut e)?;
        } else {
            self.set_one_ret(&mut e);
            rest -= 1;
            if let Some(last) = lhs.last() {
                self.store_var(last, &mut e)?;
            }
        }
        for var in lhs[..rest].iter().rev() {
            let mut e = ExpDesc::new(ExpKind::NonReloc(self.fs.freereg - 1));
            self.store_var(var, &mut e)?;
        }
        Ok(())
    }

    /// An assignment to one target: [`Self::assignment`] without the list
    /// of targets (nothing to protect from conflicts).
    fn single_assignment(&mut self, target: &Expr, exprs: &[Expr], line: u32) -> R<()> {
        let var = self.expr(target)?;
        if !var.is_var() {
            return Err(self.error(target.line, "syntax error"));
        }
        self.check_readonly(&var, target.line)?;
        self.line = line;
        let mut e = self.exp_list(exprs)?;
        if exprs.len() != 1 {
            self.adjust_assign(1, exprs.len(), &mut e)?;
            e = ExpDesc::new(ExpKind::NonReloc(self.fs.freereg - 1));
        } else {
            self.set_one_ret(&mut e);
        }
        self.store_var(&var, &mut e)
    }

    /// Protects earlier table targets from an assignment to the local or
    /// upvalue `v` they use (`check_conflict`).
    fn check_conflict(&mut self, lhs: &mut [ExpDesc], v: &ExpDesc) -> R<()> {
        let extra = self.fs.freereg;
        let mut conflict = false;
        for lh in lhs.iter_mut() {
            match (&mut lh.k, &v.k) {
                (ExpKind::IndexUp { t, idx }, ExpKind::Upval(u)) if *t == *u => {
                    conflict = true;
                    lh.k = ExpKind::IndexStr { t: extra, idx: *idx };
                }
                (
                    ExpKind::Indexed { t, .. }
                    | ExpKind::IndexI { t, .. }
                    | ExpKind::IndexStr { t, .. },
                    ExpKind::Local { ridx, .. },
                ) if *t == *ridx => {
                    conflict = true;
                    *t = extra;
                }
                _ => {}
            }
            if let (ExpKind::Indexed { idx, .. }, ExpKind::Local { ridx, .. }) = (&mut lh.k, &v.k) {
                if *idx == *ridx {
                    conflict = true;
                    *idx = extra;
                }
            }
        }
        if conflict {
            match v.k {
                ExpKind::Local { ridx, .. } => self.code_abc(OpCode::Move, extra, ridx, 0),
                ExpKind::Upval(u) => self.code_abc(OpCode::GetUpval, extra, u, 0),
                _ => 0,
            };
            self.reserve_regs(1)?;
        }
        Ok(())
    }

    /// Adjusts `nexps` values (the last in `e`) to `nvars` (`adjust_assign`).
    fn adjust_assign(&mut self, nvars: usize, nexps: usize, e: &mut ExpDesc) -> R<()> {
        let needed = nvars as i64 - nexps as i64;
        if e.is_multret() {
            let extra = (needed + 1).max(0);
            self.set_returns(e, extra as i32)?;
        } else {
            if !matches!(e.k, ExpKind::Void) {
                self.exp_to_next_reg(e)?;
            }
            if needed > 0 {
                let from = self.fs.freereg;
                self.load_nil(from, needed as u32);
            }
        }
        if needed > 0 {
            self.reserve_regs(needed as u32)?;
        } else {
            self.fs.freereg = (i64::from(self.fs.freereg) + needed) as u32;
        }
        Ok(())
    }

    // ----------------------------------------------------------------
    // Locals and functions

    /// `local names = exprs` (`localstat`).
    fn local_stat(&mut self, names: &[(Name, Attrib)], exprs: &[Expr], line: u32) -> R<()> {
        let mut toclose: Option<usize> = None;
        let mut vidx = 0;
        for (i, (name, attrib)) in names.iter().enumerate() {
            let near = local_near(names, i, exprs);
            vidx = self.new_local_var(name, line, near)?;
            let kind = match attrib {
                Attrib::None => VarKind::Reg,
                Attrib::Const => VarKind::Const,
                Attrib::Close => VarKind::Close,
            };
            self.local_var(vidx).kind = kind;
            if kind == VarKind::Close {
                if toclose.is_some() {
                    let msg = "multiple to-be-closed variables in local list";
                    return Err(self.error(line, msg));
                }
                toclose = Some(self.fs.nactvar + i);
            }
        }
        let nvars = names.len();
        let mut e = self.exp_list(exprs)?;
        let is_ctc = nvars == exprs.len() && self.local_var(vidx).kind == VarKind::Const;
        if let Some(value) = is_ctc.then(|| self.exp_to_const(&e)).flatten() {
            let var = self.local_var(vidx);
            var.kind = VarKind::CompileTime;
            var.value = Some(value);
            self.adjust_local_vars(nvars - 1);
            self.fs.nactvar += 1;
        } else {
            self.adjust_assign(nvars, exprs.len(), &mut e)?;
            self.adjust_local_vars(nvars);
        }
        if let Some(level) = toclose {
            self.mark_to_be_closed();
            let reg = self.reg_level(level);
            self.code_abc(OpCode::Tbc, reg, 0, 0);
        }
        Ok(())
    }

    /// The compile-time value of `e`, if it is a constant (`luaK_exp2const`).
    fn exp_to_const(&self, e: &ExpDesc) -> Option<CtValue> {
        if e.has_jumps() {
            return None;
        }
        match &e.k {
            ExpKind::False => Some(CtValue::Bool(false)),
            ExpKind::True => Some(CtValue::Bool(true)),
            ExpKind::Nil => Some(CtValue::Nil),
            ExpKind::KStr(s) => Some(CtValue::Str(s.to_vec())),
            ExpKind::Const(i) => self.actvar.get(*i).and_then(|v| v.value.clone()),
            ExpKind::KInt(i) => Some(CtValue::Int(*i)),
            ExpKind::KFlt(f) => Some(CtValue::Flt(*f)),
            _ => None,
        }
    }

    /// `local function name body` (`localfunc`).
    fn local_func(&mut self, name: &[u8], func: &FuncBody, line: u32) -> R<()> {
        let fvar = self.fs.nactvar;
        self.new_local_var(name, line, Some("("))?;
        self.adjust_local_vars(1);
        self.body(func, false, func.line)?;
        let pidx = self.local_var(fvar).pidx;
        let pc = self.fs.pc() as u32;
        if let Some(lv) = self.fs.f.loc_vars.get_mut(pidx) {
            lv.start_pc = pc;
        }
        Ok(())
    }

    /// `function a.b.c:m body` (`funcstat`).
    fn func_stat(
        &mut self,
        path: &[Name],
        method: Option<&[u8]>,
        func: &FuncBody,
        line: u32,
    ) -> R<()> {
        let Some((first, rest)) = path.split_first() else {
            return Err(self.error(line, "syntax error"));
        };
        let mut v = self.single_var(first, line)?;
        for name in rest.iter().map(|n| &**n).chain(method) {
            self.exp_to_any_reg_up(&mut v)?;
            let mut key = ExpDesc::new(ExpKind::KStr(Name::new(name)));
            self.indexed(&mut v, &mut key)?;
        }
        let mut b = self.body(func, method.is_some(), line)?;
        self.check_readonly(&v, func.end_line)?;
        self.store_var(&v, &mut b)?;
        self.fix_line(line);
        Ok(())
    }

    /// `return exprs` (`retstat`).
    fn ret_stat(&mut self, r: &Return) -> R<()> {
        self.line = r.line;
        let mut first = self.nvarstack();
        let nret: i32 = if r.exprs.is_empty() {
            0
        } else {
            let mut e = self.exp_list(&r.exprs)?;
            if e.is_multret() {
                self.set_multret(&mut e)?;
                let inside_tbc = self.fs.blocks.last().is_some_and(|b| b.inside_tbc);
                if let (ExpKind::Call(pc), 1, false) = (&e.k, r.exprs.len(), inside_tbc) {
                    let i = self.ins(*pc);
                    let i = crate::opcodes::Instruction((i.0 & !0x7F) | OpCode::TailCall as u32);
                    self.set_ins(*pc, i);
                }
                MULTRET
            } else if r.exprs.len() == 1 {
                first = self.exp_to_any_reg(&mut e)?;
                1
            } else {
                self.exp_to_next_reg(&mut e)?;
                r.exprs.len() as i32
            }
        };
        self.ret(first, nret);
        Ok(())
    }

    // ----------------------------------------------------------------
    // Control structures

    /// Compiles a condition; returns its false list (`cond`).
    fn cond(&mut self, e: &Expr) -> R<JList> {
        let mut v = self.expr(e)?;
        if matches!(v.k, ExpKind::Nil) {
            v.k = ExpKind::False;
        }
        self.go_if_true(&mut v)?;
        Ok(v.f)
    }

    /// `while cond do body end`.
    fn while_stat(&mut self, cond: &Expr, body: &Block, line: u32) -> R<()> {
        let whileinit = self.get_label();
        let condexit = self.cond(cond)?;
        self.enter_block(true);
        self.block(body, line)?;
        self.jump_to(whileinit)?;
        self.leave_block(self.line)?;
        self.patch_to_here(condexit)
    }

    /// `repeat body until cond`.
    fn repeat_stat(&mut self, body: &Block, cond: &Expr, line: u32) -> R<()> {
        let repeat_init = self.get_label();
        self.enter_block(true);
        self.enter_block(false);
        self.stat_list(&body.stats, body.ret.as_deref(), true, cond.line.max(line))?;
        let mut condexit = self.cond(cond)?;
        let bl2 = self.leave_block(self.line)?;
        if bl2.upval {
            let exit = self.jump();
            self.patch_to_here(condexit)?;
            let level = self.reg_level(bl2.nactvar);
            self.code_abc(OpCode::Close, level, 0, 0);
            condexit = Some(self.jump());
            self.patch_to_here(Some(exit))?;
        }
        self.patch_list(condexit, repeat_init)?;
        self.leave_block(self.line)?;
        Ok(())
    }

    /// `if ... then ... elseif ... else ... end` (`ifstat`).
    fn if_stat(
        &mut self,
        conds: &[(Expr, Block)],
        then_lines: &[u32],
        else_block: Option<&Block>,
        line: u32,
    ) -> R<()> {
        let mut escapelist: JList = None;
        for (i, (c, b)) in conds.iter().enumerate() {
            let more = i + 1 < conds.len() || else_block.is_some();
            let then_line = then_lines.get(i).copied().unwrap_or(c.line);
            self.test_then_block(c, then_line, b, more, &mut escapelist)?;
        }
        if let Some(b) = else_block {
            self.block(b, line)?;
        }
        self.patch_to_here(escapelist)
    }

    /// One `cond then block` part (`test_then_block`), with PUC's special
    /// case for a block starting with `break`.
    fn test_then_block(
        &mut self,
        c: &Expr,
        then_line: u32,
        b: &Block,
        more: bool,
        escapelist: &mut JList,
    ) -> R<()> {
        let mut v = self.expr(c)?;
        // PUC emits the test after reading `then`.
        self.line = then_line;
        let jf: JList;
        let rest: &[Stat];
        match b.stats.first() {
            Some(Stat { kind: StatKind::Break, line: bline }) => {
                self.go_if_false(&mut v)?;
                self.enter_block(false);
                self.new_goto_entry(b"break", *bline, v.t);
                if b.stats.len() == 1 && b.ret.is_none() {
                    self.leave_block(self.line)?;
                    return Ok(());
                }
                jf = Some(self.jump());
                rest = &b.stats[1..];
            }
            _ => {
                self.go_if_true(&mut v)?;
                self.enter_block(false);
                jf = v.f;
                rest = &b.stats;
            }
        }
        self.stat_list(rest, b.ret.as_deref(), false, self.line)?;
        self.leave_block(self.line)?;
        if more {
            let j = self.jump();
            self.concat(escapelist, Some(j))?;
        }
        self.patch_to_here(jf)
    }

    /// Points the `FORPREP`/`FORLOOP` family jump at `pc` to `dest`.
    fn fix_for_jump(&mut self, pc: usize, dest: usize, back: bool) -> R<()> {
        let offset = if back { pc + 1 - dest } else { dest - (pc + 1) };
        if offset > MAX_ARG_BX as usize {
            return Err(self.error_near(self.line, "control structure too long", None));
        }
        let i = self.ins(pc).with_bx(offset as u32);
        self.set_ins(pc, i);
        Ok(())
    }

    /// The body of a `for` loop (`forbody`).
    fn for_body(
        &mut self,
        base: u32,
        line: u32,
        nvars: usize,
        generic: bool,
        body: &Block,
    ) -> R<()> {
        let (prep_op, loop_op) = if generic {
            (OpCode::TForPrep, OpCode::TForLoop)
        } else {
            (OpCode::ForPrep, OpCode::ForLoop)
        };
        let prep = self.code_abx(prep_op, base, 0);
        self.enter_block(false);
        self.adjust_local_vars(nvars);
        self.reserve_regs(nvars as u32)?;
        self.block(body, line)?;
        self.leave_block(self.line)?;
        let here = self.get_label();
        self.fix_for_jump(prep, here, false)?;
        if generic {
            self.code_abc(OpCode::TForCall, base, 0, nvars as u32);
            self.fix_line(line);
        }
        let endfor = self.code_abx(loop_op, base, 0);
        self.fix_for_jump(endfor, prep + 1, true)?;
        self.fix_line(line);
        Ok(())
    }

    /// Numeric `for` (`forstat` + `fornum`).
    fn for_num(
        &mut self,
        var: &[u8],
        start: &Expr,
        limit: &Expr,
        step: Option<&Expr>,
        body: &Block,
        line: u32,
    ) -> R<()> {
        self.enter_block(true);
        let base = self.fs.freereg;
        for _ in 0..3 {
            self.new_local_var(b"(for state)", line, Some("="))?;
        }
        self.new_local_var(var, line, Some("="))?;
        for e in [Some(start), Some(limit), step].into_iter().flatten() {
            let mut v = self.expr(e)?;
            self.exp_to_next_reg(&mut v)?;
        }
        if step.is_none() {
            let r = self.fs.freereg;
            self.load_int(r, 1)?;
            self.reserve_regs(1)?;
        }
        self.adjust_local_vars(3);
        self.for_body(base, line, 1, false, body)?;
        self.leave_block(self.line)?;
        Ok(())
    }

    /// Generic `for` (`forstat` + `forlist`).
    fn for_list(
        &mut self,
        names: &[Name],
        exprs: &[Expr],
        body: &Block,
        line: u32,
        end_line: u32,
    ) -> R<()> {
        self.enter_block(true);
        let base = self.fs.freereg;
        for _ in 0..4 {
            self.new_local_var(b"(for state)", line, Some(","))?;
        }
        for (i, n) in names.iter().enumerate() {
            let near = if i + 1 < names.len() { "," } else { "in" };
            self.new_local_var(n, line, Some(near))?;
        }
        let eline = exprs.first().map_or(line, |e| e.line);
        self.line = eline;
        let mut e = self.exp_list(exprs)?;
        self.adjust_assign(4, exprs.len(), &mut e)?;
        self.adjust_local_vars(4);
        self.mark_to_be_closed();
        self.check_stack(3)?;
        self.for_body(base, eline, names.len(), true, body)?;
        // The loop scope closes after `end` was read.
        self.line = end_line;
        self.leave_block(end_line)?;
        Ok(())
    }
}

/// The token PUC is looking at after the `i`-th name of a `local`
/// statement (for the "too many local variables" message).
fn local_near(names: &[(Name, Attrib)], i: usize, exprs: &[Expr]) -> Option<&'static str> {
    if names[i].1 != Attrib::None {
        Some("<")
    } else if i + 1 < names.len() {
        Some(",")
    } else if !exprs.is_empty() {
        Some("=")
    } else {
        None
    }
}
