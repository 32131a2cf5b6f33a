//! luprex-compiler: Lua 5.4 source to Luprex bytecode.
//!
//! The pipeline is `lexer` (logos) → `parser` (one pass of recursive
//! descent, as `lparser.c`, producing [`ast`]) → `codegen` (register
//! allocation, constant folding, jump patching, debug information) →
//! [`proto::Proto`]. The compiler knows nothing about the VM's heap: its
//! output is plain data, converted by the VM at load time. [`compile`] runs
//! the last two stages interleaved on the main chunk: each top-level
//! statement is compiled as soon as the parser has read it, then its tree is
//! dropped.
//!
//! **Invariant:** the compiler never panics, whatever bytes it is given;
//! every failure is a [`SyntaxError`] whose message reads exactly like the
//! reference implementation's (`chunk:line: message near 'token'`).

#![warn(missing_docs)]

pub mod ast;
pub mod codegen;
pub mod disasm;
pub mod dump;
pub mod lexer;
pub mod number;
pub mod opcodes;
pub mod parser;
pub mod proto;
pub mod verify;

use std::fmt;

pub use opcodes::{Instruction, OpCode};
pub use proto::{Constant, LocVar, Proto, UpvalDesc};

/// A compile-time error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SyntaxError {
    /// The full message, `chunkid:line: msg near 'tok'`, as the reference prints it.
    pub message: String,
    /// True when the error was found at the end of the input, so that more
    /// input might make it valid (for a REPL's continuation prompt).
    pub incomplete: bool,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Compiles a chunk of Lua source. `chunkname` is as for `load`: `@file`,
/// `=name`, or the source text itself.
pub fn compile(source: &[u8], chunkname: &[u8]) -> Result<Proto, SyntaxError> {
    // Each statement of the main chunk is compiled as soon as it is parsed,
    // so only one top-level statement's tree exists at a time. A syntax
    // error anywhere in the chunk is reported rather than a code generation
    // error in a statement before it (`MainGen` keeps its first error for
    // `finish`), as when the whole chunk was checked before any code was
    // generated.
    let mut main = codegen::MainGen::new(chunkname);
    let (ret, end_line) = parser::parse_each(source, chunkname, |s| main.stat(s))?;
    main.finish(ret.as_ref(), end_line)
}

/// Maximum length of a chunk id, as `LUA_IDSIZE` (including the terminator
/// in C, so at most 59 visible bytes).
pub const ID_SIZE: usize = 60;

/// Formats a chunk name for messages, exactly as `luaO_chunkid`:
/// `=name` → `name`, `@file` → `file` (keeping the end of a long name, with
/// a leading `...`), anything else → `[string "first line..."]`. As text:
/// bytes that are not UTF-8 are replaced ([`chunkid_into`] keeps them).
pub fn chunkid(source: &[u8]) -> String {
    let mut out = Vec::with_capacity(ID_SIZE);
    chunkid_into(source, &mut out);
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// [`chunkid`]'s bytes, appended to `out` as the source holds them (the
/// VM's error messages are Lua strings, built without a text conversion).
pub fn chunkid_into(source: &[u8], out: &mut Vec<u8>) {
    let bufflen = ID_SIZE - 1; // room for visible text
    if let Some(rest) = source.strip_prefix(b"=") {
        let n = rest.len().min(bufflen);
        out.extend_from_slice(&rest[..n]);
        return;
    }
    if let Some(rest) = source.strip_prefix(b"@") {
        if rest.len() <= bufflen {
            out.extend_from_slice(rest);
            return;
        }
        let keep = bufflen - 3;
        out.extend_from_slice(b"...");
        out.extend_from_slice(&rest[rest.len() - keep..]);
        return;
    }
    // [string "source"]
    const PRE: &[u8] = b"[string \"";
    const POS: &[u8] = b"\"]";
    const RETS: &[u8] = b"...";
    let nl = source.iter().position(|&c| c == b'\n');
    let avail = bufflen - PRE.len() - RETS.len() - POS.len();
    out.extend_from_slice(PRE);
    if source.len() < avail && nl.is_none() {
        out.extend_from_slice(source);
    } else {
        let mut l = nl.unwrap_or(source.len());
        if l > avail {
            l = avail;
        }
        out.extend_from_slice(&source[..l]);
        out.extend_from_slice(RETS);
    }
    out.extend_from_slice(POS);
}

#[cfg(test)]
mod tests {
    use super::chunkid;

    #[test]
    fn chunkid_matches_reference() {
        assert_eq!(chunkid(b"=stdin"), "stdin");
        assert_eq!(chunkid(b"@foo.lua"), "foo.lua");
        assert_eq!(chunkid(b"x = = 1"), "[string \"x = = 1\"]");
        assert_eq!(chunkid(b"a\nb"), "[string \"a...\"]");
        let long = "x".repeat(100);
        assert_eq!(chunkid(long.as_bytes()), format!("[string \"{}...\"]", "x".repeat(45)));
        let longfile = format!("@{}", "d/".repeat(50));
        assert_eq!(chunkid(longfile.as_bytes()).len(), 59);
    }
}
