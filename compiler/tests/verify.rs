//! The bytecode verifier against the compiler: every function the compiler
//! produces for every Lua file of the repository (and of the official test
//! suite, when unpacked at `lua-tests/testes`) must verify, and targeted
//! corruptions of compiled code must be rejected.

use luprex_compiler::opcodes::{Instruction, OpCode};
use luprex_compiler::verify::{verify_proto, VerifyError};
use luprex_compiler::{compile, Constant, Proto, UpvalDesc};
use std::path::Path;

#[path = "support/lua_files.rs"]
mod support;
use support::lua_files;

/// Compiles a file (skipping a first `#` line, as `loadfile`); `None` for
/// files that are not valid Lua (error-message fixtures).
fn compile_file(p: &Path) -> Option<Proto> {
    let mut src = std::fs::read(p).ok()?;
    if src.first() == Some(&b'#') {
        let nl = src.iter().position(|&c| c == b'\n').unwrap_or(src.len());
        src.drain(..nl);
    }
    compile(&src, format!("@{}", p.display()).as_bytes()).ok()
}

fn count(p: &Proto) -> usize {
    1 + p.protos.iter().map(count).sum::<usize>()
}

#[test]
fn every_compiled_function_verifies() {
    let (mut files, mut funcs) = (0, 0);
    for path in lua_files() {
        let Some(p) = compile_file(&path) else { continue };
        if let Err(e) = verify_proto(&p) {
            panic!("{}: {e}", path.display());
        }
        files += 1;
        funcs += count(&p);
    }
    assert!(files >= 20, "only {files} files compiled");
    eprintln!("verified {funcs} functions of {files} files");
}

fn main_of(src: &str) -> Proto {
    compile(src.as_bytes(), b"=t").expect("compiles")
}

fn rejects(p: &Proto, what: &str) -> VerifyError {
    match verify_proto(p) {
        Ok(()) => panic!("accepted: {what}"),
        Err(e) => e,
    }
}

/// Replaces the first instruction with opcode `op` in the main function.
fn patch(p: &mut Proto, op: OpCode, f: impl Fn(Instruction) -> Instruction) {
    let pc = p.code.iter().position(|i| i.opcode() == Some(op)).expect("opcode present");
    p.code[pc] = f(p.code[pc]);
}

#[test]
fn good_samples_verify() {
    for src in [
        "local a, b = 1, 2; return a + b",
        "local t = {1, 2, 3, x = 1, [10] = 2}; return #t",
        "for i = 1, 10 do local x = i end",
        "for k, v in pairs({}) do local f = function() return v end end",
        "local function f(...) return ... end; return f(1, 2)",
        "return {...}",
        "local x <close> = nil; return 1",
    ] {
        verify_proto(&main_of(src)).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

#[test]
fn register_out_of_range() {
    let mut p = main_of("local a = 1; local b = a; return b");
    let ms = p.max_stack as u32;
    patch(&mut p, OpCode::Move, |i| i.with_b(ms));
    rejects(&p, "MOVE from a register past max_stack");
    let mut p = main_of("local a = 1; local b = a; return b");
    p.max_stack = 1;
    rejects(&p, "frame too small");
}

#[test]
fn ranges_are_checked() {
    let mut p = main_of("local a, b, c; return a");
    let ms = p.max_stack as u32;
    patch(&mut p, OpCode::LoadNil, |i| i.with_b(ms));
    rejects(&p, "LOADNIL past the frame");
    let mut p = main_of("print(1, 2, 3)");
    let ms = p.max_stack as u32;
    patch(&mut p, OpCode::Call, |i| i.with_b(ms + 1));
    rejects(&p, "CALL arguments past the frame");
    let mut p = main_of("for i = 1, 2 do end");
    let ms = p.max_stack as u32;
    patch(&mut p, OpCode::ForPrep, |i| i.with_a(ms - 3));
    rejects(&p, "FORPREP A+3 past the frame");
    let mut p = main_of("local a, b = 'x', 'y'; return a .. b");
    patch(&mut p, OpCode::Concat, |i| i.with_b(0));
    rejects(&p, "CONCAT of nothing");
}

#[test]
fn constants_are_checked() {
    let mut p = main_of("return x");
    patch(&mut p, OpCode::GetTabUp, |i| i.with_c(200));
    rejects(&p, "constant out of range");
    let mut p = main_of("local t = {}; return t.name");
    let k = p.constants.iter().position(|c| *c == Constant::Str(b"name".to_vec())).unwrap();
    p.constants[k] = Constant::Int(1);
    rejects(&p, "GETFIELD with an integer key constant");
    let mut p = main_of("local a = ...; return a & 0xF0");
    let k = p.constants.iter().position(|c| *c == Constant::Int(0xF0)).unwrap();
    p.constants[k] = Constant::Str(b"x".to_vec());
    rejects(&p, "BANDK with a string constant");
}

#[test]
fn upvalues_and_closures_are_checked() {
    let mut p = main_of("local a = 1; local function f() return a end; return f");
    p.protos[0].upvalues[0].index = 250;
    rejects(&p, "nested upvalue capturing a register past the frame");
    let mut p = main_of("return function() return x end");
    p.protos[0].upvalues[0] = UpvalDesc { name: b"u".to_vec(), in_stack: false, index: 3, kind: 0 };
    rejects(&p, "nested upvalue naming a missing upvalue");
    let mut p = main_of("return x");
    patch(&mut p, OpCode::GetTabUp, |i| i.with_b(1));
    rejects(&p, "GETTABUP of a missing upvalue");
    let mut p = main_of("return function() end");
    patch(&mut p, OpCode::Closure, |i| i.with_bx(1));
    rejects(&p, "CLOSURE of a missing prototype");
}

#[test]
fn control_flow_is_checked() {
    let mut p = main_of("local a = ...; if a then a = 1 end; return a");
    patch(&mut p, OpCode::Jmp, |i| i.with_sj(1000));
    rejects(&p, "jump past the end");
    let mut p = main_of("local a = ...; if a then a = 1 end; return a");
    patch(&mut p, OpCode::Jmp, |i| i.with_sj(-1000));
    rejects(&p, "jump before the start");
    let mut p = main_of("local a = 1");
    p.code.pop();
    rejects(&p, "code without a final return");
    let mut p = main_of("local a = ...; if a then a = 1 end; return a");
    let t = p.code.iter().position(|i| i.opcode().is_some_and(|o| o.is_test())).unwrap();
    p.code[t + 1] = Instruction::abc(OpCode::LoadNil, 0, 0, 0, false);
    rejects(&p, "test not followed by a jump");
    let mut p = main_of("local a = 1");
    p.code.insert(0, Instruction::ax(OpCode::ExtraArg, 0));
    p.line_info.insert(0, 1);
    rejects(&p, "stray EXTRAARG");
    let mut p = main_of("return {}");
    let nt = p.code.iter().position(|i| i.opcode() == Some(OpCode::NewTable)).unwrap();
    p.code[nt + 1] = Instruction::abc(OpCode::LoadNil, 0, 0, 0, false);
    rejects(&p, "NEWTABLE without EXTRAARG");
    let mut p = main_of("local a = 1");
    p.code[0] = Instruction(0x7F);
    rejects(&p, "invalid opcode");
}

#[test]
fn open_results_are_checked() {
    let mut p = main_of("return print(...)");
    let v = p.code.iter().position(|i| i.opcode() == Some(OpCode::VarArg)).unwrap();
    p.code[v] = Instruction::abc(OpCode::LoadNil, p.code[v].a(), 0, 0, false);
    rejects(&p, "CALL with B = 0 after no open results");
}

#[test]
fn table_hints_are_bounded() {
    let mut p = main_of("return {}");
    patch(&mut p, OpCode::NewTable, |i| i.with_c(255));
    rejects(&p, "array hint without SETLIST");
    let mut p = main_of("return {}");
    patch(&mut p, OpCode::NewTable, |i| i.with_b(60));
    rejects(&p, "huge hash hint");
}

#[test]
fn captured_locals_must_be_closed() {
    let mut p = main_of("local a = 1; local f = function() return a end; return f");
    // Make the final return forget to close `a`.
    let r = p.code.len() - 1;
    let i = p.code[r];
    p.code[r] = match i.opcode() {
        Some(OpCode::Return) => i.with_k(false),
        _ => Instruction::abc(OpCode::Return0, 0, 0, 0, false),
    };
    p.code
        .iter_mut()
        .filter(|i| i.opcode() == Some(OpCode::Return))
        .for_each(|i| *i = i.with_k(false));
    rejects(&p, "return leaving an open upvalue");
    let mut p = main_of("local x <close> = nil; return 1");
    p.code
        .iter_mut()
        .filter(|i| i.opcode() == Some(OpCode::Return))
        .for_each(|i| *i = i.with_k(false));
    rejects(&p, "return leaving a to-be-closed variable");
    let mut p = main_of("local x <close> = nil; local t = {}; print(t)");
    patch(&mut p, OpCode::Call, |i| i.with_a(0));
    rejects(&p, "call below a to-be-closed variable");
    let mut p = main_of("local a = 1; local f = function() return a end; f(); return f");
    patch(&mut p, OpCode::Call, |i| i.with_a(0));
    rejects(&p, "call below a captured local");
}

#[test]
fn debug_info_is_checked() {
    let mut p = main_of("local a = 1; return a");
    p.line_info.pop();
    rejects(&p, "short line info");
    let mut p = main_of("local a = 1; return a");
    p.loc_vars[0].end_pc = 1000;
    rejects(&p, "local past the code");
    let mut p = main_of("local a = 1; return a");
    p.line_info.clear();
    verify_proto(&p).expect("stripped line info is fine");
}
