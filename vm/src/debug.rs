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
//!
//! **Introspection** for the `debug` library (`lua_getstack`,
//! `lua_getinfo`, `lua_getlocal`, ...): a frame is named by a [`FrameId`]
//! (thread and frame index), since any thread's frames can be inspected —
//! the running thread's live in `State::ex`, the others' in their thread
//! objects. Locals follow `luaG_findlocal`: named locals active at the
//! frame's pc, then `(temporary)`/`(C temporary)` for the other slots up
//! to the next frame's function slot (for a vararg callee, the slot above
//! its arguments, where the reference moves the function), and
//! `(vararg)` for negative indices.
//!
//! **Hooks** (`Hooks`) are per thread, kept in a `BTreeMap` by thread
//! handle, with a Rust [`HookFn`] each (the library's `hookf` calls the
//! Lua function). While any thread has a hook, `execute.rs` runs the
//! hooked instance of its loop, which calls `State::trace_exec` before
//! each instruction (line events on a new line or a backward jump, as
//! `luaG_traceexec`, with the per-thread `oldpc`), `State::hook_call`
//! when a Lua frame starts (after VARARGPREP for vararg functions) and
//! `State::hook_return` in RETURN*; natives get their call and return
//! events in `call.rs`. A hook runs with hooks disabled; the frame it was
//! called for is recorded so that its callee is named `hook '?'` and
//! `getinfo(2, "r")` sees the transferred values. Hook functions are not
//! roots here: the library keeps them in `registry._HOOKKEY`.

use crate::error::Error;
use crate::func::FnProto;
use crate::state::State;
use crate::thread::{cist, u, CallInfo, Callee, ExecState};
use crate::value::{TableRef, ThreadRef, Value};
use luprex_compiler::OpCode;
use std::collections::BTreeMap;

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

/// `upvalname`: the upvalue's name, `?` when unknown (stripped chunks).
fn upvalname(p: &FnProto, i: u32) -> String {
    match p.upvals.get(i as usize) {
        Some(d) if !d.name.is_empty() => String::from_utf8_lossy(&d.name).into_owned(),
        _ => "?".into(),
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
        // `x << n` by a constant is SHRI by -n, flagged with k.
        OpCode::ShrI if i.k() => "shl",
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
        let mut out = Vec::new();
        self.where_into(level, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// [`State::where_`]'s bytes, appended to `out` (the chunk name as
    /// its source holds it).
    pub fn where_into(&self, level: usize, out: &mut Vec<u8>) {
        let Some(ci) = self.frame_at(level) else { return };
        let Some(p) = self.frame_proto(ci) else { return };
        let line = match frame_line(p, ci.pc) {
            Some(line) => i64::from(line),
            // Level 0 is the VM's own error position (`luaG_addinfo`),
            // which shows line -1 for code without line information.
            None if level == 0 => -1,
            None => return,
        };
        luprex_compiler::chunkid_into(self.heap.str(p.source), out);
        out.push(b':');
        crate::number::fmt_number(Value::Int(line), out);
        out.extend_from_slice(b": ");
    }

    /// ` (local 'x')`-style description of an operand of the running Lua
    /// frame, or `""` (`varinfo`).
    pub(crate) fn varinfo(&self, op: Operand) -> String {
        let mut out = Vec::new();
        self.varinfo_into(op, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// [`State::varinfo`]'s bytes, appended to `out`.
    pub(crate) fn varinfo_into(&self, op: Operand, out: &mut Vec<u8>) {
        let Some(ci) = self.ex.frames.last() else { return };
        let Some(p) = self.frame_proto(ci) else { return };
        let found = match op {
            Operand::Upval(i) => Some(("upvalue", upvalname(p, i))),
            Operand::Reg(r) => getobjname(self, p, (ci.pc as usize).saturating_sub(1), r),
            Operand::None => None,
        };
        if let Some((kind, name)) = found {
            out.extend_from_slice(b" (");
            out.extend_from_slice(kind.as_bytes());
            out.extend_from_slice(b" '");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"')");
        }
    }

    /// How the frame at index `idx` of the running thread was called:
    /// `(namewhat, name)` (`getfuncname`).
    pub(crate) fn frame_funcname(&self, idx: usize) -> Option<(&'static str, String)> {
        self.funcname_in(self.running, &self.ex.frames, idx)
    }

    /// [`State::frame_funcname`] for frame `idx` of `frames`, the frames
    /// of thread `th`. A function called by a hook is named `hook '?'`.
    fn funcname_in(
        &self,
        th: ThreadRef,
        frames: &[CallInfo],
        idx: usize,
    ) -> Option<(&'static str, String)> {
        let ci = frames.get(idx)?;
        if ci.status & cist::TAIL != 0 || idx == 0 {
            return None;
        }
        if self.hooks.hooked == Some((th, idx - 1)) {
            return Some(("hook", "?".into()));
        }
        let caller = &frames[idx - 1];
        // As 5.4.4's GCTM: the frame running when a finalizer is called
        // is flagged, and the finalizer is named by it.
        if caller.status & cist::FIN != 0 {
            return Some(("metamethod", "__gc".into()));
        }
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
            if self.heap.raw_eq(v, f) {
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

    /// Describes the function of frame `idx` of `frames` (thread `th`)
    /// for a traceback line (`pushfuncname`).
    fn describe_frame(&self, th: ThreadRef, frames: &[CallInfo], idx: usize) -> String {
        let ci = &frames[idx];
        if let Some(n) = self.global_funcname(Self::frame_function(ci)) {
            return format!("function '{n}'");
        }
        if let Some((what, name)) = self.funcname_in(th, frames, idx) {
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
        self.traceback_of(self.running, msg, level, host_frame)
    }

    /// [`State::traceback`] of thread `th` (running or not).
    pub fn traceback_of(
        &self,
        th: ThreadRef,
        msg: Option<&str>,
        level: usize,
        host_frame: bool,
    ) -> String {
        let frames = &self.ex_of(th).frames;
        let mut out = String::new();
        if let Some(m) = msg {
            out.push_str(m);
            out.push('\n');
        }
        out.push_str("stack traceback:");
        let n = frames.len();
        let mut lines: Vec<String> = Vec::new();
        for lvl in level..n {
            let idx = n - 1 - lvl;
            let ci = &frames[idx];
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
            line.push_str(&self.describe_frame(th, frames, idx));
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

// ----- introspection for the debug library (`lua_getstack`, `lua_getinfo`,
// `lua_getlocal`, `lua_getupvalue`, ...) ------------------------------------

/// An active frame of some thread, as found by [`State::frame_by_level`]
/// (`lua_getstack`'s `lua_Debug`). Valid until that thread runs again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameId {
    /// The thread.
    pub thread: ThreadRef,
    /// Index of the frame in the thread's frame stack (0 = bottom).
    pub idx: usize,
}

/// What `lua_getinfo` tells about a function or a frame.
#[derive(Clone, Debug, Default)]
pub struct DebugInfo {
    /// The chunk name (`@file`, `=name` or the source text).
    pub source: Vec<u8>,
    /// The printable chunk name (`luaO_chunkid`).
    pub short_src: String,
    /// `"Lua"`, `"C"` or `"main"`.
    pub what: &'static str,
    /// Line of `function` (`-1` for natives, 0 for main chunks).
    pub line_defined: i64,
    /// Line of `end` (`-1` for natives).
    pub last_line_defined: i64,
    /// Current line of a Lua frame, else `-1`.
    pub current_line: i64,
    /// How the frame was called: name.
    pub name: Option<String>,
    /// How the frame was called: `"global"`, `"local"`, `"method"`,
    /// `"field"`, `"upvalue"`, `"hook"`, `"metamethod"`, `"for iterator"`
    /// or `""`.
    pub namewhat: &'static str,
    /// Number of upvalues.
    pub nups: usize,
    /// Number of fixed parameters.
    pub nparams: usize,
    /// Whether the function is vararg (natives always are).
    pub is_vararg: bool,
    /// Whether the frame was entered by a tail call.
    pub is_tail_call: bool,
    /// Index of the first value transferred (call/return hooks), else 0.
    pub ftransfer: u32,
    /// Number of values transferred (call/return hooks), else 0.
    pub ntransfer: u32,
    /// The function.
    pub func: Value,
    /// Lines with code of a Lua function (`L` option), sorted.
    pub active_lines: Option<Vec<u32>>,
}

impl State {
    /// The execution state of thread `th` (the running one's lives in the
    /// state, the others' in their thread objects).
    pub(crate) fn ex_of(&self, th: ThreadRef) -> &ExecState {
        if th == self.running {
            &self.ex
        } else {
            &self.heap.threads.get(th).ex
        }
    }

    fn ex_of_mut(&mut self, th: ThreadRef) -> &mut ExecState {
        if th == self.running {
            &mut self.ex
        } else {
            &mut self.heap.threads.get_mut(th).ex
        }
    }

    /// The frame at `level` of thread `th` (0 = its top frame; for the
    /// running thread called from a native, the native itself), as
    /// `lua_getstack`.
    pub fn frame_by_level(&self, th: ThreadRef, level: i64) -> Option<FrameId> {
        let n = self.ex_of(th).frames.len();
        let level = usize::try_from(level).ok()?;
        (level < n).then(|| FrameId { thread: th, idx: n - 1 - level })
    }

    /// Information about an active frame (`lua_getinfo` with a frame).
    pub fn frame_info(&self, f: FrameId) -> DebugInfo {
        let frames = &self.ex_of(f.thread).frames;
        let Some(ci) = frames.get(f.idx) else { return DebugInfo::default() };
        let mut info = self.function_info(Self::frame_function(ci));
        info.current_line = self.current_line(ci).map_or(-1, i64::from);
        if let Some((what, name)) = self.funcname_in(f.thread, frames, f.idx) {
            info.namewhat = what;
            info.name = Some(name);
        }
        info.is_tail_call = ci.status & cist::TAIL != 0;
        if let Some((th, idx, ft, nt)) = self.hooks.transfer {
            if th == f.thread && idx == f.idx {
                (info.ftransfer, info.ntransfer) = (ft, nt);
            }
        }
        info
    }

    /// Information about a function value (`lua_getinfo` with `>`); the
    /// frame-only fields are left empty.
    pub fn function_info(&self, f: Value) -> DebugInfo {
        let mut info = DebugInfo { func: f, current_line: -1, ..DebugInfo::default() };
        match f {
            Value::LuaFn(h) => {
                let cl = self.heap.lua_fns.get(h);
                let p = self.heap.protos.get(cl.proto);
                let src = self.heap.str(p.source);
                info.source = src.to_vec();
                info.short_src = luprex_compiler::chunkid(src);
                info.what = if p.line_defined == 0 { "main" } else { "Lua" };
                info.line_defined = i64::from(p.line_defined);
                info.last_line_defined = i64::from(p.last_line_defined);
                info.nups = cl.upvals.len();
                info.nparams = usize::from(p.num_params);
                info.is_vararg = p.is_vararg;
                // As `collectvalidlines`: a vararg function's VARARGPREP
                // does not count.
                let skip = usize::from(p.is_vararg);
                let mut lines: Vec<u32> = p.line_info.iter().skip(skip).copied().collect();
                lines.sort_unstable();
                lines.dedup();
                info.active_lines = Some(lines);
            }
            _ => {
                info.source = b"=[C]".to_vec();
                info.short_src = "[C]".into();
                info.what = "C";
                info.line_defined = -1;
                info.last_line_defined = -1;
                info.is_vararg = true;
                if let Value::RustFn(h) = f {
                    info.nups = self.heap.rust_fns.get(h).upvalues.len();
                }
            }
        }
        info
    }

    /// Where local `n` of frame `f` lives and its name (`luaG_findlocal`):
    /// named locals active at the frame's pc, then `(temporary)` /
    /// `(C temporary)` for other slots of the frame, and for negative `n`
    /// the `(vararg)` arguments of a vararg Lua function.
    fn find_local(&self, f: FrameId, n: i64) -> Option<(String, usize)> {
        let ex = self.ex_of(f.thread);
        let ci = ex.frames.get(f.idx)?;
        let base = u(ci.base);
        let p = self.frame_proto(ci);
        if let Some(p) = p {
            if n < 0 {
                let nextra = u(ci.nextra);
                let k = usize::try_from(n.unsigned_abs()).ok()?;
                if !p.is_vararg || k > nextra {
                    return None;
                }
                return Some(("(vararg)".into(), base - 1 - nextra + (k - 1)));
            }
            if n > 0 && ci.pc > 0 {
                if let Some(name) = p.local_name(n as usize, ci.pc as usize - 1) {
                    return Some((
                        String::from_utf8_lossy(name).into_owned(),
                        base + n as usize - 1,
                    ));
                }
            }
        }
        // The frame's extent: up to the next frame's function (the slot
        // above a vararg callee's arguments, as the reference moves it), or
        // the stack top for the top frame.
        let limit = match ex.frames.get(f.idx + 1) {
            None => ex.stack.len(),
            Some(next) if matches!(next.callee, Callee::Lua(_)) => u(next.base) - 1,
            Some(next) => u(next.func),
        };
        let n = usize::try_from(n).ok().filter(|&n| n > 0)?;
        if limit.saturating_sub(base) < n {
            return None;
        }
        let name = if p.is_some() { "(temporary)" } else { "(C temporary)" };
        Some((name.into(), base + n - 1))
    }

    /// Name and value of local `n` of frame `f` (`lua_getlocal`).
    pub fn frame_local(&self, f: FrameId, n: i64) -> Option<(String, Value)> {
        let (name, slot) = self.find_local(f, n)?;
        let v = self.ex_of(f.thread).stack.get(slot).copied().unwrap_or(Value::Nil);
        Some((name, v))
    }

    /// Sets local `n` of frame `f`; its name, or `None` if there is no
    /// such local (`lua_setlocal`).
    pub fn set_frame_local(&mut self, f: FrameId, n: i64, v: Value) -> Option<String> {
        let (name, slot) = self.find_local(f, n)?;
        let stack = &mut self.ex_of_mut(f.thread).stack;
        if let Some(s) = stack.get_mut(slot) {
            *s = v;
        }
        Some(name)
    }

    /// Name of parameter `n` of a Lua function (`lua_getlocal` with a
    /// function): only parameters are active at its start.
    pub fn param_name(&self, f: Value, n: i64) -> Option<String> {
        let Value::LuaFn(h) = f else { return None };
        let p = self.heap.protos.get(self.heap.lua_fns.get(h).proto);
        let n = usize::try_from(n).ok().filter(|&n| n > 0)?;
        p.local_name(n, 0).map(|s| String::from_utf8_lossy(s).into_owned())
    }

    /// Name and value of upvalue `n` of function `f` (`lua_getupvalue`):
    /// natives' upvalues have the empty name, unnamed Lua ones
    /// `(no name)`.
    pub fn upvalue(&self, f: Value, n: i64) -> Option<(String, Value)> {
        let i = usize::try_from(n).ok().filter(|&n| n > 0)? - 1;
        match f {
            Value::LuaFn(h) => {
                let cl = self.heap.lua_fns.get(h);
                let uv = *cl.upvals.get(i)?;
                let p = self.heap.protos.get(cl.proto);
                let name = match p.upvals.get(i) {
                    Some(d) if !d.name.is_empty() => String::from_utf8_lossy(&d.name).into_owned(),
                    _ => "(no name)".into(),
                };
                let v = match *self.heap.upvals.get(uv) {
                    crate::func::UpVal::Closed(v) => v,
                    crate::func::UpVal::Open { thread, slot } => {
                        self.ex_of(thread).stack.get(slot as usize).copied().unwrap_or(Value::Nil)
                    }
                };
                Some((name, v))
            }
            Value::RustFn(h) => {
                let v = *self.heap.rust_fns.get(h).upvalues.get(i)?;
                Some((String::new(), v))
            }
            _ => None,
        }
    }

    /// Sets upvalue `n` of function `f`; its name, or `None`
    /// (`lua_setupvalue`).
    pub fn set_upvalue(&mut self, f: Value, n: i64, v: Value) -> Option<String> {
        let (name, _) = self.upvalue(f, n)?;
        let i = n as usize - 1;
        match f {
            Value::LuaFn(h) => {
                let uv = self.heap.lua_fns.get(h).upvals[i];
                self.upval_set(uv, v);
            }
            Value::RustFn(h) => self.heap.rust_fns.get_mut(h).upvalues[i] = v,
            _ => return None,
        }
        Some(name)
    }

    /// An identity for upvalue `n` of `f` (`lua_upvalueid`): equal for
    /// closures sharing the variable. Without light userdata it is an
    /// integer: positive for Lua upvalues (their handle), negative for a
    /// native's own upvalue slots.
    pub fn upvalue_id(&self, f: Value, n: i64) -> Option<i64> {
        let i = usize::try_from(n).ok().filter(|&n| n > 0)? - 1;
        match f {
            Value::LuaFn(h) => {
                let uv = *self.heap.lua_fns.get(h).upvals.get(i)?;
                Some(i64::from(uv.index()) + 1)
            }
            Value::RustFn(h) => {
                self.heap.rust_fns.get(h).upvalues.get(i)?;
                Some(-(i64::from(h.index()) * 256 + i as i64 + 1))
            }
            _ => None,
        }
    }

    /// Makes upvalue `n1` of Lua function `f1` refer to upvalue `n2` of Lua
    /// function `f2` (`lua_upvaluejoin`). False if an index is invalid.
    pub fn upvalue_join(&mut self, f1: Value, n1: i64, f2: Value, n2: i64) -> bool {
        let (Value::LuaFn(h1), Value::LuaFn(h2)) = (f1, f2) else { return false };
        let idx = |n: i64| usize::try_from(n).ok().filter(|&n| n > 0).map(|n| n - 1);
        let (Some(i1), Some(i2)) = (idx(n1), idx(n2)) else { return false };
        let Some(&uv) = self.heap.lua_fns.get(h2).upvals.get(i2) else { return false };
        match self.heap.lua_fns.get_mut(h1).upvals.get_mut(i1) {
            Some(slot) => {
                *slot = uv;
                true
            }
            None => false,
        }
    }
}

impl State {
    /// Sets the metatable of any value, bypassing `__metatable`
    /// (`lua_setmetatable`): a table's or userdata's own (registering a
    /// `__gc` finalizer), otherwise the one of the value's type.
    pub fn set_any_metatable(&mut self, v: Value, mt: Option<TableRef>) {
        match v {
            Value::Table(t) => {
                self.heap.tables.set_meta(t, mt);
                self.check_finalizer(v, mt);
            }
            Value::UserData(d) => {
                self.heap.userdata.get_mut(d).meta = mt;
                self.check_finalizer(v, mt);
            }
            _ => self.type_meta[v.type_of() as usize] = mt,
        }
    }
}

// ----- hooks (`lua_sethook`, `luaD_hook`, `luaG_traceexec`) ---------------

/// The events a hook is called for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// A function was called.
    Call,
    /// A function is returning.
    Return,
    /// The interpreter starts a new line (or jumps back).
    Line,
    /// The instruction count ran out.
    Count,
    /// A function was entered by a tail call.
    TailCall,
}

impl HookEvent {
    /// The name `debug.sethook`'s hook receives.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::Call => "call",
            HookEvent::Return => "return",
            HookEvent::Line => "line",
            HookEvent::Count => "count",
            HookEvent::TailCall => "tail call",
        }
    }
}

/// Hook mask bits (`LUA_MASKCALL`, ...).
pub mod hookmask {
    /// Call (and tail call) events.
    pub const CALL: u8 = 1;
    /// Return events.
    pub const RET: u8 = 2;
    /// Line events.
    pub const LINE: u8 = 4;
    /// Count events.
    pub const COUNT: u8 = 8;
}

/// A hook: called with the event and, for line events, the new line. It
/// runs with hooks disabled; its error propagates to the hooked code.
pub type HookFn = fn(&mut State, HookEvent, Option<u32>) -> Result<(), Error>;

/// The hook of one thread.
#[derive(Clone, Copy)]
struct ThreadHook {
    f: HookFn,
    mask: u8,
    base_count: i64,
    count: i64,
    /// Index of the last instruction traced (`L->oldpc`).
    oldpc: u32,
}

/// Debug hooks configured on a state, per thread (`debug.sethook`).
///
/// `any` is true while some thread has a hook: the dispatch loop then runs
/// its hooked instance (see `execute.rs`). `running` is true while a hook
/// runs (hooks do not nest: `allowhook`); `hooked` is the frame that a
/// running hook was called for (its callee is named `hook '?'`), and
/// `transfer` the `ftransfer`/`ntransfer` of that frame.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) any: bool,
    per: BTreeMap<ThreadRef, ThreadHook>,
    running: bool,
    hooked: Option<(ThreadRef, usize)>,
    transfer: Option<(ThreadRef, usize, u32, u32)>,
}

impl Hooks {
    /// The words the state hashes cover (`schema.rs`): whether any hook is
    /// set, and each hook's mask and counts, in thread order (the hook
    /// functions are Rust function pointers, not hashable).
    pub(crate) fn describe(&self, mut w: impl FnMut(u64)) {
        w(u64::from(self.any));
        w(self.per.len() as u64);
        for h in self.per.values() {
            w(u64::from(h.mask));
            w(h.base_count as u64);
            w(h.count as u64);
        }
    }
}

impl State {
    /// Sets (or, with `None` or an empty mask, clears) the hook of thread
    /// `th` (`lua_sethook`). `mask` is made of [`hookmask`] bits; `count`
    /// is the instruction count of count events.
    pub fn set_hook(&mut self, th: ThreadRef, f: Option<HookFn>, mask: u8, count: i64) {
        match f {
            Some(f) if mask != 0 => {
                let oldpc = self.hooks.per.get(&th).map_or(0, |h| h.oldpc);
                let h = ThreadHook { f, mask, base_count: count, count, oldpc };
                self.hooks.per.insert(th, h);
            }
            _ => {
                self.hooks.per.remove(&th);
            }
        }
        self.hooks.any = !self.hooks.per.is_empty();
    }

    /// The hook of thread `th`, its mask and count (`lua_gethook`).
    pub fn hook(&self, th: ThreadRef) -> Option<(HookFn, u8, i64)> {
        self.hooks.per.get(&th).map(|h| (h.f, h.mask, h.base_count))
    }

    /// Calls the running thread's hook for the top frame (`luaD_hook`).
    #[cold]
    fn run_hook(
        &mut self,
        ev: HookEvent,
        line: Option<u32>,
        transfer: Option<(u32, u32)>,
    ) -> Result<(), Error> {
        if self.hooks.running {
            return Ok(());
        }
        let th = self.running;
        let Some(h) = self.hooks.per.get(&th).copied() else { return Ok(()) };
        let idx = self.ex.frames.len().wrapping_sub(1);
        let saved = (self.hooks.hooked, self.hooks.transfer);
        self.hooks.running = true;
        self.hooks.hooked = Some((th, idx));
        self.hooks.transfer = transfer.map(|(f, n)| (th, idx, f, n));
        let r = (h.f)(self, ev, line);
        self.hooks.running = false;
        (self.hooks.hooked, self.hooks.transfer) = saved;
        r
    }

    fn hook_mask(&self) -> u8 {
        self.hooks.per.get(&self.running).map_or(0, |h| h.mask)
    }

    fn set_oldpc(&mut self, pc: u32) {
        if let Some(h) = self.hooks.per.get_mut(&self.running) {
            h.oldpc = pc;
        }
    }

    /// The top frame was just entered (a Lua frame before its first
    /// instruction, or after VARARGPREP; a native before it runs): the
    /// call hook (`luaD_hookcall`, `precallC`).
    #[cold]
    pub(crate) fn hook_call(&mut self) -> Result<(), Error> {
        let Some(&ci) = self.ex.frames.last() else { return Ok(()) };
        let lua = self.frame_proto(&ci).map(|p| usize::from(p.num_params));
        if lua.is_some() {
            self.set_oldpc(0);
        }
        if self.hook_mask() & hookmask::CALL == 0 {
            return Ok(());
        }
        let ev = if ci.status & cist::TAIL != 0 { HookEvent::TailCall } else { HookEvent::Call };
        let n = lua.unwrap_or_else(|| self.ex.stack.len().saturating_sub(u(ci.base)));
        let top = self.ex.frames.len() - 1;
        // Hooks see the pc as already incremented (the first line).
        let pc = ci.pc;
        if lua.is_some() {
            self.ex.frames[top].pc = pc.max(1);
        }
        let r = self.run_hook(ev, None, Some((1, n as u32)));
        if let Some(c) = self.ex.frames.get_mut(top) {
            c.pc = pc;
        }
        r
    }

    /// The call hook of a vararg Lua function, after VARARGPREP (which is
    /// not traced); the next instruction counts as a new line.
    #[cold]
    pub(crate) fn hook_call_vararg(&mut self) -> Result<(), Error> {
        self.hook_call()?;
        self.set_oldpc(1);
        Ok(())
    }

    /// The top frame returns `stack[first..first + n]`: the return hook
    /// (`rethook`), then the caller's trace position is set to its call.
    #[cold]
    pub(crate) fn hook_return(&mut self, first: usize, n: usize) -> Result<(), Error> {
        let len = self.ex.frames.len();
        let Some(&ci) = self.ex.frames.last() else { return Ok(()) };
        if self.hook_mask() & hookmask::RET != 0 {
            let ft = first.saturating_sub(u(ci.base)) + 1;
            self.run_hook(HookEvent::Return, None, Some((ft as u32, n as u32)))?;
        }
        if len >= 2 {
            let caller = self.ex.frames[len - 2];
            if matches!(caller.callee, Callee::Lua(_)) {
                self.set_oldpc(caller.pc.saturating_sub(1));
            }
        }
        Ok(())
    }

    /// Line and count hooks before instruction `pc` of the top (Lua) frame,
    /// whose saved pc is `pc + 1` (`luaG_traceexec`): a line event when
    /// the instruction is on a new line or the loop jumped back.
    #[cold]
    pub(crate) fn trace_exec(&mut self, pc: usize) -> Result<(), Error> {
        if self.hooks.running {
            return Ok(());
        }
        let Some(h) = self.hooks.per.get_mut(&self.running) else { return Ok(()) };
        if h.mask & (hookmask::LINE | hookmask::COUNT) == 0 {
            return Ok(());
        }
        let mask = h.mask;
        let mut counthook = false;
        if mask & hookmask::COUNT != 0 {
            h.count -= 1;
            if h.count <= 0 {
                h.count = h.base_count;
                counthook = true;
            }
        }
        let oldpc = h.oldpc as usize;
        let Some(ci) = self.ex.frames.last() else { return Ok(()) };
        let Some(p) = self.frame_proto(ci) else { return Ok(()) };
        if pc == 0 && p.is_vararg {
            return Ok(()); // hooks start after VARARGPREP
        }
        let oldpc = if oldpc < p.code.len() { oldpc } else { 0 };
        let (oldline, newline) = (p.line_at(oldpc), p.line_at(pc));
        if counthook {
            self.run_hook(HookEvent::Count, None, None)?;
        }
        if mask & hookmask::LINE != 0 {
            if pc <= oldpc || oldline != newline {
                self.run_hook(HookEvent::Line, newline, None)?;
            }
            self.set_oldpc(pc as u32);
        }
        Ok(())
    }
}
