//! Binary chunks: `string.dump`'s output and `load`'s binary input
//! (`ldump.c` and `lundump.c`).
//!
//! A binary chunk is a [`Proto`] tree serialized by [`dump`] and read back
//! by [`undump`]. The bytes are Luprex's own; only the header is PUC Lua
//! 5.4's, byte for byte (signature, version 0x54, format 0, `LUAC_DATA`,
//! the sizes of an instruction, an integer and a float, and the check
//! values `LUAC_INT` and `LUAC_NUM`), because the official test suite
//! inspects it. What follows the header is a tag of our own, [`TAG`], so
//! that a chunk written by PUC Lua (whose header is the same) is refused
//! right there with `format mismatch`, before anything of its body is read.
//!
//! After the tag come the main function's upvalue count (a byte, as in
//! PUC) and the main function. A function is: its source (a string or
//! "absent": absent when stripped, or when equal to the enclosing
//! function's, which it then inherits), the lines where it is defined,
//! parameter count, vararg flag and frame size, the code (little-endian
//! words), the constants (a tag byte and the value), the upvalue
//! descriptors, the nested functions, and the debug information: lines
//! (as zigzag deltas), local variables and upvalue names. Integers are
//! LEB128 varints; strings are a varint length plus one (zero: absent)
//! followed by the bytes. With `strip`, the debug information is empty and
//! the source absent: a stripped chunk loads with source `=?`, no lines, no
//! local or upvalue names, as in PUC Lua.
//!
//! **Hostile input.** `undump` never panics and never allocates more than
//! the input could describe: every count is checked against the bytes left
//! (each element needs at least one byte) before anything is reserved, the
//! nesting of functions is bounded by [`crate::verify::MAX_NESTING`], and a
//! short input is always `truncated chunk`. The result is checked by
//! [`verify_proto`] before it is returned, so the VM only ever sees code
//! that it can run safely. Errors read as `lundump.c`'s: `name: bad binary
//! format (why)`, where `name` is the chunk name without its `@`/`=` (or
//! `binary string` when the name is the chunk itself).

use crate::opcodes::Instruction;
use crate::proto::{Constant, LocVar, Proto, UpvalDesc};
use crate::verify::{verify_proto, MAX_NESTING};

/// The header, as PUC Lua 5.4 writes it (`luaU_dump`'s `dumpHeader`).
pub const HEADER: &[u8] = b"\x1bLua\x54\x00\x19\x93\r\n\x1a\n\x04\x08\x08";
/// `LUAC_INT`, written after the header.
pub const LUAC_INT: i64 = 0x5678;
/// `LUAC_NUM`, written after `LUAC_INT`.
pub const LUAC_NUM: f64 = 370.5;
/// Luprex's own format tag, after the check values (PUC Lua has its
/// upvalue count byte there). The last byte is the format revision.
pub const TAG: &[u8] = b"LPX\x01";

/// Why a binary chunk could not be read: the full message,
/// `name: bad binary format (why)`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UndumpError {
    /// The message, as `lundump.c` would word it.
    pub message: String,
}

const K_NIL: u8 = 0;
const K_FALSE: u8 = 1;
const K_TRUE: u8 = 2;
const K_INT: u8 = 3;
const K_FLOAT: u8 = 4;
const K_STR: u8 = 5;

/// Serializes a prototype tree (`lua_dump`); `strip` leaves out the debug
/// information and the source.
pub fn dump(p: &Proto, strip: bool) -> Vec<u8> {
    let mut w = Writer { out: Vec::new(), strip };
    w.out.extend_from_slice(HEADER);
    w.out.extend_from_slice(&LUAC_INT.to_le_bytes());
    w.out.extend_from_slice(&LUAC_NUM.to_le_bytes());
    w.out.extend_from_slice(TAG);
    w.out.push(p.upvalues.len().min(255) as u8);
    w.function(p, None);
    w.out
}

/// The prototype tree `dump(p, true)` would load as: no debug information
/// and source `=?`.
pub fn stripped(p: &Proto) -> Proto {
    Proto {
        source: b"=?".to_vec(),
        line_info: Vec::new(),
        loc_vars: Vec::new(),
        upvalues: p.upvalues.iter().map(|u| UpvalDesc { name: Vec::new(), ..u.clone() }).collect(),
        protos: p.protos.iter().map(stripped).collect(),
        ..p.clone()
    }
}

struct Writer {
    out: Vec<u8>,
    strip: bool,
}

impl Writer {
    fn varint(&mut self, mut n: u64) {
        loop {
            let b = (n & 0x7F) as u8;
            n >>= 7;
            if n == 0 {
                self.out.push(b);
                return;
            }
            self.out.push(b | 0x80);
        }
    }

    fn string(&mut self, s: Option<&[u8]>) {
        match s {
            None => self.varint(0),
            Some(s) => {
                self.varint(s.len() as u64 + 1);
                self.out.extend_from_slice(s);
            }
        }
    }

    fn function(&mut self, p: &Proto, parent_source: Option<&[u8]>) {
        let same = parent_source == Some(p.source.as_slice());
        self.string(if self.strip || same { None } else { Some(&p.source) });
        self.varint(p.line_defined as u64);
        self.varint(p.last_line_defined as u64);
        self.out.extend_from_slice(&[p.num_params, p.is_vararg as u8, p.max_stack]);
        self.varint(p.code.len() as u64);
        for i in &p.code {
            self.out.extend_from_slice(&i.0.to_le_bytes());
        }
        self.varint(p.constants.len() as u64);
        for k in &p.constants {
            self.constant(k);
        }
        self.varint(p.upvalues.len() as u64);
        for u in &p.upvalues {
            self.out.extend_from_slice(&[u.in_stack as u8, u.index, u.kind]);
        }
        self.varint(p.protos.len() as u64);
        for c in &p.protos {
            self.function(c, Some(&p.source));
        }
        self.debug(p);
    }

    fn constant(&mut self, k: &Constant) {
        match k {
            Constant::Nil => self.out.push(K_NIL),
            Constant::Bool(false) => self.out.push(K_FALSE),
            Constant::Bool(true) => self.out.push(K_TRUE),
            Constant::Int(i) => {
                self.out.push(K_INT);
                self.out.extend_from_slice(&i.to_le_bytes());
            }
            Constant::Float(f) => {
                self.out.push(K_FLOAT);
                self.out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            Constant::Str(s) => {
                self.out.push(K_STR);
                self.string(Some(s));
            }
        }
    }

    fn debug(&mut self, p: &Proto) {
        if self.strip {
            self.out.extend_from_slice(&[0, 0, 0]);
            return;
        }
        self.varint(p.line_info.len() as u64);
        let mut prev = p.line_defined as i64;
        for &l in &p.line_info {
            let d = l as i64 - prev;
            self.varint(((d << 1) ^ (d >> 63)) as u64);
            prev = l as i64;
        }
        self.varint(p.loc_vars.len() as u64);
        for lv in &p.loc_vars {
            self.string(Some(&lv.name));
            self.varint(lv.start_pc as u64);
            self.varint(lv.end_pc as u64);
        }
        self.varint(p.upvalues.len() as u64);
        for u in &p.upvalues {
            self.string(Some(&u.name));
        }
    }
}

/// The name `lundump.c` uses in messages for chunk name `chunkname`.
fn load_name(chunkname: &[u8]) -> String {
    match chunkname.first() {
        Some(b'@' | b'=') => String::from_utf8_lossy(&chunkname[1..]).into_owned(),
        Some(0x1b) => "binary string".into(),
        _ => String::from_utf8_lossy(chunkname).into_owned(),
    }
}

/// Reads a binary chunk back into a prototype tree (`luaU_undump`), and
/// verifies it. `chunkname` is as for `load` (used in messages).
pub fn undump(bytes: &[u8], chunkname: &[u8]) -> Result<Proto, UndumpError> {
    let mut r = Reader { b: bytes, pos: 0 };
    let res = r.header().and_then(|_| {
        let nup = r.byte()?;
        let p = r.function(None, 0)?;
        if p.upvalues.len() != nup as usize {
            return Err("corrupted chunk".to_string());
        }
        verify_proto(&p).map_err(|e| e.to_string())?;
        Ok(p)
    });
    res.map_err(|why| UndumpError {
        message: format!("{}: bad binary format ({why})", load_name(chunkname)),
    })
}

type RR<T> = Result<T, String>;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

const TRUNCATED: &str = "truncated chunk";

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.b.len().saturating_sub(self.pos)
    }

    fn bytes(&mut self, n: usize) -> RR<&'a [u8]> {
        if n > self.left() {
            return Err(TRUNCATED.into());
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn byte(&mut self) -> RR<u8> {
        Ok(self.bytes(1)?[0])
    }

    fn array8(&mut self) -> RR<[u8; 8]> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.bytes(8)?);
        Ok(a)
    }

    fn literal(&mut self, lit: &[u8], why: &str) -> RR<()> {
        if self.bytes(lit.len())? != lit {
            return Err(why.into());
        }
        Ok(())
    }

    fn header(&mut self) -> RR<()> {
        self.literal(&HEADER[..4], "not a binary chunk")?;
        if self.byte()? != HEADER[4] {
            return Err("version mismatch".into());
        }
        if self.byte()? != HEADER[5] {
            return Err("format mismatch".into());
        }
        self.literal(&HEADER[6..12], "corrupted chunk")?;
        for (i, what) in ["Instruction", "lua_Integer", "lua_Number"].iter().enumerate() {
            if self.byte()? != HEADER[12 + i] {
                return Err(format!("{what} size mismatch"));
            }
        }
        if i64::from_le_bytes(self.array8()?) != LUAC_INT {
            return Err("integer format mismatch".into());
        }
        if f64::from_le_bytes(self.array8()?) != LUAC_NUM {
            return Err("float format mismatch".into());
        }
        self.literal(TAG, "format mismatch")
    }

    fn varint(&mut self) -> RR<u64> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = (b & 0x7F) as u64;
            if shift == 63 && bits > 1 {
                return Err("integer overflow".into());
            }
            n |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err("integer overflow".into())
    }

    fn u32(&mut self) -> RR<u32> {
        u32::try_from(self.varint()?).map_err(|_| "integer overflow".to_string())
    }

    /// A count of elements of at least `min_size` bytes each, bounded by
    /// the input left.
    fn count(&mut self, min_size: usize) -> RR<usize> {
        let n = self.varint()?;
        match usize::try_from(n) {
            Ok(n) if n.saturating_mul(min_size) <= self.left() => Ok(n),
            _ => Err(TRUNCATED.into()),
        }
    }

    fn string(&mut self) -> RR<Option<Vec<u8>>> {
        let n = self.varint()?;
        if n == 0 {
            return Ok(None);
        }
        let n = usize::try_from(n - 1).map_err(|_| TRUNCATED.to_string())?;
        Ok(Some(self.bytes(n)?.to_vec()))
    }

    fn function(&mut self, parent_source: Option<&[u8]>, depth: usize) -> RR<Proto> {
        if depth > MAX_NESTING {
            return Err("functions nested too deeply".into());
        }
        let source = match self.string()? {
            Some(s) => s,
            None => parent_source.unwrap_or(b"=?").to_vec(),
        };
        let line_defined = self.u32()?;
        let last_line_defined = self.u32()?;
        let num_params = self.byte()?;
        let is_vararg = match self.byte()? {
            0 => false,
            1 => true,
            _ => return Err("corrupted chunk".into()),
        };
        let max_stack = self.byte()?;
        let n = self.count(4)?;
        let mut code = Vec::with_capacity(n);
        for _ in 0..n {
            let mut w = [0u8; 4];
            w.copy_from_slice(self.bytes(4)?);
            code.push(Instruction(u32::from_le_bytes(w)));
        }
        let n = self.count(1)?;
        let mut constants = Vec::with_capacity(n);
        for _ in 0..n {
            constants.push(self.constant()?);
        }
        let n = self.count(3)?;
        let mut upvalues = Vec::with_capacity(n);
        for _ in 0..n {
            let d = self.bytes(3)?;
            let in_stack = match d[0] {
                0 => false,
                1 => true,
                _ => return Err("corrupted chunk".into()),
            };
            upvalues.push(UpvalDesc { name: Vec::new(), in_stack, index: d[1], kind: d[2] });
        }
        let n = self.count(1)?;
        let mut protos = Vec::with_capacity(n);
        for _ in 0..n {
            protos.push(self.function(Some(&source), depth + 1)?);
        }
        let mut p = Proto {
            source,
            line_defined,
            last_line_defined,
            num_params,
            is_vararg,
            max_stack,
            code,
            constants,
            upvalues,
            protos,
            line_info: Vec::new(),
            loc_vars: Vec::new(),
        };
        self.debug(&mut p)?;
        Ok(p)
    }

    fn constant(&mut self) -> RR<Constant> {
        Ok(match self.byte()? {
            K_NIL => Constant::Nil,
            K_FALSE => Constant::Bool(false),
            K_TRUE => Constant::Bool(true),
            K_INT => Constant::Int(i64::from_le_bytes(self.array8()?)),
            K_FLOAT => Constant::Float(f64::from_bits(u64::from_le_bytes(self.array8()?))),
            K_STR => match self.string()? {
                Some(s) => Constant::Str(s),
                None => return Err("corrupted chunk".into()),
            },
            _ => return Err("corrupted chunk".into()),
        })
    }

    fn debug(&mut self, p: &mut Proto) -> RR<()> {
        let n = self.count(1)?;
        let mut line = p.line_defined as i64;
        p.line_info.reserve_exact(n);
        for _ in 0..n {
            let z = self.varint()?;
            let d = (z >> 1) as i64 ^ -((z & 1) as i64);
            line = line.checked_add(d).ok_or("integer overflow")?;
            p.line_info.push(u32::try_from(line).map_err(|_| "integer overflow".to_string())?);
        }
        let n = self.count(3)?;
        p.loc_vars.reserve_exact(n);
        for _ in 0..n {
            let name = self.string()?.ok_or("corrupted chunk")?;
            let (start_pc, end_pc) = (self.u32()?, self.u32()?);
            p.loc_vars.push(LocVar { name, start_pc, end_pc });
        }
        let n = self.count(1)?;
        if n != 0 && n != p.upvalues.len() {
            return Err("corrupted chunk".into());
        }
        for i in 0..n {
            let name = self.string()?.ok_or("corrupted chunk")?;
            p.upvalues[i].name = name;
        }
        Ok(())
    }
}
