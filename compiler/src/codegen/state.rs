//! Compiler state and the low-level emitter (the first half of `lcode.c`).
//!
//! [`Compiler`] holds what `LexState`/`Dyndata` hold in PUC Lua: the stack
//! of functions being compiled (the innermost in `fs`, its ancestors in
//! `outer`), the active local variables of *all* those functions in one
//! vector (each function remembers where its own start), the pending gotos
//! and the visible labels, the constant-index cache shared by all functions,
//! and `line`, the line attached to each new instruction (the equivalent of
//! `ls->lastline`).
//!
//! This module provides the primitive operations everything else builds
//! on: emitting instructions with their line, the register stack
//! (`freereg`, `reserve_regs`, `free_reg`), the constant table with PUC's
//! deduplication, and jump lists. A jump list is threaded through the `sJ`
//! fields of the `JMP` instructions themselves, an offset of -1 ending the
//! list; its head is a [`JList`] (`None` is the empty list).
//!
//! Invariants: `fs.freereg` is always at least the number of registers held
//! by active locals and never reaches 255 (`check_stack` fails first);
//! `fs.f.line_info` has exactly one entry per instruction; every register
//! operand written into an instruction is below 255 and every constant
//! operand in a `C` field is at most 255, so encodings never overflow.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use crate::number::{float_to_int, F2I};
use crate::opcodes::{
    Instruction, OpCode, MAX_ARG_AX, MAX_ARG_BX, MAX_ARG_C, OFFSET_SBX, OFFSET_SC, OFFSET_SJ,
};
use crate::proto::{Constant, Proto};
use crate::SyntaxError;

/// Result type of every fallible code generation step.
pub(crate) type R<T> = Result<T, SyntaxError>;

/// Head of a jump list (`None` for `NO_JUMP`).
pub(crate) type JList = Option<usize>;

/// "No register" marker for `TESTSET` (as `NO_REG` = `MAXARG_A`).
pub(crate) const NO_REG: u32 = 255;
/// Registers in a function must stay below this (`MAXREGS`).
const MAX_REGS: u32 = 255;
/// Largest constant index usable as an RK operand (`MAXINDEXRK`).
pub(crate) const MAX_INDEX_RK: u32 = 255;
/// Longest string that PUC Lua treats as a "short" string.
pub(crate) const MAX_SHORT_LEN: usize = 40;
/// `LUA_MULTRET`.
pub(crate) const MULTRET: i32 = -1;

/// Kinds of local variable (the numbering is the one stored in
/// [`crate::proto::UpvalDesc::kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    /// A regular variable.
    Reg = 0,
    /// `<const>` held in a register.
    Const = 1,
    /// `<close>`.
    Close = 2,
    /// A compile-time constant: no register at all.
    CompileTime = 3,
}

/// The value of a compile-time constant.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CtValue {
    Nil,
    Bool(bool),
    Int(i64),
    Flt(f64),
    Str(Vec<u8>),
}

/// An active local variable (`Vardesc`).
#[derive(Clone, Debug)]
pub(crate) struct VarDesc {
    pub name: Vec<u8>,
    pub kind: VarKind,
    /// Register holding the variable (unused for compile-time constants).
    pub ridx: u32,
    /// Index of its debug record in `loc_vars`.
    pub pidx: usize,
    /// Value of a compile-time constant.
    pub value: Option<CtValue>,
}

/// A pending goto or a visible label (`Labeldesc`).
#[derive(Clone, Debug)]
pub(crate) struct LabelDesc {
    pub name: Vec<u8>,
    /// For a label, its position; for a goto, its jump list.
    pub pc: JList,
    pub line: u32,
    /// Number of active locals at that position.
    pub nactvar: usize,
    /// For a goto: whether it leaves the scope of a captured variable.
    pub close: bool,
}

/// A block being compiled (`BlockCnt`).
#[derive(Clone, Debug)]
pub(crate) struct BlockCnt {
    pub first_label: usize,
    pub first_goto: usize,
    pub nactvar: usize,
    /// Some variable of the block is captured (or to be closed).
    pub upval: bool,
    pub is_loop: bool,
    pub inside_tbc: bool,
}

/// A function being compiled (`FuncState`).
pub(crate) struct FuncState {
    /// The prototype under construction.
    pub f: Proto,
    /// Enclosing blocks, innermost last.
    pub blocks: Vec<BlockCnt>,
    /// Index in `Compiler::actvar` of this function's first local.
    pub first_local: usize,
    /// Index in `Compiler::labels` of this function's first label.
    pub first_label: usize,
    /// Number of active locals (including compile-time constants).
    pub nactvar: usize,
    /// First free register.
    pub freereg: u32,
    /// Position of the last jump target (`lasttarget`).
    pub last_target: usize,
    /// The function must close upvalues or to-be-closed variables on return.
    pub needclose: bool,
}

impl FuncState {
    /// A fresh function defined at `line` (0 for the main chunk).
    pub fn new(source: &[u8], line: u32, first_local: usize, first_label: usize) -> FuncState {
        FuncState {
            f: Proto {
                source: source.to_vec(),
                line_defined: line,
                last_line_defined: 0,
                num_params: 0,
                is_vararg: false,
                max_stack: 2,
                code: Vec::new(),
                constants: Vec::new(),
                upvalues: Vec::new(),
                protos: Vec::new(),
                line_info: Vec::new(),
                loc_vars: Vec::new(),
            },
            blocks: Vec::new(),
            first_local,
            first_label,
            nactvar: 0,
            freereg: 0,
            last_target: 0,
            needclose: false,
        }
    }

    /// Current position (`fs->pc`).
    pub fn pc(&self) -> usize {
        self.f.code.len()
    }
}

/// Key of the constant cache for everything but strings, mimicking the keys
/// PUC puts in its scanner table (so that constants are shared, or
/// duplicated, exactly as there): a type tag and the value's bits. Strings
/// have their own map, keyed by their bytes (the two kinds of key never
/// compare equal in PUC's table either).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KKey(u8, u64);

impl KKey {
    const NIL: KKey = KKey(0, 0);
    /// A key no constant has.
    const NONE: KKey = KKey(u8::MAX, 0);
    fn bool(b: bool) -> KKey {
        KKey(1, u64::from(b))
    }
    fn int(i: i64) -> KKey {
        KKey(2, i as u64)
    }
    fn flt(bits: u64) -> KKey {
        KKey(3, bits)
    }
}

/// A float used as a table key: integral floats become integer keys.
fn float_table_key(x: f64) -> KKey {
    match float_to_int(x, F2I::Exact) {
        Some(i) => KKey::int(i),
        None => KKey::flt(x.to_bits()),
    }
}

/// The constant cache for strings: the latest constant index given to each
/// string (validated against the current function's constants before use,
/// as the other caches). The strings' bytes are kept one after another in
/// one buffer, and each entry keeps its hash: a new string costs a copy
/// into the buffer, not an allocation of its own, and the table grows
/// without hashing any string again. The hash is foldhash's, with its
/// per-process random seed (SipHash took tens of instructions more per
/// string).
#[derive(Default)]
struct StrCache {
    table: HashTable<StrEntry>,
    bytes: Vec<u8>,
    hasher: RandomState,
}

/// An entry of [`StrCache`]: the string is `bytes[start..start + len]`.
#[derive(Clone, Copy)]
struct StrEntry {
    hash: u64,
    start: usize,
    len: usize,
    k: u32,
}

impl StrCache {
    /// The constant index cached for `s` (whose hash is `hash`).
    fn find(&self, hash: u64, s: &[u8]) -> Option<u32> {
        let bytes = &self.bytes;
        let key = |e: &StrEntry| e.hash == hash && bytes.get(e.start..e.start + e.len) == Some(s);
        self.table.find(hash, key).map(|e| e.k)
    }

    /// Caches `k` for `s` (`present`: whether `s` has an entry already).
    fn set(&mut self, hash: u64, s: &[u8], k: u32, present: bool) {
        let bytes = &self.bytes;
        let key = |e: &StrEntry| e.hash == hash && bytes.get(e.start..e.start + e.len) == Some(s);
        if present {
            if let Some(e) = self.table.find_mut(hash, key) {
                e.k = k;
            }
            return;
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(s);
        self.table.insert_unique(hash, StrEntry { hash, start, len: s.len(), k }, |e| e.hash);
    }
}

/// The whole compiler state.
pub(crate) struct Compiler<'s> {
    /// Chunk name as given to `compile`.
    pub chunkname: &'s [u8],
    /// The function being compiled.
    pub fs: FuncState,
    /// Enclosing functions, outermost first.
    pub outer: Vec<FuncState>,
    /// Active local variables of all functions being compiled.
    pub actvar: Vec<VarDesc>,
    /// Pending gotos.
    pub gotos: Vec<LabelDesc>,
    /// Visible labels.
    pub labels: Vec<LabelDesc>,
    /// Constant cache shared by all functions (`ls->h`), for non-strings:
    /// one B-tree per type tag of [`KKey`], keyed by the value's bits (12
    /// bytes an entry). A B-tree, not a hash map: a data file's numerals
    /// are many (a million-number constructor makes hundreds of thousands
    /// of entries) and often in increasing runs, which a B-tree looks up in
    /// nodes already in cache where any hash that scatters keys (as one
    /// must for untrusted source) misses the cache on nearly every numeral.
    /// A seeded foldhash map runs a third fewer instructions on such a file
    /// but took 20 % more time compiling it (the misses); and a B-tree's
    /// worst case is logarithmic whatever the keys, so no source can be
    /// crafted to make it slow. It is only looked up, never iterated, so
    /// its order is not observable.
    kcache: [BTreeMap<u64, u32>; 4],
    /// The last key looked up in `kcache` and the index it then gave (so
    /// `kcache` maps the key to it): discharging a numeral that is not an
    /// RK operand looks the same key up again at once.
    klast: (KKey, u32),
    /// The same for strings (see [`StrCache`]).
    kstrings: StrCache,
    /// Line given to new instructions (`ls->lastline`).
    pub line: u32,
    /// The token PUC's parser would be looking at, when known (for the
    /// `near` part of limit errors).
    pub near: Option<String>,
}

impl<'s> Compiler<'s> {
    /// A compiler for the main function of `chunkname`.
    pub fn new(chunkname: &'s [u8]) -> Compiler<'s> {
        Compiler {
            chunkname,
            fs: FuncState::new(chunkname, 0, 0, 0),
            outer: Vec::new(),
            actvar: Vec::new(),
            gotos: Vec::new(),
            labels: Vec::new(),
            kcache: Default::default(),
            klast: (KKey::NONE, 0),
            kstrings: StrCache::default(),
            line: 1,
            near: None,
        }
    }

    // ----------------------------------------------------------------
    // Errors

    /// An error reported at `line` (a "semantic" error: no `near` part).
    pub fn error(&self, line: u32, msg: &str) -> SyntaxError {
        SyntaxError {
            message: format!("{}:{}: {}", crate::chunkid(self.chunkname), line, msg),
            incomplete: false,
        }
    }

    /// An error with PUC's `near 'token'` suffix, when the token is known.
    pub fn error_near(&self, line: u32, msg: &str, near: Option<&str>) -> SyntaxError {
        match near {
            Some(tok) => self.error(line, &format!("{msg} near '{tok}'")),
            None => self.error(line, msg),
        }
    }

    /// `errorlimit`: "too many X (limit is N) in F".
    pub fn error_limit(
        &self,
        limit: usize,
        what: &str,
        line: u32,
        near: Option<&str>,
    ) -> SyntaxError {
        let where_ = match self.fs.f.line_defined {
            0 => "main function".to_string(),
            l => format!("function at line {l}"),
        };
        let msg = format!("too many {what} (limit is {limit}) in {where_}");
        self.error_near(line, &msg, near)
    }

    // ----------------------------------------------------------------
    // Emission

    /// Emits `i` with the current line; returns its position.
    pub fn code(&mut self, i: Instruction) -> usize {
        let line = self.line;
        self.fs.f.code.push(i);
        self.fs.f.line_info.push(line);
        self.fs.f.code.len() - 1
    }

    /// Emits an iABC instruction with the k bit.
    pub fn code_abck(&mut self, op: OpCode, a: u32, b: u32, c: u32, k: bool) -> usize {
        self.code(Instruction::abc(op, a, b, c, k))
    }

    /// Emits an iABC instruction.
    pub fn code_abc(&mut self, op: OpCode, a: u32, b: u32, c: u32) -> usize {
        self.code_abck(op, a, b, c, false)
    }

    /// Emits an iABx instruction.
    pub fn code_abx(&mut self, op: OpCode, a: u32, bx: u32) -> usize {
        self.code(Instruction::abx(op, a, bx))
    }

    /// Emits an iAsBx instruction.
    fn code_asbx(&mut self, op: OpCode, a: u32, sbx: i32) -> usize {
        self.code(Instruction::asbx(op, a, sbx))
    }

    /// Emits an `EXTRAARG`.
    pub fn code_extra_arg(&mut self, ax: u32) -> usize {
        self.code(Instruction::ax(OpCode::ExtraArg, ax))
    }

    /// Emits `LOADK` or `LOADKX` + `EXTRAARG`.
    pub fn code_k(&mut self, reg: u32, k: u32) -> usize {
        if k <= MAX_ARG_BX {
            self.code_abx(OpCode::LoadK, reg, k)
        } else {
            let p = self.code_abc(OpCode::LoadKX, reg, 0, 0);
            self.code_extra_arg(k);
            p
        }
    }

    /// Instruction at `pc`.
    pub fn ins(&self, pc: usize) -> Instruction {
        self.fs.f.code[pc]
    }

    /// Replaces the instruction at `pc`.
    pub fn set_ins(&mut self, pc: usize, i: Instruction) {
        self.fs.f.code[pc] = i;
    }

    /// Changes the line of the last instruction (`luaK_fixline`).
    pub fn fix_line(&mut self, line: u32) {
        if let Some(l) = self.fs.f.line_info.last_mut() {
            *l = line;
        }
    }

    /// Removes the last instruction.
    pub fn remove_last_instruction(&mut self) {
        self.fs.f.code.pop();
        self.fs.f.line_info.pop();
    }

    /// The previous instruction, unless a jump may target the current
    /// position (`previousinstruction`).
    pub fn previous_instruction(&self) -> Option<usize> {
        let pc = self.fs.pc();
        (pc > self.fs.last_target).then(|| pc - 1)
    }

    /// `luaK_nil`: sets `n` registers from `from` to nil, merging with a
    /// previous `LOADNIL` when the ranges touch.
    pub fn load_nil(&mut self, from: u32, n: u32) {
        let mut from = from;
        let mut l = from + n - 1;
        if let Some(p) = self.previous_instruction() {
            let prev = self.ins(p);
            if prev.opcode() == Some(OpCode::LoadNil) {
                let pfrom = prev.a();
                let pl = pfrom + prev.b();
                if (pfrom <= from && from <= pl + 1) || (from <= pfrom && pfrom <= l + 1) {
                    from = from.min(pfrom);
                    l = l.max(pl);
                    self.set_ins(p, prev.with_a(from).with_b(l - from));
                    return;
                }
            }
        }
        self.code_abc(OpCode::LoadNil, from, n - 1, 0);
    }

    /// `luaK_int`: loads an integer into `reg`.
    pub fn load_int(&mut self, reg: u32, i: i64) -> R<()> {
        if fits_bx(i) {
            self.code_asbx(OpCode::LoadI, reg, i as i32);
        } else {
            let k = self.int_k(i)?;
            self.code_k(reg, k);
        }
        Ok(())
    }

    /// `luaK_float`: loads a float into `reg`.
    pub fn load_float(&mut self, reg: u32, f: f64) -> R<()> {
        // -0.0 converts to integer 0 but LOADF 0 would load +0.0.
        let negzero = f == 0.0 && f.is_sign_negative();
        match float_to_int(f, F2I::Exact) {
            Some(fi) if fits_bx(fi) && !negzero => {
                self.code_asbx(OpCode::LoadF, reg, fi as i32);
            }
            _ => {
                let k = self.number_k(f)?;
                self.code_k(reg, k);
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------------
    // Registers

    /// Number of registers held by the active locals (`luaY_nvarstack`).
    pub fn nvarstack(&self) -> u32 {
        self.reg_level(self.fs.nactvar)
    }

    /// Register level of the first `nvar` locals (`reglevel`).
    pub fn reg_level(&self, nvar: usize) -> u32 {
        let base = self.fs.first_local.min(self.actvar.len());
        let end = (base + nvar).min(self.actvar.len());
        for v in self.actvar[base..end].iter().rev() {
            if v.kind != VarKind::CompileTime {
                return v.ridx + 1;
            }
        }
        0
    }

    /// `near` for an `exp_to_next_reg` that may overflow the registers:
    /// computed only when it can (that step reserves one register after
    /// possibly freeing some, so it fails only if `freereg + 1` reaches
    /// the limit already), since building it costs an allocation.
    pub fn near_if_full(&self, near: impl FnOnce() -> Option<String>) -> Option<String> {
        if self.fs.freereg + 1 >= MAX_REGS {
            near()
        } else {
            None
        }
    }

    /// `luaK_checkstack`.
    pub fn check_stack(&mut self, n: u32) -> R<()> {
        let newstack = self.fs.freereg + n;
        if newstack > u32::from(self.fs.f.max_stack) {
            if newstack >= MAX_REGS {
                let msg = "function or expression needs too many registers";
                return Err(self.error_near(self.line, msg, self.near.as_deref()));
            }
            self.fs.f.max_stack = newstack as u8;
        }
        Ok(())
    }

    /// `luaK_reserveregs`.
    pub fn reserve_regs(&mut self, n: u32) -> R<()> {
        self.check_stack(n)?;
        self.fs.freereg += n;
        Ok(())
    }

    /// Frees `reg` if it is a temporary (not a local).
    pub fn free_reg(&mut self, reg: u32) {
        if reg >= self.nvarstack() {
            self.fs.freereg = self.fs.freereg.saturating_sub(1);
        }
    }

    /// Frees two registers, the higher first.
    pub fn free_regs(&mut self, r1: u32, r2: u32) {
        if r1 > r2 {
            self.free_reg(r1);
            self.free_reg(r2);
        } else {
            self.free_reg(r2);
            self.free_reg(r1);
        }
    }

    // ----------------------------------------------------------------
    // Constants

    /// `addk`: finds or adds a constant, using PUC's shared cache.
    /// The cache is probed once (a data file's numerals are mostly new).
    fn add_k(&mut self, key: KKey, v: Constant) -> R<u32> {
        let constants = &mut self.fs.f.constants;
        // what the lookup below would find, if it is the last key again
        let (last, k) = self.klast;
        if last == key && constants.get(k as usize).is_some_and(|old| same_constant(old, &v)) {
            return Ok(k);
        }
        let new = constants.len() as u32;
        let slot = self.kcache[usize::from(key.0)].entry(key.1).or_insert(new);
        if *slot != new {
            if constants.get(*slot as usize).is_some_and(|old| same_constant(old, &v)) {
                self.klast = (key, *slot);
                return Ok(*slot);
            }
            *slot = new;
        }
        self.klast = (key, new);
        self.push_k(v)
    }

    /// Appends a constant to the current function's table.
    fn push_k(&mut self, v: Constant) -> R<u32> {
        let k = self.fs.f.constants.len();
        if k >= MAX_ARG_AX as usize {
            let msg = format!("too many constants (limit is {MAX_ARG_AX})");
            return Err(self.error(self.line, &msg));
        }
        self.fs.f.constants.push(v);
        Ok(k as u32)
    }

    /// Index of a string constant (`addk` for a string: the bytes are
    /// copied only when the constant is new).
    pub fn string_k(&mut self, s: &[u8]) -> R<u32> {
        let hash = self.kstrings.hasher.hash_one(s);
        let found = self.kstrings.find(hash, s);
        if let Some(k) = found {
            if let Some(Constant::Str(old)) = self.fs.f.constants.get(k as usize) {
                if old.as_slice() == s {
                    return Ok(k);
                }
            }
        }
        let k = self.push_k(Constant::Str(s.to_vec()))?;
        self.kstrings.set(hash, s, k, found.is_some());
        Ok(k)
    }

    /// Index of an integer constant.
    pub fn int_k(&mut self, i: i64) -> R<u32> {
        self.add_k(KKey::int(i), Constant::Int(i))
    }

    /// Index of a float constant (integral floats get a perturbed key so
    /// that they do not collide with integers, as `luaK_numberK`).
    pub fn number_k(&mut self, r: f64) -> R<u32> {
        const Q: f64 = 1.0 / 4_503_599_627_370_496.0; // 2^-52
        let key = match float_to_int(r, F2I::Exact) {
            None => float_table_key(r),
            Some(0) => float_table_key(Q),
            Some(_) => float_table_key(r + r * Q),
        };
        self.add_k(key, Constant::Float(r))
    }

    /// Index of a boolean constant.
    pub fn bool_k(&mut self, b: bool) -> R<u32> {
        self.add_k(KKey::bool(b), Constant::Bool(b))
    }

    /// Index of the nil constant.
    pub fn nil_k(&mut self) -> R<u32> {
        self.add_k(KKey::NIL, Constant::Nil)
    }

    // ----------------------------------------------------------------
    // Jumps

    /// Emits a `JMP` with no destination yet; returns its position.
    pub fn jump(&mut self) -> usize {
        self.code(Instruction::sj(OpCode::Jmp, -1))
    }

    /// Emits a jump to `target` (`luaK_jumpto`).
    pub fn jump_to(&mut self, target: usize) -> R<()> {
        let j = self.jump();
        self.patch_list(Some(j), target)
    }

    /// Emits a test followed by a jump; returns the jump's position.
    pub fn cond_jump(&mut self, op: OpCode, a: u32, b: u32, c: u32, k: bool) -> usize {
        self.code_abck(op, a, b, c, k);
        self.jump()
    }

    /// Marks the current position as a jump target and returns it.
    pub fn get_label(&mut self) -> usize {
        self.fs.last_target = self.fs.pc();
        self.fs.pc()
    }

    /// Next element of a jump list.
    fn get_jump(&self, pc: usize) -> JList {
        let off = self.ins(pc).sj_field();
        if off == -1 {
            None
        } else {
            usize::try_from(pc as i64 + 1 + i64::from(off)).ok()
        }
    }

    /// Points the jump at `pc` to `dest`.
    pub fn fix_jump(&mut self, pc: usize, dest: usize) -> R<()> {
        let offset = dest as i64 - (pc as i64 + 1);
        let max = i64::from(MAX_ARG_AX) - i64::from(OFFSET_SJ);
        if offset < -i64::from(OFFSET_SJ) || offset > max {
            return Err(self.error(self.line, "control structure too long"));
        }
        let i = self.ins(pc).with_sj(offset as i32);
        self.set_ins(pc, i);
        Ok(())
    }

    /// Appends list `l2` to list `l1` (`luaK_concat`).
    pub fn concat(&mut self, l1: &mut JList, l2: JList) -> R<()> {
        let Some(l2) = l2 else { return Ok(()) };
        match *l1 {
            None => *l1 = Some(l2),
            Some(mut list) => {
                while let Some(next) = self.get_jump(list) {
                    list = next;
                }
                self.fix_jump(list, l2)?;
            }
        }
        Ok(())
    }

    /// Position of the instruction controlling the jump at `pc`.
    pub fn jump_control(&self, pc: usize) -> usize {
        if pc >= 1 && self.ins(pc - 1).opcode().is_some_and(OpCode::is_test) {
            pc - 1
        } else {
            pc
        }
    }

    /// `patchtestreg`: gives a `TESTSET` its destination, or turns it into
    /// a `TEST` when no value is wanted. False if not a `TESTSET`.
    fn patch_test_reg(&mut self, node: usize, reg: u32) -> bool {
        let ctl = self.jump_control(node);
        let i = self.ins(ctl);
        if i.opcode() != Some(OpCode::TestSet) {
            return false;
        }
        if reg != NO_REG && reg != i.b() {
            self.set_ins(ctl, i.with_a(reg));
        } else {
            self.set_ins(ctl, Instruction::abc(OpCode::Test, i.b(), 0, 0, i.k()));
        }
        true
    }

    /// Makes every test of `list` produce no value.
    pub fn remove_values(&mut self, mut list: JList) {
        while let Some(pc) = list {
            self.patch_test_reg(pc, NO_REG);
            list = self.get_jump(pc);
        }
    }

    /// `patchlistaux`: value-producing tests go to `vtarget` (storing into
    /// `reg`), the others to `dtarget`.
    pub fn patch_list_aux(
        &mut self,
        mut list: JList,
        vtarget: usize,
        reg: u32,
        dtarget: usize,
    ) -> R<()> {
        while let Some(pc) = list {
            let next = self.get_jump(pc);
            if self.patch_test_reg(pc, reg) {
                self.fix_jump(pc, vtarget)?;
            } else {
                self.fix_jump(pc, dtarget)?;
            }
            list = next;
        }
        Ok(())
    }

    /// Points every jump of `list` to `target`.
    pub fn patch_list(&mut self, list: JList, target: usize) -> R<()> {
        self.patch_list_aux(list, target, NO_REG, target)
    }

    /// Points every jump of `list` to the current position.
    pub fn patch_to_here(&mut self, list: JList) -> R<()> {
        let here = self.get_label();
        self.patch_list(list, here)
    }

    /// True if some jump of `list` is not controlled by a `TESTSET`.
    pub fn need_value(&self, mut list: JList) -> bool {
        while let Some(pc) = list {
            if self.ins(self.jump_control(pc)).opcode() != Some(OpCode::TestSet) {
                return true;
            }
            list = self.get_jump(pc);
        }
        false
    }

    // ----------------------------------------------------------------
    // Returns and the final pass

    /// `luaK_ret`: `RETURN0`, `RETURN1` or `RETURN` (`nret` = -1: to top).
    pub fn ret(&mut self, first: u32, nret: i32) {
        let op = match nret {
            0 => OpCode::Return0,
            1 => OpCode::Return1,
            _ => OpCode::Return,
        };
        self.code_abc(op, first, (nret + 1) as u32, 0);
    }

    /// `luaK_finish`: final adjustments of returns and jump threading.
    pub fn finish(&mut self) -> R<()> {
        let needclose = self.fs.needclose;
        let vararg = self.fs.f.is_vararg;
        let nparams = u32::from(self.fs.f.num_params);
        for pc in 0..self.fs.pc() {
            let mut i = self.ins(pc);
            match i.opcode() {
                Some(OpCode::Return0 | OpCode::Return1 | OpCode::Return | OpCode::TailCall) => {
                    let op = i.opcode();
                    if op != Some(OpCode::Return) && op != Some(OpCode::TailCall) {
                        if !(needclose || vararg) {
                            continue;
                        }
                        i = Instruction((i.0 & !0x7F) | OpCode::Return as u32);
                    }
                    if needclose {
                        i = i.with_k(true);
                    }
                    if vararg {
                        i = i.with_c(nparams + 1);
                    }
                    self.set_ins(pc, i);
                }
                Some(OpCode::Jmp) => {
                    let target = self.final_target(pc);
                    self.fix_jump(pc, target)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Final destination of a jump, skipping jumps to jumps.
    fn final_target(&self, mut i: usize) -> usize {
        for _ in 0..100 {
            let ins = self.ins(i);
            if ins.opcode() != Some(OpCode::Jmp) {
                break;
            }
            match usize::try_from(i as i64 + i64::from(ins.sj_field()) + 1) {
                Ok(t) if t < self.fs.pc() => i = t,
                _ => break,
            }
        }
        i
    }
}

/// Raw equality of constants of the same type (`luaV_rawequalobj` plus the
/// type-tag check of `addk`).
fn same_constant(a: &Constant, b: &Constant) -> bool {
    match (a, b) {
        (Constant::Nil, Constant::Nil) => true,
        (Constant::Bool(x), Constant::Bool(y)) => x == y,
        (Constant::Int(x), Constant::Int(y)) => x == y,
        (Constant::Float(x), Constant::Float(y)) => x == y,
        (Constant::Str(x), Constant::Str(y)) => x == y,
        _ => false,
    }
}

/// Whether `i` fits an `sBx` operand.
pub(crate) fn fits_bx(i: i64) -> bool {
    -i64::from(OFFSET_SBX) <= i && i <= i64::from(MAX_ARG_BX) - i64::from(OFFSET_SBX)
}

/// Whether `i` fits an `sC` (or `sB`) operand.
pub(crate) fn fits_c(i: i64) -> bool {
    (i as u64).wrapping_add(OFFSET_SC as u64) <= u64::from(MAX_ARG_C)
}

/// Encodes `i` (which fits) as an `sC` operand.
pub(crate) fn int_to_sc(i: i64) -> u32 {
    (i + i64::from(OFFSET_SC)) as u32
}
