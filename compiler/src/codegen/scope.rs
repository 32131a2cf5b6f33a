//! Variables, upvalues, blocks, labels and gotos (from `lparser.c`).
//!
//! Locals live in `Compiler::actvar` in declaration order; a function's
//! locals start at its `first_local`. A local is *declared* by
//! [`Compiler::new_local_var`] and becomes *active* (visible, with a
//! register and a debug record) with [`Compiler::adjust_local_vars`]; the
//! gap lets `local x = x` see the outer `x`. Compile-time constants
//! (`local k <const> = 10`) are counted as active but take no register, so
//! the register of a variable is not its index: [`Compiler::reg_level`]
//! computes it.
//!
//! Name resolution ([`Compiler::single_var`]) searches the current
//! function's active locals, then its upvalues, then recursively the
//! enclosing functions, creating upvalues on the way down. Capturing a
//! local marks its block so that leaving the block emits `CLOSE`.
//!
//! Gotos follow Lua 5.4: a label is visible in its block and nested blocks;
//! a backward `goto` is resolved at once (closing upvalues if it leaves the
//! scope of a local); a forward one stays pending, moving outward as blocks
//! close (its `nactvar` shrinks to the block's level and its `close` flag
//! records whether it leaves captured variables), until a label with its
//! name is declared. Jumping into the scope of a local is an error, except
//! that a label at the end of a block (followed only by void statements)
//! counts as outside the scope of the block's locals. `break` is a goto to
//! the implicit label "break" created when a loop block is left.

use crate::ast::Name;
use crate::opcodes::OpCode;
use crate::proto::{LocVar, UpvalDesc};

use super::exp::{ExpDesc, ExpKind};
use super::state::{BlockCnt, Compiler, LabelDesc, VarDesc, VarKind, R};

/// Maximum number of local variables per function (`MAXVARS`).
pub(crate) const MAX_VARS: usize = 200;
/// Maximum number of upvalues per function (`MAXUPVAL`).
pub(crate) const MAX_UPVAL: usize = 255;

impl Compiler<'_> {
    // ----------------------------------------------------------------
    // Local variables

    /// Declares a new local (not yet active); returns its function index.
    /// `near` is the token PUC would be looking at (for the limit error).
    pub fn new_local_var(&mut self, name: &[u8], line: u32, near: Option<&str>) -> R<usize> {
        let n = self.actvar.len() + 1 - self.fs.first_local;
        if n > MAX_VARS {
            return Err(self.error_limit(MAX_VARS, "local variables", line, near));
        }
        self.actvar.push(VarDesc {
            name: name.to_vec(),
            kind: VarKind::Reg,
            ridx: 0,
            pidx: 0,
            value: None,
        });
        Ok(self.actvar.len() - 1 - self.fs.first_local)
    }

    /// The descriptor of local `vidx` of the current function.
    pub fn local_var(&mut self, vidx: usize) -> &mut VarDesc {
        let i = self.fs.first_local + vidx;
        &mut self.actvar[i]
    }

    /// Activates the last `nvars` declared locals (`adjustlocalvars`).
    pub fn adjust_local_vars(&mut self, nvars: usize) {
        let first = self.nvarstack();
        for reglevel in first..first + nvars as u32 {
            let vidx = self.fs.nactvar;
            self.fs.nactvar += 1;
            let pc = self.fs.pc() as u32;
            let name = self.local_var(vidx).name.clone();
            let pidx = self.fs.f.loc_vars.len();
            self.fs.f.loc_vars.push(LocVar { name, start_pc: pc, end_pc: 0 });
            let var = self.local_var(vidx);
            var.ridx = reglevel;
            var.pidx = pidx;
        }
    }

    /// Ends the scope of locals down to `tolevel` (`removevars`).
    fn remove_vars(&mut self, tolevel: usize) {
        let pc = self.fs.pc() as u32;
        let new_len = self.actvar.len().saturating_sub(self.fs.nactvar.saturating_sub(tolevel));
        while self.fs.nactvar > tolevel {
            self.fs.nactvar -= 1;
            let var = &self.actvar[self.fs.first_local + self.fs.nactvar];
            if var.kind != VarKind::CompileTime {
                if let Some(lv) = self.fs.f.loc_vars.get_mut(var.pidx) {
                    lv.end_pc = pc;
                }
            }
        }
        self.actvar.truncate(new_len);
    }

    // ----------------------------------------------------------------
    // Name resolution

    /// The function `depth` levels out (0 = current).
    fn level_mut(&mut self, depth: usize) -> &mut crate::codegen::state::FuncState {
        if depth == 0 {
            &mut self.fs
        } else {
            let n = self.outer.len();
            &mut self.outer[n - depth]
        }
    }

    fn level(&self, depth: usize) -> &crate::codegen::state::FuncState {
        if depth == 0 {
            &self.fs
        } else {
            &self.outer[self.outer.len() - depth]
        }
    }

    /// Looks for an active local named `name` at `depth` (`searchvar`).
    fn search_var(&self, depth: usize, name: &[u8]) -> Option<ExpDesc> {
        let fs = self.level(depth);
        for i in (0..fs.nactvar).rev() {
            let vd = &self.actvar[fs.first_local + i];
            if vd.name == name {
                let k = if vd.kind == VarKind::CompileTime {
                    ExpKind::Const(fs.first_local + i)
                } else {
                    ExpKind::Local { ridx: vd.ridx, vidx: i }
                };
                return Some(ExpDesc::new(k));
            }
        }
        None
    }

    /// Marks the block where local `level` lives as having a captured
    /// variable (`markupval`).
    fn mark_upval(&mut self, depth: usize, level: usize) {
        let fs = self.level_mut(depth);
        if let Some(bl) = fs.blocks.iter_mut().rev().find(|bl| bl.nactvar <= level) {
            bl.upval = true;
        }
        fs.needclose = true;
    }

    /// Marks the current block as holding a to-be-closed variable.
    pub fn mark_to_be_closed(&mut self) {
        if let Some(bl) = self.fs.blocks.last_mut() {
            bl.upval = true;
            bl.inside_tbc = true;
        }
        self.fs.needclose = true;
    }

    /// Adds an upvalue at `depth` for `v`, a variable of the next level out.
    fn new_upvalue(&mut self, depth: usize, name: &[u8], v: &ExpDesc, line: u32) -> R<u32> {
        let (in_stack, index, kind) = match v.k {
            ExpKind::Local { ridx, vidx } => {
                let prev = self.level(depth + 1);
                (true, ridx, self.actvar[prev.first_local + vidx].kind as u8)
            }
            ExpKind::Upval(u) => {
                let prev = self.level(depth + 1);
                (false, u, prev.f.upvalues.get(u as usize).map_or(0, |d| d.kind))
            }
            _ => (false, 0, 0),
        };
        if self.level(depth).f.upvalues.len() + 1 > MAX_UPVAL {
            return Err(self.error_limit_at(depth, MAX_UPVAL, "upvalues", line));
        }
        let ups = &mut self.level_mut(depth).f.upvalues;
        ups.push(UpvalDesc { name: name.to_vec(), in_stack, index: index as u8, kind });
        Ok((ups.len() - 1) as u32)
    }

    /// `errorlimit` for the function at `depth`.
    fn error_limit_at(
        &self,
        depth: usize,
        limit: usize,
        what: &str,
        line: u32,
    ) -> crate::SyntaxError {
        let where_ = match self.level(depth).f.line_defined {
            0 => "main function".to_string(),
            l => format!("function at line {l}"),
        };
        self.error(line, &format!("too many {what} (limit is {limit}) in {where_}"))
    }

    /// Resolves `name` at `depth` (`singlevaraux`); `Void` means global.
    fn single_var_aux(&mut self, depth: usize, name: &[u8], base: bool, line: u32) -> R<ExpDesc> {
        if depth > self.outer.len() {
            return Ok(ExpDesc::new(ExpKind::Void));
        }
        if let Some(v) = self.search_var(depth, name) {
            if let (ExpKind::Local { vidx, .. }, false) = (&v.k, base) {
                self.mark_upval(depth, *vidx);
            }
            return Ok(v);
        }
        let ups = &self.level(depth).f.upvalues;
        if let Some(idx) = ups.iter().position(|u| u.name == name) {
            return Ok(ExpDesc::new(ExpKind::Upval(idx as u32)));
        }
        let v = self.single_var_aux(depth + 1, name, false, line)?;
        match v.k {
            ExpKind::Local { .. } | ExpKind::Upval(_) => {
                let idx = self.new_upvalue(depth, name, &v, line)?;
                Ok(ExpDesc::new(ExpKind::Upval(idx)))
            }
            _ => Ok(v),
        }
    }

    /// Resolves a variable name, globals becoming `_ENV.name` (`singlevar`).
    pub fn single_var(&mut self, name: &[u8], line: u32) -> R<ExpDesc> {
        let var = self.single_var_aux(0, name, true, line)?;
        if !matches!(var.k, ExpKind::Void) {
            return Ok(var);
        }
        let mut env = self.single_var_aux(0, b"_ENV", true, line)?;
        // As Lua 5.4.6: `_ENV` could be a compile-time constant.
        self.exp_to_any_reg_up(&mut env)?;
        let mut key = ExpDesc::new(ExpKind::KStr(Name::new(name)));
        self.indexed(&mut env, &mut key)?;
        Ok(env)
    }

    /// Fails if `e` is a read-only variable (`check_readonly`).
    pub fn check_readonly(&self, e: &ExpDesc, line: u32) -> R<()> {
        let name = match e.k {
            ExpKind::Const(i) => Some(&self.actvar[i].name),
            ExpKind::Local { vidx, .. } => {
                let vd = &self.actvar[self.fs.first_local + vidx];
                (vd.kind != VarKind::Reg).then_some(&vd.name)
            }
            ExpKind::Upval(u) => {
                self.fs.f.upvalues.get(u as usize).filter(|d| d.kind != 0).map(|d| &d.name)
            }
            _ => None,
        };
        match name {
            Some(n) => {
                let n = String::from_utf8_lossy(n);
                Err(self.error(line, &format!("attempt to assign to const variable '{n}'")))
            }
            None => Ok(()),
        }
    }

    // ----------------------------------------------------------------
    // Blocks

    /// Opens a block (`enterblock`).
    pub fn enter_block(&mut self, is_loop: bool) {
        let inside_tbc = self.fs.blocks.last().is_some_and(|b| b.inside_tbc);
        self.fs.blocks.push(BlockCnt {
            first_label: self.labels.len(),
            first_goto: self.gotos.len(),
            nactvar: self.fs.nactvar,
            upval: false,
            is_loop,
            inside_tbc,
        });
    }

    /// Closes the current block (`leaveblock`); `line` is used for errors
    /// about undefined gotos. Returns the block's record.
    pub fn leave_block(&mut self, line: u32) -> R<BlockCnt> {
        let Some(bl) = self.fs.blocks.last().cloned() else {
            return Err(self.error(line, "internal error: no block"));
        };
        let stklevel = self.reg_level(bl.nactvar);
        let mut hasclose = false;
        if bl.is_loop {
            hasclose = self.create_label(b"break", 0, false, line)?;
        }
        let has_previous = self.fs.blocks.len() > 1;
        if !hasclose && has_previous && bl.upval {
            self.code_abc(OpCode::Close, stklevel, 0, 0);
        }
        self.fs.blocks.pop();
        if has_previous {
            // Before `remove_vars`: the levels of the gotos need the block's locals.
            self.move_gotos_out(&bl);
        }
        self.remove_vars(bl.nactvar);
        self.fs.freereg = stklevel;
        self.labels.truncate(bl.first_label);
        if !has_previous {
            if let Some(gt) = self.gotos.get(bl.first_goto) {
                return Err(self.undef_goto(gt, line));
            }
        }
        Ok(bl)
    }

    /// Moves the pending gotos of a closing block to the enclosing one.
    fn move_gotos_out(&mut self, bl: &BlockCnt) {
        let bl_level = self.reg_level(bl.nactvar);
        for i in bl.first_goto..self.gotos.len() {
            let gl = self.reg_level(self.gotos[i].nactvar);
            let gt = &mut self.gotos[i];
            if gl > bl_level {
                gt.close |= bl.upval;
            }
            gt.nactvar = bl.nactvar;
        }
    }

    /// The error for a goto without a visible label (`undefgoto`).
    fn undef_goto(&self, gt: &LabelDesc, line: u32) -> crate::SyntaxError {
        let msg = if gt.name == b"break" {
            format!("break outside loop at line {}", gt.line)
        } else {
            let name = String::from_utf8_lossy(&gt.name);
            format!("no visible label '{name}' for <goto> at line {}", gt.line)
        };
        self.error(line, &msg)
    }

    // ----------------------------------------------------------------
    // Labels and gotos

    /// Adds a pending goto.
    pub fn new_goto_entry(&mut self, name: &[u8], line: u32, pc: Option<usize>) {
        self.gotos.push(LabelDesc {
            name: name.to_vec(),
            pc,
            line,
            nactvar: self.fs.nactvar,
            close: false,
        });
    }

    /// A visible label of the current function named `name` (`findlabel`).
    pub fn find_label(&self, name: &[u8]) -> Option<&LabelDesc> {
        self.labels[self.fs.first_label..].iter().find(|l| l.name == name)
    }

    /// Creates a label at the current position and resolves the pending
    /// gotos to it (`createlabel`). `last`: the label ends its block.
    /// Returns true if a `CLOSE` was emitted.
    pub fn create_label(&mut self, name: &[u8], line: u32, last: bool, errline: u32) -> R<bool> {
        let pc = self.get_label();
        let nactvar = match (last, self.fs.blocks.last()) {
            (true, Some(bl)) => bl.nactvar,
            _ => self.fs.nactvar,
        };
        let label = LabelDesc { name: name.to_vec(), pc: Some(pc), line, nactvar, close: false };
        self.labels.push(label.clone());
        if self.solve_gotos(&label, errline)? {
            let level = self.nvarstack();
            self.code_abc(OpCode::Close, level, 0, 0);
            return Ok(true);
        }
        Ok(false)
    }

    /// Resolves the pending gotos of the current block that match `lb`.
    fn solve_gotos(&mut self, lb: &LabelDesc, errline: u32) -> R<bool> {
        let first = self.fs.blocks.last().map_or(0, |b| b.first_goto);
        let mut i = first;
        let mut needsclose = false;
        while i < self.gotos.len() {
            if self.gotos[i].name == lb.name {
                needsclose |= self.gotos[i].close;
                self.solve_goto(i, lb, errline)?;
            } else {
                i += 1;
            }
        }
        Ok(needsclose)
    }

    /// Resolves goto `g` to `lb` and removes it from the pending list.
    fn solve_goto(&mut self, g: usize, lb: &LabelDesc, errline: u32) -> R<()> {
        let gt = self.gotos.remove(g);
        if gt.nactvar < lb.nactvar {
            let var = &self.actvar[self.fs.first_local + gt.nactvar].name;
            let msg = format!(
                "<goto {}> at line {} jumps into the scope of local '{}'",
                String::from_utf8_lossy(&gt.name),
                gt.line,
                String::from_utf8_lossy(var)
            );
            return Err(self.error(errline, &msg));
        }
        self.patch_list(gt.pc, lb.pc.unwrap_or(0))
    }

    /// Compiles `goto name` (`gotostat`).
    pub fn goto_stat(&mut self, name: &[u8], line: u32) -> R<()> {
        match self.find_label(name).map(|l| (l.nactvar, l.pc)) {
            None => {
                let j = self.jump();
                self.new_goto_entry(name, line, Some(j));
            }
            Some((nactvar, pc)) => {
                let lblevel = self.reg_level(nactvar);
                if self.nvarstack() > lblevel {
                    self.code_abc(OpCode::Close, lblevel, 0, 0);
                }
                let j = self.jump();
                self.patch_list(Some(j), pc.unwrap_or(0))?;
            }
        }
        Ok(())
    }

    /// Compiles `::name::` (`labelstat` after skipping void statements).
    pub fn label_stat(&mut self, name: &[u8], line: u32, last: bool, errline: u32) -> R<()> {
        if let Some(lb) = self.find_label(name) {
            let msg = format!(
                "label '{}' already defined on line {}",
                String::from_utf8_lossy(name),
                lb.line
            );
            return Err(self.error(errline, &msg));
        }
        self.create_label(name, line, last, errline)?;
        Ok(())
    }
}
