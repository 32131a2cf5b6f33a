//! Debug information: naming values in error messages, positions and
//! tracebacks (a port of the relevant parts of `ldebug.c` and `lauxlib.c`).
//!
//! Error messages name the culprit the way Lua 5.4 does — `(local 'x')`,
//! `(global 'g')`, `(field 'f')`, `(upvalue 'u')`, `(constant 'c')`,
//! `(method 'm')` — by symbolic execution of the function's bytecode:
//! [`getobjname`] finds the last instruction before the current pc that set
//! the register (`findsetreg`) and reasons from it. The operand of the
//! failing operation is described by an [`Operand`] (register, upvalue, or
//! nothing), since our values are not addressed by pointers.
//!
//! Function names for tracebacks and `bad argument` messages come from the
//! calling instruction (`funcnamefromcode`) or from a search of the loaded
//! modules (`pushglobalfuncname`).
//!
//! Levels count from the running frame: level 0 is the top frame of the
//! running thread.

use crate::func::FnProto;
use crate::state::State;
use crate::thread::{cist, u, CallInfo, Callee};
use crate::value::{TableRef, Value};
use luprex_compiler::OpCode;

/// Where the culprit of an operation lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A register of the running Lua function.
    Reg(u32),
    /// An upvalue of the running Lua function.
    Upval(u32),
    /// Not nameable.
    None,
}

/// Whether instruction `op` sets register A (`testAMode`).
fn sets_a(op: OpCode) -> bool {
    use OpCode::*;
    !matches!(
        op,
        SetUpval
            | SetTabUp
            | SetTable
            | SetI
            | SetField
            | Close
            | Tbc
            | Jmp
            | Eq
            | Lt
            | Le
            | EqK
            | EqI
            | LtI
            | LeI
            | GtI
            | GeI
            | Test
            | Return
            | Return0
            | Return1
            | TForPrep
            | TForCall
            | SetList
            | ExtraArg
    )
}

/// The last instruction before `lastpc` that set `reg`, if it is not
/// conditional (`findsetreg`).
fn findsetreg(p: &FnProto, lastpc: usize, reg: u32) -> Option<usize> {
    let mut setreg: Option<usize> = None;
    let mut jmptarget = 0usize;
    for pc in 0..lastpc.min(p.code.len()) {
        let i = p.code[pc];
        let Some(op) = i.opcode() else { continue };
        let a = i.a();
        let change = match op {
            OpCode::LoadNil => a <= reg && reg <= a + i.b(),
            OpCode::TForCall => reg >= a + 2,
            OpCode::Call | OpCode::TailCall => reg >= a,
            OpCode::Jmp => {
                let dest = pc as i64 + 1 + i.sj_field() as i64;
                if dest <= lastpc as i64 && dest > jmptarget as i64 {
                    jmptarget = dest as usize;
                }
                false
            }
            _ => sets_a(op) && reg == a,
        };
        if change {
            setreg = if pc < jmptarget { None } else { Some(pc) };
        }
    }
    setreg
}

fn kname(st: &State, p: &FnProto, c: usize) -> String {
    match p.k.get(c) {
        Some(Value::Str(s)) => String::from_utf8_lossy(st.heap.str(*s)).into_owned(),
        _ => "?".into(),
    }
}

fn rname(st: &State, p: &FnProto, pc: usize, c: u32) -> String {
    match getobjname(st, p, pc, c) {
        Some(("constant", n)) => n,
        _ => "?".into(),
    }
}

fn upvalname(p: &FnProto, i: u32) -> String {
    match p.upvals.get(i as usize) {
        Some(d) => String::from_utf8_lossy(&d.name).into_owned(),
        None => "?".into(),
    }
}

fn gxf(st: &State, p: &FnProto, pc: usize, t: u32, isup: bool) -> &'static str {
    let name = if isup { Some(upvalname(p, t)) } else { getobjname(st, p, pc, t).map(|(_, n)| n) };
    if name.as_deref() == Some("_ENV") {
        "global"
    } else {
        "field"
    }
}

/// Names register `reg` at `lastpc` (`getobjname`): `(kind, name)`.
pub fn getobjname(
    st: &State,
    p: &FnProto,
    lastpc: usize,
    reg: u32,
) -> Option<(&'static str, String)> {
    if let Some(n) = p.local_name(reg as usize + 1, lastpc) {
        return Some(("local", String::from_utf8_lossy(n).into_owned()));
    }
    let pc = findsetreg(p, lastpc, reg)?;
    let i = p.code[pc];
    match i.opcode()? {
        OpCode::Move => {
            if i.b() < i.a() {
                return getobjname(st, p, pc, i.b());
            }
            None
        }
        OpCode::GetTabUp => {
            let name = kname(st, p, i.c() as usize);
            Some((gxf(st, p, pc, i.b(), true), name))
        }
        OpCode::GetTable => {
            let name = rname(st, p, pc, i.c());
            Some((gxf(st, p, pc, i.b(), false), name))
        }
        OpCode::GetI => Some(("field", "integer index".into())),
        OpCode::GetField => {
            let name = kname(st, p, i.c() as usize);
            Some((gxf(st, p, pc, i.b(), false), name))
        }
        OpCode::GetUpval => Some(("upvalue", upvalname(p, i.b()))),
        OpCode::LoadK | OpCode::LoadKX => {
            let b = if i.opcode() == Some(OpCode::LoadK) {
                i.bx() as usize
            } else {
                p.code.get(pc + 1).map(|x| x.ax_field() as usize).unwrap_or(usize::MAX)
            };
            match p.k.get(b) {
                Some(Value::Str(s)) => {
                    Some(("constant", String::from_utf8_lossy(st.heap.str(*s)).into_owned()))
                }
                _ => None,
            }
        }
        OpCode::SelfOp => {
            let name = if i.k() { kname(st, p, i.c() as usize) } else { rname(st, p, pc, i.c()) };
            Some(("method", name))
        }
        _ => None,
    }
}

/// The line of a frame whose saved pc (index of the next instruction) is
/// `pc`; before any instruction saved it, the line where the function was
/// defined (`currentline` with pc -1).
fn frame_line(p: &FnProto, pc: u32) -> Option<u32> {
    match pc.checked_sub(1) {
        Some(last) => p.line_at(last as usize),
        None => Some(p.line_defined),
    }
}

/// Name of the function called by the instruction at `pc`
/// (`funcnamefromcode`).
pub(crate) fn funcnamefromcode(
    st: &State,
    p: &FnProto,
    pc: usize,
) -> Option<(&'static str, String)> {
    let i = *p.code.get(pc)?;
    let tm = match i.opcode()? {
        OpCode::Call | OpCode::TailCall => return getobjname(st, p, pc, i.a()),
        OpCode::TForCall => return Some(("for iterator", "for iterator".into())),
        OpCode::SelfOp | OpCode::GetTabUp | OpCode::GetTable | OpCode::GetI | OpCode::GetField => {
            "index"
        }
        OpCode::SetTabUp | OpCode::SetTable | OpCode::SetI | OpCode::SetField => "newindex",
        OpCode::AddI | OpCode::AddK | OpCode::Add => "add",
        OpCode::SubK | OpCode::Sub => "sub",
        OpCode::MulK | OpCode::Mul => "mul",
        OpCode::ModK | OpCode::Mod => "mod",
        OpCode::PowK | OpCode::Pow => "pow",
        OpCode::DivK | OpCode::Div => "div",
        OpCode::IDivK | OpCode::IDiv => "idiv",
        OpCode::BAndK | OpCode::BAnd => "band",
        OpCode::BOrK | OpCode::BOr => "bor",
        OpCode::BXorK | OpCode::BXor => "bxor",
        OpCode::ShlI | OpCode::Shl => "shl",
        OpCode::ShrI | OpCode::Shr => "shr",
        OpCode::Unm => "unm",
        OpCode::BNot => "bnot",
        OpCode::Len => "len",
        OpCode::Concat => "concat",
        OpCode::Eq => "eq",
        OpCode::Lt | OpCode::LtI | OpCode::GtI => "lt",
        OpCode::Le | OpCode::LeI | OpCode::GeI => "le",
        OpCode::Close | OpCode::Return => "close",
        _ => return None,
    };
    Some(("metamethod", tm.into()))
}

impl State {
    /// The prototype of a Lua frame.
    pub(crate) fn frame_proto(&self, ci: &CallInfo) -> Option<&FnProto> {
        match ci.callee {
            Callee::Lua(cl) => Some(self.heap.protos.get(self.heap.lua_fns.get(cl).proto)),
            Callee::Rust(_) => None,
        }
    }

    /// The frame at `level` (0 = running) of the running thread.
    fn frame_at(&self, level: usize) -> Option<&CallInfo> {
        let n = self.ex.frames.len();
        if level < n {
            Some(&self.ex.frames[n - 1 - level])
        } else {
            None
        }
    }

    /// Current line of a Lua frame.
    pub fn current_line(&self, ci: &CallInfo) -> Option<u32> {
        let p = self.frame_proto(ci)?;
        frame_line(p, ci.pc)
    }

    /// `chunkid:line: ` of the frame at `level`, or `""` for a Rust frame
    /// (`luaL_where`).
    pub fn where_(&self, level: usize) -> String {
        let Some(ci) = self.frame_at(level) else { return String::new() };
        let Some(p) = self.frame_proto(ci) else { return String::new() };
        match frame_line(p, ci.pc) {
            Some(line) => {
                format!("{}:{}: ", luprex_compiler::chunkid(self.heap.str(p.source)), line)
            }
            None => String::new(),
        }
    }

    /// ` (local 'x')`-style description of an operand of the running Lua
    /// frame, or `""` (`varinfo`).
    pub(crate) fn varinfo(&self, op: Operand) -> String {
        let Some(ci) = self.ex.frames.last() else { return String::new() };
        let Some(p) = self.frame_proto(ci) else { return String::new() };
        let found = match op {
            Operand::Upval(i) => Some(("upvalue", upvalname(p, i))),
            Operand::Reg(r) => getobjname(self, p, (ci.pc as usize).saturating_sub(1), r),
            Operand::None => None,
        };
        match found {
            Some((kind, name)) => format!(" ({kind} '{name}')"),
            None => String::new(),
        }
    }

    /// How the frame at index `idx` was called: `(namewhat, name)`
    /// (`getfuncname`).
    pub(crate) fn frame_funcname(&self, idx: usize) -> Option<(&'static str, String)> {
        let ci = self.ex.frames.get(idx)?;
        if ci.status & cist::FIN != 0 {
            return Some(("metamethod", "__gc".into()));
        }
        if ci.status & cist::TAIL != 0 || idx == 0 {
            return None;
        }
        let caller = &self.ex.frames[idx - 1];
        let p = self.frame_proto(caller)?;
        funcnamefromcode(self, p, (caller.pc as usize).saturating_sub(1))
    }

    /// Name of a function value as a loaded module field (`"print"`,
    /// `"string.rep"`): `pushglobalfuncname`.
    pub(crate) fn global_funcname(&self, f: Value) -> Option<String> {
        let loaded = self.loaded;
        let name = self.findfield(loaded, f, 2)?;
        Some(match name.strip_prefix("_G.") {
            Some(rest) => rest.to_string(),
            None => name,
        })
    }

    fn findfield(&self, t: TableRef, f: Value, level: u32) -> Option<String> {
        if level == 0 {
            return None;
        }
        let mut key = Value::Nil;
        while let Ok(Some((k, v))) = self.heap.tables.get(t).next(key) {
            key = k;
            let Value::Str(ks) = k else { continue };
            if v.raw_eq(f) {
                return Some(String::from_utf8_lossy(self.heap.str(ks)).into_owned());
            }
            if let Value::Table(sub) = v {
                if let Some(n) = self.findfield(sub, f, level - 1) {
                    return Some(format!("{}.{}", String::from_utf8_lossy(self.heap.str(ks)), n));
                }
            }
        }
        None
    }

    /// The function value running in frame `ci`.
    pub(crate) fn frame_function(ci: &CallInfo) -> Value {
        match ci.callee {
            Callee::Lua(h) => Value::LuaFn(h),
            Callee::Rust(h) => Value::RustFn(h),
        }
    }

    /// Name of the running native for `bad argument` messages and whether
    /// it was called as a method.
    pub(crate) fn running_native_name(&self) -> (Option<String>, bool) {
        let idx = self.ex.frames.len().wrapping_sub(1);
        let Some(ci) = self.ex.frames.get(idx) else { return (None, false) };
        match self.frame_funcname(idx) {
            Some(("method", n)) => (Some(n), true),
            Some((_, n)) => (Some(n), false),
            None => (self.global_funcname(Self::frame_function(ci)), false),
        }
    }

    /// Describes the function of frame `idx` for a traceback line.
    fn describe_frame(&self, idx: usize) -> String {
        let ci = &self.ex.frames[idx];
        if let Some(n) = self.global_funcname(Self::frame_function(ci)) {
            return format!("function '{n}'");
        }
        if let Some((what, name)) = self.frame_funcname(idx) {
            return format!("{what} '{name}'");
        }
        match self.frame_proto(ci) {
            Some(p) if p.line_defined == 0 => "main chunk".into(),
            Some(p) => format!(
                "function <{}:{}>",
                luprex_compiler::chunkid(self.heap.str(p.source)),
                p.line_defined
            ),
            None => "?".into(),
        }
    }

    /// A traceback of the running thread in the format of `luaL_traceback`,
    /// starting at `level` (0 = the running frame). `msg`, if given, comes
    /// first. With `host_frame`, a final `[C]: in ?` line stands for the
    /// host that called into the VM (as `lua.c` shows it).
    pub fn traceback(&self, msg: Option<&str>, level: usize, host_frame: bool) -> String {
        let mut out = String::new();
        if let Some(m) = msg {
            out.push_str(m);
            out.push('\n');
        }
        out.push_str("stack traceback:");
        let n = self.ex.frames.len();
        let mut lines: Vec<String> = Vec::new();
        for lvl in level..n {
            let idx = n - 1 - lvl;
            let ci = &self.ex.frames[idx];
            let mut line = String::from("\n\t");
            match self.frame_proto(ci) {
                Some(p) => {
                    line.push_str(&luprex_compiler::chunkid(self.heap.str(p.source)));
                    line.push(':');
                    if let Some(l) = frame_line(p, ci.pc) {
                        line.push_str(&format!("{l}:"));
                    }
                }
                None => line.push_str("[C]:"),
            }
            line.push_str(" in ");
            line.push_str(&self.describe_frame(idx));
            if ci.status & cist::TAIL != 0 {
                line.push_str("\n\t(...tail calls...)");
            }
            lines.push(line);
        }
        if host_frame {
            lines.push("\n\t[C]: in ?".into());
        }
        let total = lines.len();
        if total > 22 {
            // As luaL_traceback: ten levels, the note (whose count is one
            // short of the levels really elided, as in the reference), and
            // the last eleven.
            for l in &lines[..10] {
                out.push_str(l);
            }
            out.push_str(&format!("\n\t...\t(skipping {} levels)", total - 22));
            for l in &lines[total - 11..] {
                out.push_str(l);
            }
        } else {
            for l in &lines {
                out.push_str(l);
            }
        }
        out
    }

    /// Stack slot of register `r` of the running Lua frame.
    #[inline]
    pub(crate) fn reg_slot(&self, r: u32) -> usize {
        u(self.ex.frames.last().map_or(0, |c| c.base)) + r as usize
    }
}

/// Debug hooks (`debug.sethook`) configured on a state (being written).
#[derive(Default)]
pub(crate) struct Hooks {}
