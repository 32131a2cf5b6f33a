//! Compiled function prototypes: the compiler's output and the VM's input.
//!
//! A [`Proto`] is plain data (no heap handles, no reference counting), so the
//! compiler has no dependency on the VM. The VM converts a `Proto` tree into
//! its own heap representation when a chunk is loaded, interning the string
//! constants. `string.dump` and the binary chunk loader serialize this same
//! structure.
//!
//! Debug information follows PUC Lua's shape, which the VM's error messages
//! and the `debug` library rely on:
//! * `line_info[pc]` is the absolute source line of instruction `pc`;
//! * `loc_vars` lists every local variable with the pc range where it is
//!   live (`start_pc` inclusive, `end_pc` exclusive), in declaration order,
//!   so that "the n-th active local at pc" is the n-th register;
//! * `upvalues[i].name` names upvalue i.

use crate::opcodes::Instruction;

/// A constant in a prototype's constant table.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float (compared by bits when deduplicating, so `0.0` and `-0.0`,
    /// and NaNs, stay distinct).
    Float(f64),
    /// A string (any bytes).
    Str(Vec<u8>),
}

/// Where a closure finds one of its upvalues when it is created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpvalDesc {
    /// The variable's name (for debug information); `_ENV` for the environment.
    pub name: Vec<u8>,
    /// True if the upvalue is a local variable (register `index`) of the
    /// enclosing function; false if it is upvalue `index` of the enclosing
    /// function.
    pub in_stack: bool,
    /// Register or upvalue index, per `in_stack`.
    pub index: u8,
    /// 0 regular, 1 `<const>`, 2 `<close>`, 3 compile-time constant.
    pub kind: u8,
}

/// A local variable's debug record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocVar {
    /// The variable's name.
    pub name: Vec<u8>,
    /// First pc where the variable is live.
    pub start_pc: u32,
    /// First pc where the variable is dead.
    pub end_pc: u32,
}

/// A compiled function.
#[derive(Clone, Debug, PartialEq)]
pub struct Proto {
    /// The chunk name as given to the compiler (`@file.lua`, `=stdin`, or
    /// the source text itself for strings); see [`crate::chunkid`].
    pub source: Vec<u8>,
    /// Line where the function is defined (0 for a main chunk).
    pub line_defined: u32,
    /// Line of the function's `end` (0 for a main chunk).
    pub last_line_defined: u32,
    /// Number of fixed parameters.
    pub num_params: u8,
    /// True if the function is vararg (the main chunk always is).
    pub is_vararg: bool,
    /// Number of registers the function needs.
    pub max_stack: u8,
    /// The code.
    pub code: Vec<Instruction>,
    /// The constant table.
    pub constants: Vec<Constant>,
    /// Upvalue descriptors.
    pub upvalues: Vec<UpvalDesc>,
    /// Nested prototypes, referenced by `CLOSURE`.
    pub protos: Vec<Proto>,
    /// Source line of each instruction (same length as `code`).
    pub line_info: Vec<u32>,
    /// Local variables, for debug information.
    pub loc_vars: Vec<LocVar>,
}
