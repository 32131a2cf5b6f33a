//! Expressions of the AST (the expression rules of `lparser.c`).
//!
//! The walk follows the order in which PUC Lua's parser meets the
//! constructs, so that the generated code is the same: operands are
//! compiled left to right, [`Compiler::infix`] runs between the operands of
//! a binary operator, and suffixes (`.x`, `[k]`, `(args)`, `:m(args)`) are
//! applied one by one to the expression built so far.
//!
//! Long chains are handled without deep recursion: a left-associative
//! chain of binary operators (`a + b + c + ...`, which the parser nests to
//! the left) and a chain of suffixes (`a.b.c(d)[e]...`) are flattened into
//! a vector and processed in a loop, as PUC's `subexpr` and `suffixedexp`
//! loops do. Other nesting (parentheses, right-associative operators,
//! nested functions and tables) recurses, and is bounded by the parser's
//! nesting limit.
//!
//! Lines: `self.line` plays the role of `ls->lastline`; it is set from the
//! AST when entering an expression, and instructions whose line PUC fixes
//! explicitly (operators, calls) get the operator's or the call's line.

use crate::ast::{BinOp, Expr, ExprKind, Field, Fields, FuncBody};
use crate::opcodes::{OpCode, FIELDS_PER_FLUSH, MAX_ARG_BX, MAX_ARG_C};

use super::exp::{ExpDesc, ExpKind};
use super::state::{Compiler, FuncState, MULTRET, R};

/// State of a table constructor (`ConsControl`).
struct ConsControl {
    /// Last list item read, not yet stored.
    v: ExpDesc,
    /// Register of the table.
    t: u32,
    /// Number of record (hash) fields.
    nh: u32,
    /// Number of list items already stored.
    na: u32,
    /// Number of list items pending.
    tostore: u32,
}

/// The first token of `e` as PUC's `near` would print it, when the AST
/// determines it.
fn first_token(e: &Expr) -> Option<String> {
    let mut e = e;
    loop {
        return Some(match &e.kind {
            ExprKind::Name(n) => String::from_utf8_lossy(n).into_owned(),
            ExprKind::Int(i) if *i >= 0 => i.to_string(),
            ExprKind::Nil => "nil".into(),
            ExprKind::True => "true".into(),
            ExprKind::False => "false".into(),
            ExprKind::VarArg => "...".into(),
            ExprKind::Function(_) => "function".into(),
            ExprKind::Table(_) => "{".into(),
            ExprKind::Paren(_) => "(".into(),
            ExprKind::Un(op, _) => match op {
                crate::ast::UnOp::Neg => "-",
                crate::ast::UnOp::Not => "not",
                crate::ast::UnOp::Len => "#",
                crate::ast::UnOp::BNot => "~",
            }
            .into(),
            ExprKind::Bin(_, operands) | ExprKind::Index(operands) => {
                e = &operands.0;
                continue;
            }
            ExprKind::Call(l, _) | ExprKind::MethodCall(l, _) => {
                e = l;
                continue;
            }
            _ => return None,
        });
    }
}

/// `luaO_ceillog2`: ceil(log2(x)) for x >= 1.
fn ceil_log2(x: u32) -> u32 {
    32 - (x - 1).leading_zeros()
}

impl Compiler<'_> {
    /// Compiles an expression (`expr`).
    pub fn expr(&mut self, e: &Expr) -> R<ExpDesc> {
        match &e.kind {
            ExprKind::Bin(..) => self.bin_chain(e),
            ExprKind::Un(op, sub) => {
                let mut v = self.expr(sub)?;
                self.prefix(*op, &mut v, e.line)?;
                Ok(v)
            }
            ExprKind::Index(..) | ExprKind::Call(..) | ExprKind::MethodCall(..) => self.suffixed(e),
            _ => self.simple(e),
        }
    }

    /// A left-nested chain of binary operators, iteratively (`subexpr`).
    fn bin_chain(&mut self, e: &Expr) -> R<ExpDesc> {
        // the operators, outermost first: the first few on the stack, as
        // in `suffixed`
        let mut near: [Option<(BinOp, &Expr, u32)>; 4] = [None; 4];
        let mut far: Vec<(BinOp, &Expr, u32)> = Vec::new();
        let mut n = 0;
        let mut cur = e;
        while let ExprKind::Bin(op, operands) = &cur.kind {
            let (l, r) = &**operands;
            match near.get_mut(n) {
                Some(slot) => *slot = Some((*op, r, cur.line)),
                None => far.push((*op, r, cur.line)),
            }
            n += 1;
            cur = l;
        }
        let mut v = self.expr(cur)?;
        for (op, r, line) in near.iter().flatten().copied().chain(far).rev() {
            self.line = line;
            self.infix(op, &mut v)?;
            let mut v2 = self.expr(r)?;
            self.posfix(op, &mut v, &mut v2, line)?;
        }
        Ok(v)
    }

    /// Atoms: literals, `...`, names, parentheses, constructors, functions.
    fn simple(&mut self, e: &Expr) -> R<ExpDesc> {
        self.line = e.line;
        let k = match &e.kind {
            ExprKind::Nil => ExpKind::Nil,
            ExprKind::True => ExpKind::True,
            ExprKind::False => ExpKind::False,
            ExprKind::Int(i) => ExpKind::KInt(*i),
            ExprKind::Float(f) => ExpKind::KFlt(*f),
            ExprKind::Str(s) => ExpKind::KStr(s.clone()),
            ExprKind::VarArg => {
                if !self.fs.f.is_vararg {
                    let msg = "cannot use '...' outside a vararg function";
                    return Err(self.error_near(e.line, msg, Some("...")));
                }
                ExpKind::VarArg(self.code_abc(OpCode::VarArg, 0, 0, 1))
            }
            ExprKind::Name(n) => return self.single_var(n, e.line),
            ExprKind::Paren(inner) => {
                let mut v = self.expr(inner)?;
                self.discharge_vars(&mut v);
                return Ok(v);
            }
            ExprKind::Table(fields) => return self.constructor(fields, e.line),
            ExprKind::Function(body) => return self.body(body, false, body.line),
            _ => return self.expr(e),
        };
        Ok(ExpDesc::new(k))
    }

    /// A primary expression followed by suffixes (`suffixedexp`).
    fn suffixed(&mut self, e: &Expr) -> R<ExpDesc> {
        // the suffixes, outermost first: the first few on the stack (a
        // statement like `t[#t+1] = v` allocates nothing here)
        let mut near: [Option<&Expr>; 4] = [None; 4];
        let mut far: Vec<&Expr> = Vec::new();
        let mut n = 0;
        let mut cur = e;
        loop {
            let o = match &cur.kind {
                ExprKind::Index(operands) => &operands.0,
                ExprKind::Call(o, _) | ExprKind::MethodCall(o, _) => &**o,
                _ => break,
            };
            match near.get_mut(n) {
                Some(slot) => *slot = Some(cur),
                None => far.push(cur),
            }
            n += 1;
            cur = o;
        }
        let line = cur.line;
        let mut v = self.simple(cur)?;
        for s in near.iter().flatten().copied().chain(far).rev() {
            match &s.kind {
                ExprKind::Index(operands) => {
                    let key = &operands.1;
                    self.exp_to_any_reg_up(&mut v)?;
                    let mut k = self.expr(key)?;
                    self.exp_to_val(&mut k)?;
                    self.indexed(&mut v, &mut k)?;
                }
                ExprKind::MethodCall(_, m) => {
                    let (name, args) = &**m;
                    self.line = s.line;
                    let mut key = ExpDesc::new(ExpKind::KStr(name.clone()));
                    self.self_op(&mut v, &mut key)?;
                    self.func_args(&mut v, args, line)?;
                }
                ExprKind::Call(_, args) => {
                    self.exp_to_next_reg(&mut v)?;
                    self.func_args(&mut v, args, line)?;
                }
                _ => {}
            }
        }
        Ok(v)
    }

    /// Compiles a list of expressions, all but the last into consecutive
    /// registers; returns the last one, still open (`explist`).
    pub fn exp_list(&mut self, exprs: &[Expr]) -> R<ExpDesc> {
        let Some((last, init)) = exprs.split_last() else {
            return Ok(ExpDesc::new(ExpKind::Void));
        };
        for (n, e) in init.iter().enumerate() {
            let mut v = self.expr(e)?;
            // PUC discharges an item after reading the `,` that follows it.
            self.near = self.near_if_full(|| exprs.get(n + 1).and_then(first_token));
            self.exp_to_next_reg(&mut v)?;
            self.near = None;
        }
        self.expr(last)
    }

    /// Arguments and `CALL` for the function in `f` (`funcargs`).
    fn func_args(&mut self, f: &mut ExpDesc, args: &[Expr], line: u32) -> R<()> {
        if !matches!(f.k, ExpKind::NonReloc(_)) {
            self.exp_to_next_reg(f)?;
        }
        let base = f.info();
        let nparams: i32 = if args.is_empty() {
            (self.fs.freereg - (base + 1)) as i32
        } else {
            let mut a = self.exp_list(args)?;
            if a.is_multret() {
                self.set_multret(&mut a)?;
                MULTRET
            } else {
                self.exp_to_next_reg(&mut a)?;
                (self.fs.freereg - (base + 1)) as i32
            }
        };
        let pc = self.code_abc(OpCode::Call, base, (nparams + 1) as u32, 2);
        f.k = ExpKind::Call(pc);
        self.fix_line(line);
        self.fs.freereg = base + 1;
        Ok(())
    }

    // ----------------------------------------------------------------
    // Table constructors

    /// `{ fields }` (`constructor`). The fields are read one at a time (a
    /// packed constructor's are decoded as they are needed).
    fn constructor(&mut self, fields: &Fields, line: u32) -> R<ExpDesc> {
        self.line = line;
        let pc = self.code_abc(OpCode::NewTable, 0, 0, 0);
        self.code_extra_arg(0);
        let t = self.fs.freereg;
        self.reserve_regs(1)?;
        let mut cc = ConsControl { v: ExpDesc::new(ExpKind::Void), t, nh: 0, na: 0, tostore: 0 };
        fields.try_for_each(|field| self.cons_field(&mut cc, field))?;
        self.last_list_field(&mut cc)?;
        self.set_table_size(pc, t, cc.na, cc.nh);
        Ok(ExpDesc::new(ExpKind::NonReloc(t)))
    }

    /// A field of a constructor (`field`, after `closelistfield`).
    fn cons_field(&mut self, cc: &mut ConsControl, field: &Field) -> R<()> {
        self.close_list_field(cc, field)?;
        match field {
            Field::Positional(e) => {
                cc.v = self.expr(e)?;
                cc.tostore += 1;
            }
            Field::Named(name, val) => {
                let reg = self.fs.freereg;
                let key = ExpDesc::new(ExpKind::KStr(name.clone()));
                self.rec_field(cc, reg, key, val)?;
            }
            Field::Keyed(k, val) => {
                let reg = self.fs.freereg;
                let mut key = self.expr(k)?;
                self.exp_to_val(&mut key)?;
                self.rec_field(cc, reg, key, val)?;
            }
        }
        Ok(())
    }

    /// A `key = value` field (`recfield`); `reg` is `freereg` before the key.
    fn rec_field(&mut self, cc: &mut ConsControl, reg: u32, mut key: ExpDesc, val: &Expr) -> R<()> {
        cc.nh = cc.nh.saturating_add(1);
        self.line = val.line; // PUC has just consumed the `=`
        let mut tab = ExpDesc::new(ExpKind::NonReloc(cc.t));
        self.indexed(&mut tab, &mut key)?;
        let mut v = self.expr(val)?;
        self.store_var(&tab, &mut v)?;
        self.fs.freereg = reg;
        Ok(())
    }

    /// Stores the previous list item, flushing a full batch (`closelistfield`).
    /// `next` is the field being started (its first token is the `near`
    /// part of a register overflow).
    fn close_list_field(&mut self, cc: &mut ConsControl, next: &Field) -> R<()> {
        if matches!(cc.v.k, ExpKind::Void) {
            return Ok(());
        }
        self.near = self.near_if_full(|| match next {
            Field::Positional(e) => first_token(e),
            Field::Keyed(..) => Some("[".to_string()),
            Field::Named(n, _) => Some(String::from_utf8_lossy(n).into_owned()),
        });
        self.exp_to_next_reg(&mut cc.v)?;
        self.near = None;
        cc.v = ExpDesc::new(ExpKind::Void);
        if cc.tostore == FIELDS_PER_FLUSH {
            self.set_list(cc.t, cc.na, cc.tostore as i32);
            cc.na += cc.tostore;
            cc.tostore = 0;
        }
        Ok(())
    }

    /// Stores the pending list items, the last one open (`lastlistfield`).
    fn last_list_field(&mut self, cc: &mut ConsControl) -> R<()> {
        if cc.tostore == 0 {
            return Ok(());
        }
        if cc.v.is_multret() {
            self.set_multret(&mut cc.v)?;
            self.set_list(cc.t, cc.na, MULTRET);
            cc.na = cc.na.wrapping_sub(1);
        } else {
            if !matches!(cc.v.k, ExpKind::Void) {
                self.exp_to_next_reg(&mut cc.v)?;
            }
            self.set_list(cc.t, cc.na, cc.tostore as i32);
        }
        cc.na = cc.na.wrapping_add(cc.tostore);
        Ok(())
    }

    /// `luaK_setlist`: `SETLIST base tostore nelems` (+ `EXTRAARG`).
    fn set_list(&mut self, base: u32, nelems: u32, tostore: i32) {
        let tostore = if tostore == MULTRET { 0 } else { tostore as u32 };
        if nelems <= MAX_ARG_C {
            self.code_abc(OpCode::SetList, base, tostore, nelems);
        } else {
            let extra = nelems / (MAX_ARG_C + 1);
            self.code_abck(OpCode::SetList, base, tostore, nelems % (MAX_ARG_C + 1), true);
            self.code_extra_arg(extra);
        }
        self.fs.freereg = base + 1;
    }

    /// `luaK_settablesize`: fills in `NEWTABLE` and its `EXTRAARG`.
    fn set_table_size(&mut self, pc: usize, ra: u32, asize: u32, hsize: u32) {
        use crate::opcodes::Instruction;
        let rb = if hsize != 0 { ceil_log2(hsize) + 1 } else { 0 };
        let extra = asize / (MAX_ARG_C + 1);
        let rc = asize % (MAX_ARG_C + 1);
        self.set_ins(pc, Instruction::abc(OpCode::NewTable, ra, rb, rc, extra > 0));
        self.set_ins(pc + 1, Instruction::ax(OpCode::ExtraArg, extra));
    }

    // ----------------------------------------------------------------
    // Function bodies

    /// Compiles a function body into a nested prototype and emits its
    /// `CLOSURE` in the next register (`body` + `codeclosure`).
    pub fn body(&mut self, func: &FuncBody, is_method: bool, line: u32) -> R<ExpDesc> {
        let child = FuncState::new(self.chunkname, line, self.actvar.len(), self.labels.len());
        let parent = std::mem::replace(&mut self.fs, child);
        self.outer.push(parent);
        self.enter_block(false);
        self.line = line;
        if is_method {
            self.new_local_var(b"self", line, None)?;
            self.adjust_local_vars(1);
        }
        self.par_list(func, line)?;
        self.stat_list(&func.block.stats, func.block.ret.as_deref(), false, func.end_line)?;
        self.fs.f.last_line_defined = func.end_line;
        self.line = func.end_line;
        let proto = self.close_func(func.end_line)?;
        let Some(parent) = self.outer.pop() else {
            return Err(self.error(line, "internal error: no enclosing function"));
        };
        self.fs = parent;
        if self.fs.f.protos.len() >= MAX_ARG_BX as usize {
            return Err(self.error_limit(MAX_ARG_BX as usize, "functions", line, None));
        }
        self.fs.f.protos.push(proto);
        let np = (self.fs.f.protos.len() - 1) as u32;
        let mut e = ExpDesc::new(ExpKind::Reloc(self.code_abx(OpCode::Closure, 0, np)));
        self.exp_to_next_reg(&mut e)?;
        Ok(e)
    }

    /// Declares the parameters (`parlist`).
    fn par_list(&mut self, func: &FuncBody, line: u32) -> R<()> {
        let n = func.params.len();
        for (i, p) in func.params.iter().enumerate() {
            let near = if i + 1 < n || func.is_vararg { "," } else { ")" };
            self.new_local_var(p, line, Some(near))?;
        }
        self.adjust_local_vars(n);
        self.fs.f.num_params = self.fs.nactvar as u8;
        if func.is_vararg {
            self.set_vararg(u32::from(self.fs.f.num_params));
        }
        let n = self.fs.nactvar as u32;
        self.reserve_regs(n)
    }

    /// Marks the function vararg and emits `VARARGPREP` (`setvararg`).
    pub fn set_vararg(&mut self, nparams: u32) {
        self.fs.f.is_vararg = true;
        self.code_abc(OpCode::VarArgPrep, nparams, 0, 0);
    }

    /// Final return, scope exit and peephole pass (`close_func`).
    pub fn close_func(&mut self, line: u32) -> R<crate::proto::Proto> {
        let first = self.nvarstack();
        self.ret(first, 0);
        self.leave_block(line)?;
        self.finish()?;
        let fs = std::mem::replace(&mut self.fs, FuncState::new(b"", 0, 0, 0));
        Ok(fs.f)
    }
}
