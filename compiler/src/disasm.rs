//! The disassembler: a `luac -l -l` style listing of a [`Proto`] tree.
//!
//! The listing is meant for people (and for snapshot tests), so it is
//! deterministic: it shows no addresses, only chunk names and lines. Each
//! function is printed as
//!
//! ```text
//! (columns are separated by tabs)
//! main <name:0,0> (4 instructions)
//! 0+ params, 2 slots, 1 upvalue, 0 locals, 1 constant, 0 functions
//!     1    [1]    VARARGPREP 0 0 0
//!     2    [1]    GETTABUP   0 0 0    ; _ENV "print"
//!     ...
//! constants (1):
//!     0    S    "print"
//! locals (0):
//! upvalues (1):
//!     0    _ENV    1    0
//! ```
//!
//! followed by its nested functions, recursively, each after a blank line.
//! Instruction operands are printed by [`Instruction`]'s `Display` (raw
//! fields); the comment after `;` decodes what the raw fields hide, as
//! luac does: constants and upvalue names, jump targets (1-based, like the
//! pc column), call arities, and the signed value of immediate operands
//! (`sB`, `sC`), together with the meaning of the k bit on arithmetic
//! instructions (`flip`: the constant was the left operand; `sub`/`shl`:
//! the instruction was derived from a subtraction or left shift).
//! Local ranges are printed 1-based and end-exclusive, like luac's.

use std::fmt::Write;

use crate::opcodes::{Instruction, OpCode, MAX_ARG_C};
use crate::proto::{Constant, Proto};

/// Disassembles `p` and its nested functions.
pub fn disassemble(p: &Proto) -> String {
    let mut out = String::new();
    print_function(&mut out, p, true);
    out
}

/// `"s"` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn print_function(out: &mut String, p: &Proto, is_main: bool) {
    print_header(out, p, is_main);
    for pc in 0..p.code.len() {
        print_instruction(out, p, pc);
    }
    print_debug(out, p);
    for child in &p.protos {
        out.push('\n');
        print_function(out, child, false);
    }
}

fn print_header(out: &mut String, p: &Proto, is_main: bool) {
    let kind = if is_main { "main" } else { "function" };
    let n = p.code.len();
    let _ = writeln!(
        out,
        "{kind} <{}:{},{}> ({n} instruction{})",
        crate::chunkid(&p.source),
        p.line_defined,
        p.last_line_defined,
        plural(n)
    );
    let np = usize::from(p.num_params);
    let slots = usize::from(p.max_stack);
    let _ = writeln!(
        out,
        "{np}{} param{}, {slots} slot{}, {} upvalue{}, {} local{}, {} constant{}, {} function{}",
        if p.is_vararg { "+" } else { "" },
        plural(np),
        plural(slots),
        p.upvalues.len(),
        plural(p.upvalues.len()),
        p.loc_vars.len(),
        plural(p.loc_vars.len()),
        p.constants.len(),
        plural(p.constants.len()),
        p.protos.len(),
        plural(p.protos.len()),
    );
}

fn print_instruction(out: &mut String, p: &Proto, pc: usize) {
    let i = p.code[pc];
    let line = p.line_info.get(pc).copied().unwrap_or(0);
    let _ = write!(out, "\t{}\t[{}]\t{}", pc + 1, line, i);
    let comment = comment(p, pc, i);
    if !comment.is_empty() {
        let _ = write!(out, "\t; {comment}");
    }
    out.push('\n');
}

fn print_debug(out: &mut String, p: &Proto) {
    let _ = writeln!(out, "constants ({}):", p.constants.len());
    for (n, k) in p.constants.iter().enumerate() {
        let tag = match k {
            Constant::Nil => "N",
            Constant::Bool(_) => "B",
            Constant::Int(_) => "I",
            Constant::Float(_) => "F",
            Constant::Str(_) => "S",
        };
        let _ = writeln!(out, "\t{n}\t{tag}\t{}", format_constant(k));
    }
    let _ = writeln!(out, "locals ({}):", p.loc_vars.len());
    for (n, v) in p.loc_vars.iter().enumerate() {
        let name = String::from_utf8_lossy(&v.name);
        let (start, end) = (u64::from(v.start_pc) + 1, u64::from(v.end_pc) + 1);
        let _ = writeln!(out, "\t{n}\t{name}\t{start}\t{end}");
    }
    let _ = writeln!(out, "upvalues ({}):", p.upvalues.len());
    for (n, u) in p.upvalues.iter().enumerate() {
        let name = String::from_utf8_lossy(&u.name);
        let _ = writeln!(out, "\t{n}\t{name}\t{}\t{}", u8::from(u.in_stack), u.index);
    }
}

/// Constant `k` of `p`, formatted, or `?` if out of range.
fn kst(p: &Proto, k: u32) -> String {
    p.constants.get(k as usize).map_or_else(|| "?".to_string(), format_constant)
}

/// Name of upvalue `u` of `p`.
fn upname(p: &Proto, u: u32) -> String {
    p.upvalues
        .get(u as usize)
        .map_or_else(|| "?".into(), |d| String::from_utf8_lossy(&d.name).into_owned())
}

/// 1-based target of a relative jump from `pc`.
fn target(pc: usize, delta: i64) -> i64 {
    pc as i64 + delta + 2
}

/// `EXTRAARG` value following `pc`, scaled as a high part of C.
fn extra_c(p: &Proto, pc: usize, i: Instruction) -> u32 {
    if !i.k() {
        return 0;
    }
    p.code.get(pc + 1).map_or(0, |n| n.ax_field().wrapping_mul(MAX_ARG_C + 1))
}

/// "N in"/"all in" style arity.
fn arity(n: u32, what: &str) -> String {
    if n == 0 {
        format!("all {what}")
    } else {
        format!("{} {what}", n - 1)
    }
}

/// The comment luac would print for instruction `i` at `pc` (with the
/// decoded immediates that our raw-field `Display` does not show).
fn comment(p: &Proto, pc: usize, i: Instruction) -> String {
    let Some(op) = i.opcode() else { return String::new() };
    let (a, b, c, k) = (i.a(), i.b(), i.c(), i.k());
    let kc = |s: String| if k { format!("{s} {}", kst(p, c)) } else { s };
    match op {
        OpCode::LoadK => kst(p, i.bx()),
        OpCode::LoadKX => p.code.get(pc + 1).map_or_else(String::new, |n| kst(p, n.ax_field())),
        OpCode::LoadNil => format!("{} out", b + 1),
        OpCode::GetUpval | OpCode::SetUpval => upname(p, b),
        OpCode::GetTabUp => format!("{} {}", upname(p, b), kst(p, c)),
        OpCode::GetField => kst(p, c),
        OpCode::SetTabUp => kc(format!("{} {}", upname(p, a), kst(p, b))),
        OpCode::SetTable | OpCode::SetI | OpCode::SelfOp => {
            if k {
                kst(p, c)
            } else {
                String::new()
            }
        }
        OpCode::SetField => kc(kst(p, b)),
        OpCode::NewTable => format!("{}", c.wrapping_add(extra_c(p, pc, i))),
        OpCode::AddI => imm_comment("sC", i.sc(), k.then(|| format!("sub {}", -i.sc()))),
        OpCode::ShrI => imm_comment("sC", i.sc(), k.then(|| format!("shl {}", -i.sc()))),
        OpCode::ShlI => imm_comment("sC", i.sc(), None),
        OpCode::AddK
        | OpCode::SubK
        | OpCode::MulK
        | OpCode::ModK
        | OpCode::PowK
        | OpCode::DivK
        | OpCode::IDivK
        | OpCode::BAndK
        | OpCode::BOrK
        | OpCode::BXorK => {
            let s = kst(p, c);
            if k {
                format!("{s} flip")
            } else {
                s
            }
        }
        OpCode::EqK => kst(p, b),
        OpCode::EqI | OpCode::LtI | OpCode::LeI | OpCode::GtI | OpCode::GeI => {
            imm_comment("sB", i.sb(), (c != 0).then(|| "float".to_string()))
        }
        OpCode::Jmp => format!("to {}", target(pc, i64::from(i.sj_field()))),
        OpCode::ForPrep => format!("exit to {}", target(pc, i64::from(i.bx()) + 1)),
        OpCode::TForPrep => format!("to {}", target(pc, i64::from(i.bx()))),
        OpCode::ForLoop | OpCode::TForLoop => format!("to {}", target(pc, -i64::from(i.bx()))),
        OpCode::Call => format!("{} {}", arity(b, "in"), arity(c, "out")),
        OpCode::TailCall => arity(b, "in"),
        OpCode::Return => arity(b, "out"),
        OpCode::VarArg => arity(c, "out"),
        OpCode::Closure => closure_comment(p, i.bx()),
        OpCode::SetList => {
            if k {
                format!("{}", c.wrapping_add(extra_c(p, pc, i)))
            } else {
                String::new()
            }
        }
        _ => String::new(),
    }
}

fn imm_comment(field: &str, v: i32, extra: Option<String>) -> String {
    match extra {
        Some(e) => format!("{field}={v} ({e})"),
        None => format!("{field}={v}"),
    }
}

fn closure_comment(p: &Proto, bx: u32) -> String {
    match p.protos.get(bx as usize) {
        Some(c) => format!(
            "function <{}:{},{}>",
            crate::chunkid(&c.source),
            c.line_defined,
            c.last_line_defined
        ),
        None => "?".to_string(),
    }
}

/// A constant as luac prints it.
pub fn format_constant(k: &Constant) -> String {
    match k {
        Constant::Nil => "nil".to_string(),
        Constant::Bool(b) => b.to_string(),
        Constant::Int(i) => i.to_string(),
        Constant::Float(f) => crate::number::float_to_string(*f),
        Constant::Str(s) => quote(s),
    }
}

/// A string constant between quotes, escaped as luac's `PrintString`.
fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &c in s {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0B => out.push_str("\\v"),
            0x20..=0x7E => out.push(c as char),
            _ => {
                let _ = write!(out, "\\{c:03}");
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_protos_do_not_panic() {
        let mut x: u32 = 12345;
        let code = (0..5000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                Instruction(x)
            })
            .collect();
        let p = Proto {
            source: b"=junk".to_vec(),
            line_defined: 1,
            last_line_defined: 2,
            num_params: 0,
            is_vararg: false,
            max_stack: 2,
            code,
            constants: vec![Constant::Int(1)],
            upvalues: Vec::new(),
            protos: Vec::new(),
            line_info: Vec::new(),
            loc_vars: vec![crate::proto::LocVar {
                name: b"v".to_vec(),
                start_pc: u32::MAX,
                end_pc: 0,
            }],
        };
        assert!(disassemble(&p).starts_with("main <junk:1,2> (5000 instructions)"));
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(quote(b"a\"b\\c\n\x01\xff"), "\"a\\\"b\\\\c\\n\\001\\255\"");
    }
}
