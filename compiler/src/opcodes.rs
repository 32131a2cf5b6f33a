//! The instruction set: one table, everything else generated from it.
//!
//! Luprex bytecode is register based, in the manner of PUC Lua 5.4: every
//! instruction is one 32-bit word, an opcode in the low 7 bits followed by
//! operand fields in one of five layouts:
//!
//! ```text
//!        3 3 2 2 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0
//!        1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0
//! iABC        C(8)     |      B(8)     |k|     A(8)      |   Op(7)     |
//! iABx              Bx(17)               |     A(8)      |   Op(7)     |
//! iAsBx            sBx (signed)(17)      |     A(8)      |   Op(7)     |
//! iAx                         Ax(25)                     |   Op(7)     |
//! isJ                         sJ (signed)(25)            |   Op(7)     |
//! ```
//!
//! Signed fields use excess-K encoding (`sBx = Bx - 65535`, `sJ = J - 2^24 + 1`,
//! `sC = C - 127`). `R[x]` is register x of the current frame, `K[x]` is
//! constant x of the current prototype, `RK(C)` is `K[C]` when the k bit is
//! set and `R[C]` otherwise, `UpValue[x]` is upvalue x of the running closure.
//!
//! The `opcodes!` table below is the **only** place an opcode is declared.
//! It generates the [`OpCode`] enum, its layout, its name for the
//! disassembler, its semantics string, and the decode table; the encoder and
//! field accessors on [`Instruction`] are layout driven. Adding an opcode means
//! adding one line here and one arm in the VM's dispatch loop.
//!
//! Differences from PUC Lua 5.4: there is no `MMBIN`/`MMBINI`/`MMBINK`; an
//! arithmetic or bitwise instruction whose fast path fails invokes the
//! metamethod itself (the instruction knows its operands and their order).
//!
//! **Invariant:** a conditional test instruction (`EQ` .. `TESTSET`) is always
//! followed by a `JMP`; "pc++" in the semantics below skips that jump.

use std::fmt;

/// Operand layout of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A, B, C and the k bit.
    ABC,
    /// A and unsigned Bx.
    ABx,
    /// A and signed sBx.
    AsBx,
    /// Unsigned Ax.
    Ax,
    /// Signed jump sJ.
    SJ,
}

macro_rules! opcodes {
    ($( $name:ident = $layout:ident, $text:literal, $doc:literal; )*) => {
        /// A Luprex opcode. Generated from the table in `opcodes.rs`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum OpCode {
            $( #[doc = concat!("`", $doc, "`")] $name, )*
        }

        /// Every opcode, in encoding order.
        pub const ALL_OPCODES: &[OpCode] = &[ $( OpCode::$name, )* ];

        impl OpCode {
            /// The operand layout of this opcode.
            pub const fn layout(self) -> Layout {
                match self { $( OpCode::$name => Layout::$layout, )* }
            }
            /// The upper-case mnemonic used by the disassembler.
            pub const fn name(self) -> &'static str {
                match self { $( OpCode::$name => $text, )* }
            }
            /// A one-line statement of what the instruction does.
            pub const fn semantics(self) -> &'static str {
                match self { $( OpCode::$name => $doc, )* }
            }
        }
    };
}

opcodes! {
    Move = ABC, "MOVE", "A B: R[A] := R[B]";
    LoadI = AsBx, "LOADI", "A sBx: R[A] := sBx (integer)";
    LoadF = AsBx, "LOADF", "A sBx: R[A] := (float)sBx";
    LoadK = ABx, "LOADK", "A Bx: R[A] := K[Bx]";
    LoadKX = ABC, "LOADKX", "A: R[A] := K[extra arg]; the next instruction is EXTRAARG";
    LoadFalse = ABC, "LOADFALSE", "A: R[A] := false";
    LFalseSkip = ABC, "LFALSESKIP", "A: R[A] := false; pc++";
    LoadTrue = ABC, "LOADTRUE", "A: R[A] := true";
    LoadNil = ABC, "LOADNIL", "A B: R[A], R[A+1], ..., R[A+B] := nil";
    GetUpval = ABC, "GETUPVAL", "A B: R[A] := UpValue[B]";
    SetUpval = ABC, "SETUPVAL", "A B: UpValue[B] := R[A]";
    GetTabUp = ABC, "GETTABUP", "A B C: R[A] := UpValue[B][K[C]:string]";
    GetTable = ABC, "GETTABLE", "A B C: R[A] := R[B][R[C]]";
    GetI = ABC, "GETI", "A B C: R[A] := R[B][C]";
    GetField = ABC, "GETFIELD", "A B C: R[A] := R[B][K[C]:string]";
    SetTabUp = ABC, "SETTABUP", "A B C k: UpValue[A][K[B]:string] := RK(C)";
    SetTable = ABC, "SETTABLE", "A B C k: R[A][R[B]] := RK(C)";
    SetI = ABC, "SETI", "A B C k: R[A][B] := RK(C)";
    SetField = ABC, "SETFIELD", "A B C k: R[A][K[B]:string] := RK(C)";
    NewTable = ABC, "NEWTABLE", "A B C k: R[A] := {} with hash size hint B (log2+1) and array size C (+ EXTRAARG*256 when k)";
    SelfOp = ABC, "SELF", "A B C k: R[A+1] := R[B]; R[A] := R[B][RK(C):string]";
    AddI = ABC, "ADDI", "A B sC: R[A] := R[B] + sC";
    AddK = ABC, "ADDK", "A B C: R[A] := R[B] + K[C]:number";
    SubK = ABC, "SUBK", "A B C: R[A] := R[B] - K[C]:number";
    MulK = ABC, "MULK", "A B C: R[A] := R[B] * K[C]:number";
    ModK = ABC, "MODK", "A B C: R[A] := R[B] % K[C]:number";
    PowK = ABC, "POWK", "A B C: R[A] := R[B] ^ K[C]:number";
    DivK = ABC, "DIVK", "A B C: R[A] := R[B] / K[C]:number";
    IDivK = ABC, "IDIVK", "A B C: R[A] := R[B] // K[C]:number";
    BAndK = ABC, "BANDK", "A B C: R[A] := R[B] & K[C]:integer";
    BOrK = ABC, "BORK", "A B C: R[A] := R[B] | K[C]:integer";
    BXorK = ABC, "BXORK", "A B C: R[A] := R[B] ~ K[C]:integer";
    ShrI = ABC, "SHRI", "A B sC: R[A] := R[B] >> sC";
    ShlI = ABC, "SHLI", "A B sC: R[A] := sC << R[B]";
    Add = ABC, "ADD", "A B C: R[A] := R[B] + R[C]";
    Sub = ABC, "SUB", "A B C: R[A] := R[B] - R[C]";
    Mul = ABC, "MUL", "A B C: R[A] := R[B] * R[C]";
    Mod = ABC, "MOD", "A B C: R[A] := R[B] % R[C]";
    Pow = ABC, "POW", "A B C: R[A] := R[B] ^ R[C]";
    Div = ABC, "DIV", "A B C: R[A] := R[B] / R[C]";
    IDiv = ABC, "IDIV", "A B C: R[A] := R[B] // R[C]";
    BAnd = ABC, "BAND", "A B C: R[A] := R[B] & R[C]";
    BOr = ABC, "BOR", "A B C: R[A] := R[B] | R[C]";
    BXor = ABC, "BXOR", "A B C: R[A] := R[B] ~ R[C]";
    Shl = ABC, "SHL", "A B C: R[A] := R[B] << R[C]";
    Shr = ABC, "SHR", "A B C: R[A] := R[B] >> R[C]";
    Unm = ABC, "UNM", "A B: R[A] := -R[B]";
    BNot = ABC, "BNOT", "A B: R[A] := ~R[B]";
    Not = ABC, "NOT", "A B: R[A] := not R[B]";
    Len = ABC, "LEN", "A B: R[A] := #R[B] (length operator)";
    Concat = ABC, "CONCAT", "A B: R[A] := R[A].. ... ..R[A + B - 1]";
    Close = ABC, "CLOSE", "A: close all upvalues and to-be-closed variables >= R[A]";
    Tbc = ABC, "TBC", "A: mark variable A \"to be closed\"";
    Jmp = SJ, "JMP", "sJ: pc += sJ";
    Eq = ABC, "EQ", "A B k: if ((R[A] == R[B]) ~= k) then pc++";
    Lt = ABC, "LT", "A B k: if ((R[A] <  R[B]) ~= k) then pc++";
    Le = ABC, "LE", "A B k: if ((R[A] <= R[B]) ~= k) then pc++";
    EqK = ABC, "EQK", "A B k: if ((R[A] == K[B]) ~= k) then pc++";
    EqI = ABC, "EQI", "A sB C k: if ((R[A] == sB) ~= k) then pc++ (C: 1 if sB stands for a float)";
    LtI = ABC, "LTI", "A sB C k: if ((R[A] < sB) ~= k) then pc++ (C: 1 if sB stands for a float)";
    LeI = ABC, "LEI", "A sB C k: if ((R[A] <= sB) ~= k) then pc++ (C: 1 if sB stands for a float)";
    GtI = ABC, "GTI", "A sB C k: if ((R[A] > sB) ~= k) then pc++ (C: 1 if sB stands for a float)";
    GeI = ABC, "GEI", "A sB C k: if ((R[A] >= sB) ~= k) then pc++ (C: 1 if sB stands for a float)";
    Test = ABC, "TEST", "A k: if (not R[A] == k) then pc++";
    TestSet = ABC, "TESTSET", "A B k: if (not R[B] == k) then pc++ else R[A] := R[B]";
    Call = ABC, "CALL", "A B C: R[A], ... ,R[A+C-2] := R[A](R[A+1], ... ,R[A+B-1]) (B=0: args to top; C=0: keep all results)";
    TailCall = ABC, "TAILCALL", "A B C k: return R[A](R[A+1], ... ,R[A+B-1]) (k: close upvalues first)";
    Return = ABC, "RETURN", "A B C k: return R[A], ... ,R[A+B-2] (B=0: to top; k: close upvalues first; C-1: fixed params of a vararg function)";
    Return0 = ABC, "RETURN0", "return (no values)";
    Return1 = ABC, "RETURN1", "A: return R[A]";
    ForLoop = ABx, "FORLOOP", "A Bx: update counters; if loop continues then pc-=Bx";
    ForPrep = ABx, "FORPREP", "A Bx: check values and prepare counters; if not to run then pc+=Bx+1";
    TForPrep = ABx, "TFORPREP", "A Bx: create to-be-closed upvalue for R[A+3]; pc+=Bx";
    TForCall = ABC, "TFORCALL", "A C: R[A+4], ... ,R[A+3+C] := R[A](R[A+1], R[A+2])";
    TForLoop = ABx, "TFORLOOP", "A Bx: if R[A+4] ~= nil then { R[A+2]=R[A+4]; pc -= Bx }";
    SetList = ABC, "SETLIST", "A B C k: R[A][C+i] := R[A+i], 1 <= i <= B (B=0: to top; k: C += EXTRAARG*256)";
    Closure = ABx, "CLOSURE", "A Bx: R[A] := closure(KPROTO[Bx])";
    VarArg = ABC, "VARARG", "A C: R[A], R[A+1], ..., R[A+C-2] = vararg (C=0: all, to top)";
    VarArgPrep = ABC, "VARARGPREP", "A: adjust vararg parameters (A = number of fixed parameters)";
    ExtraArg = Ax, "EXTRAARG", "Ax: extra (larger) argument for previous opcode";
}

/// Number of opcodes.
pub const NUM_OPCODES: usize = ALL_OPCODES.len();

// Every opcode must fit the 7-bit opcode field.
const _: () = assert!(NUM_OPCODES < 128);

/// Largest value of the A, B and C fields.
pub const MAX_ARG_A: u32 = 0xFF;
/// Largest value of the B field.
pub const MAX_ARG_B: u32 = 0xFF;
/// Largest value of the C field.
pub const MAX_ARG_C: u32 = 0xFF;
/// Largest value of the Bx field.
pub const MAX_ARG_BX: u32 = (1 << 17) - 1;
/// Excess-K offset of sBx.
pub const OFFSET_SBX: i32 = (MAX_ARG_BX >> 1) as i32;
/// Largest value of the Ax field.
pub const MAX_ARG_AX: u32 = (1 << 25) - 1;
/// Excess-K offset of sJ.
pub const OFFSET_SJ: i32 = (MAX_ARG_AX >> 1) as i32;
/// Excess-K offset of sC and sB.
pub const OFFSET_SC: i32 = (MAX_ARG_C >> 1) as i32;
/// Number of list items accumulated before a SETLIST instruction.
pub const FIELDS_PER_FLUSH: u32 = 50;

impl OpCode {
    /// Decodes an opcode number; `None` for numbers that name no opcode.
    #[inline]
    pub fn from_u8(n: u8) -> Option<OpCode> {
        ALL_OPCODES.get(n as usize).copied()
    }

    /// True for the conditional instructions that are followed by a jump.
    pub fn is_test(self) -> bool {
        (self as u8) >= (OpCode::Eq as u8) && (self as u8) <= (OpCode::TestSet as u8)
    }
}

/// One encoded instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Instruction(pub u32);

impl Instruction {
    /// Encodes an iABC instruction.
    #[inline]
    pub const fn abc(op: OpCode, a: u32, b: u32, c: u32, k: bool) -> Instruction {
        Instruction((op as u32) | (a << 7) | ((k as u32) << 15) | (b << 16) | (c << 24))
    }
    /// Encodes an iABx instruction.
    #[inline]
    pub const fn abx(op: OpCode, a: u32, bx: u32) -> Instruction {
        Instruction((op as u32) | (a << 7) | (bx << 15))
    }
    /// Encodes an iAsBx instruction.
    #[inline]
    pub const fn asbx(op: OpCode, a: u32, sbx: i32) -> Instruction {
        Instruction::abx(op, a, (sbx + OFFSET_SBX) as u32)
    }
    /// Encodes an iAx instruction.
    #[inline]
    pub const fn ax(op: OpCode, ax: u32) -> Instruction {
        Instruction((op as u32) | (ax << 7))
    }
    /// Encodes an isJ instruction.
    #[inline]
    pub const fn sj(op: OpCode, sj: i32) -> Instruction {
        Instruction((op as u32) | (((sj + OFFSET_SJ) as u32) << 7))
    }

    /// The raw opcode number (low 7 bits).
    #[inline(always)]
    pub const fn op_raw(self) -> u8 {
        (self.0 & 0x7F) as u8
    }
    /// The opcode; `None` if the word holds no valid opcode.
    #[inline]
    pub fn opcode(self) -> Option<OpCode> {
        OpCode::from_u8(self.op_raw())
    }
    /// Field A.
    #[inline(always)]
    pub const fn a(self) -> u32 {
        (self.0 >> 7) & 0xFF
    }
    /// Field B.
    #[inline(always)]
    pub const fn b(self) -> u32 {
        (self.0 >> 16) & 0xFF
    }
    /// Field C.
    #[inline(always)]
    pub const fn c(self) -> u32 {
        self.0 >> 24
    }
    /// The k bit.
    #[inline(always)]
    pub const fn k(self) -> bool {
        (self.0 >> 15) & 1 != 0
    }
    /// Field B read as signed (sB).
    #[inline(always)]
    pub const fn sb(self) -> i32 {
        self.b() as i32 - OFFSET_SC
    }
    /// Field C read as signed (sC).
    #[inline(always)]
    pub const fn sc(self) -> i32 {
        self.c() as i32 - OFFSET_SC
    }
    /// Field Bx.
    #[inline(always)]
    pub const fn bx(self) -> u32 {
        self.0 >> 15
    }
    /// Field sBx.
    #[inline(always)]
    pub const fn sbx(self) -> i32 {
        self.bx() as i32 - OFFSET_SBX
    }
    /// Field Ax.
    #[inline(always)]
    pub const fn ax_field(self) -> u32 {
        self.0 >> 7
    }
    /// Field sJ.
    #[inline(always)]
    pub const fn sj_field(self) -> i32 {
        (self.0 >> 7) as i32 - OFFSET_SJ
    }

    /// Returns a copy with field A replaced.
    pub const fn with_a(self, a: u32) -> Instruction {
        Instruction((self.0 & !(0xFF << 7)) | (a << 7))
    }
    /// Returns a copy with field B replaced.
    pub const fn with_b(self, b: u32) -> Instruction {
        Instruction((self.0 & !(0xFF << 16)) | (b << 16))
    }
    /// Returns a copy with field C replaced.
    pub const fn with_c(self, c: u32) -> Instruction {
        Instruction((self.0 & !(0xFF << 24)) | (c << 24))
    }
    /// Returns a copy with the k bit replaced.
    pub const fn with_k(self, k: bool) -> Instruction {
        Instruction((self.0 & !(1 << 15)) | ((k as u32) << 15))
    }
    /// Returns a copy with field Bx replaced.
    pub const fn with_bx(self, bx: u32) -> Instruction {
        Instruction((self.0 & 0x7FFF) | (bx << 15))
    }
    /// Returns a copy with field sBx replaced.
    pub const fn with_sbx(self, sbx: i32) -> Instruction {
        self.with_bx((sbx + OFFSET_SBX) as u32)
    }
    /// Returns a copy with field sJ replaced.
    pub const fn with_sj(self, sj: i32) -> Instruction {
        Instruction((self.0 & 0x7F) | (((sj + OFFSET_SJ) as u32) << 7))
    }
}

impl fmt::Debug for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Formats the mnemonic and operand fields, as in `luac -l`.
impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(op) = self.opcode() else {
            return write!(f, "<bad opcode {}>", self.op_raw());
        };
        let i = *self;
        match op.layout() {
            Layout::ABC => {
                write!(f, "{:<10} {} {} {}", op.name(), i.a(), i.b(), i.c())?;
                if i.k() {
                    write!(f, "k")?;
                }
                Ok(())
            }
            Layout::ABx => write!(f, "{:<10} {} {}", op.name(), i.a(), i.bx()),
            Layout::AsBx => write!(f, "{:<10} {} {}", op.name(), i.a(), i.sbx()),
            Layout::Ax => write!(f, "{:<10} {}", op.name(), i.ax_field()),
            Layout::SJ => write!(f, "{:<10} {}", op.name(), i.sj_field()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let i = Instruction::abc(OpCode::SetField, 200, 17, 255, true);
        assert_eq!(i.opcode(), Some(OpCode::SetField));
        assert_eq!((i.a(), i.b(), i.c(), i.k()), (200, 17, 255, true));
        let j = Instruction::asbx(OpCode::LoadI, 3, -65535);
        assert_eq!(j.sbx(), -65535);
        assert_eq!(Instruction::asbx(OpCode::LoadI, 3, 65536).sbx(), 65536);
        let s = Instruction::sj(OpCode::Jmp, -12345678);
        assert_eq!(s.sj_field(), -12345678);
        assert_eq!(s.with_sj(42).sj_field(), 42);
        assert_eq!(i.with_c(3).c(), 3);
        assert_eq!(i.with_c(3).b(), 17);
    }

    #[test]
    fn opcode_numbers_are_dense_and_fit_seven_bits() {
        for (n, op) in ALL_OPCODES.iter().enumerate() {
            assert_eq!(*op as usize, n);
            assert_eq!(OpCode::from_u8(n as u8), Some(*op));
        }
        assert_eq!(OpCode::from_u8(NUM_OPCODES as u8), None);
    }

    #[test]
    fn tests_are_contiguous() {
        let tests: Vec<_> = ALL_OPCODES.iter().filter(|o| o.is_test()).map(|o| o.name()).collect();
        assert_eq!(
            tests,
            ["EQ", "LT", "LE", "EQK", "EQI", "LTI", "LEI", "GTI", "GEI", "TEST", "TESTSET"]
        );
    }
}
